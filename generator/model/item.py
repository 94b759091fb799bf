"""The item: one question with its inputs, images, answer, variant and provenance.

Ids: a base item is ``{domain}-s{seed}-{index:06d}`` (its ``base_id``); every item, the base
one included, is one *variant* of it with ``id = f"{base_id}.{variant.name}"``; the generated
item is variant ``base`` (``financial-s7-000003.base``). Variant names are lower-case names
without dots, so ``id.split(".", 1)`` gives ``(base_id, variant)``; the variant name is also
the key of the item's random streams (``derive(seed, "item", index, variant)``).
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from hopvista.model.base import Model
from hopvista.model.image import Image, by_role
from hopvista.model.inputs import Inputs
from hopvista.model.kinds import kind_problems
from hopvista.model.mmtable import Tags
from hopvista.model.statement import Statement
from hopvista.model.structure import Attributes
from hopvista.model.task import Task

BASE_VARIANT = "base"
"""The variant name of a generated item."""

VARIANT_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
BASE_ID_PATTERN = r"^[^.\s/\\]+$"


def base_item_id(domain: str, seed: int, index: int) -> str:
    """The base id of item ``index`` of a build: ``{domain}-s{seed}-{index:06d}``."""
    return f"{domain}-s{seed}-{index:06d}"


def variant_id(base_id: str, variant: str = BASE_VARIANT) -> str:
    """The id of ``variant`` of the base item ``base_id``."""
    return f"{base_id}.{variant}"


class Entity(Model):
    """An entity of the item: the source's id and its display name."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)


class Variant(Model):
    """How this item shows its base item.

    ``name`` is ``"base"`` for a generated item; a variant made by a recipe (``gen augment``)
    has its own name, the ``recipe`` that made it and the exact ``parameters`` it drew.
    ``style`` is the sampled table theme and chart style, ``perturbations`` the image
    perturbations applied in order, ``markup`` the counterfactual markup (or ``None``).
    """

    name: str = Field(default=BASE_VARIANT, pattern=VARIANT_PATTERN)
    recipe: str | None = None
    parameters: dict[str, Any] = Field(default_factory=dict)
    style: dict[str, Any] = Field(default_factory=dict)
    perturbations: tuple[dict[str, Any], ...] = ()
    markup: dict[str, Any] | None = None


class Provenance(Model):
    """Where the item comes from: generator, source, and for a generated item its plan index,
    the attempt that satisfied the plan, the plan entry and the chart margins."""

    generator: str
    source: str
    index: int | None = Field(default=None, ge=0)
    attempts: int | None = Field(default=None, ge=1)
    plan: dict[str, Any] | None = None
    decidability: dict[str, Any] | None = None
    agree_waived: bool | None = None
    """``True`` when no instance let the item's statements meet the plan's proxy-agreement
    demands and they were built without them (docs/format.md, section 5.4)."""


class Item(Model):
    """One question of a dataset (one line of ``items.jsonl``).

    ``kind`` names an entry of :data:`hopvista.model.kinds.ITEM_KINDS`, which says what
    ``answer`` holds (``answer_type``) and how a prediction is scored. Three-statement items
    have ``statements``; other kinds leave it empty.
    """

    id: str = Field(min_length=3)
    base_id: str = Field(pattern=BASE_ID_PATTERN)
    domain: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    difficulty: str | None = None
    hops: int | None = Field(default=None, ge=1)
    entities: tuple[Entity, ...] = ()
    inputs: Inputs = Field(default_factory=Inputs)
    images: tuple[Image, ...] = ()
    question: str = Field(min_length=1)
    statements: tuple[Statement, ...] = ()
    answer: JsonValue
    answer_type: str = Field(min_length=1)
    variant: Variant = Field(default_factory=Variant)
    seed: int | None = Field(default=None, ge=0)
    provenance: Provenance
    task: Task | None = None
    """A markup task's marks and program (kind ``markup_task``); absent from the JSON of every
    other item."""
    tags: Tags | None = None
    """A multimodal table question's archetype, question, reasoning and answer types (kind
    ``mmtable``); absent from the JSON of every other item."""
    program: dict[str, JsonValue] | None = None
    """A multimodal table question's program (kind ``mmtable``,
    :mod:`hopvista.program.cells`); absent from the JSON of every other item."""
    attributes: Attributes | None = None
    """The item's structure type, layout features, information richness, skills and
    reasoning steps (:class:`hopvista.model.structure.Attributes`); absent from the JSON of
    an item built without ``--structure``."""

    @model_serializer(mode="wrap")
    def _without_absent_task(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in ("task", "tags", "program", "attributes"):
                if data.get(key, 0) is None:
                    del data[key]
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Item:
        if self.id != variant_id(self.base_id, self.variant.name):
            raise ValueError(f"id {self.id!r} is not base_id.variant "
                             f"({variant_id(self.base_id, self.variant.name)!r})")

        problems = kind_problems(self)
        if problems:
            raise ValueError(f"{self.kind} item: " + "; ".join(problems))
        return self

    def image(self, role: str) -> Image | None:
        """The first image of ``role``, or ``None``."""
        found = by_role(self.images, role)
        return found[0] if found else None

    def with_images(self, images: list[Image] | tuple[Image, ...]) -> Item:
        """A copy of this item showing ``images`` (the item itself is unchanged)."""
        return self.model_copy(update={"images": tuple(images)})
