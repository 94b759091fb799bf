"""The data model every source yields: entities, a numeric panel, text chunks and facts.

A :class:`World` is domain-agnostic. A source (``hopvista.sources``) builds one; the engine
samples instances from it. Values are exact :class:`~decimal.Decimal` numbers at the source's
full precision; what a table or chart *shows* is derived later, by rounding to the column's
display precision (see :mod:`hopvista.display`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class Column:
    """One numeric column of the panel, as the domain pack describes it."""

    key: str
    label: str
    description: str
    unit: str
    precision: int
    chartable: bool = True


@dataclass(frozen=True)
class Entity:
    """A thing statements are about (a company, a material, ...)."""

    id: str
    name: str
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Fact:
    """A checkable claim that one entity's text makes, with the words that prove it.

    ``needle`` is a phrase that occurs verbatim in ``sentence`` (and so in the chunk's text);
    it identifies the fact textually. ``claim`` is the same fact as a third-person predicate
    about the entity ("is headquartered in Austin, Texas"), used to word FC statements.
    ``key`` groups facts of one kind with one value, so two entities sharing a fact are seen.
    """

    entity: str
    chunk: str
    kind: str
    key: str
    needle: str
    claim: str
    sentence: str


@dataclass(frozen=True)
class SharedFact:
    """A fact that several entities' texts state alike ("is audited by KPMG LLP"): its
    ``needle`` occurs in exactly the texts of ``owners``, each of which states the fact
    (``key``). A claim of it is true of any one of them (docs/format.md, section 3.8)."""

    key: str
    needle: str
    claim: str
    owners: frozenset[str]


@dataclass(frozen=True)
class Chunk:
    """A passage of an entity's document (FCMR: three consecutive paragraphs)."""

    id: str
    entity: str
    section: str
    period: int
    text: str
    columns_stated: frozenset[str] = frozenset()
    facts: tuple[Fact, ...] = ()


@dataclass
class World:
    """Everything a source yields for one domain.

    ``values[entity][column]`` is a list aligned with ``periods``; ``None`` marks a value the
    source does not have. ``identities`` are the domain's accounting identities as parsed
    :class:`hopvista.domain.Identity` objects.
    """

    domain: str
    source: str
    entities: list[Entity]
    periods: list[int]
    columns: dict[str, Column]
    values: dict[str, dict[str, list[Decimal | None]]]
    chunks: dict[str, list[Chunk]]
    provenance: dict[str, object] = field(default_factory=dict)
    period_axis: bool = True
    """False for a domain without a period axis: ``periods == [0]``, never shown."""
    cache: dict[object, object] = field(default_factory=dict, repr=False, compare=False)

    def entity(self, entity_id: str) -> Entity:
        """The entity with this id."""
        for entity in self.entities:
            if entity.id == entity_id:
                return entity
        raise KeyError(entity_id)

    def value(self, entity_id: str, column: str, period: int) -> Decimal | None:
        """The full-precision value of one cell, or ``None`` where the source has none."""
        return self.values[entity_id][column][self.periods.index(period)]
