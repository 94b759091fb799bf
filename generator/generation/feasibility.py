"""Which statement types a world can make at all, and why not, found by probing it before
planning.

A real source may make some types impossible (three companies whose chart columns never move
the same way every year cannot give CT+TR; texts from which no fact can be extracted give no
FC statement). The plan is drawn over the possible types only, so a build never retries
forever on a type its world cannot support; the manifest says which types were possible and,
for each of the others, why not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hopvista.domain import DomainPack
from hopvista.generation.instance import sample_instance
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.rng import derive
from hopvista.statements.types import make_statement
from hopvista.world import World

PROBE_DRAWS = 300


def needs_trend_pair(type_name: str) -> bool:
    """Whether the type asks the sampler for its guided all-period trend-pair draw."""
    return STATEMENT_TYPES.get(type_name).trend_pair


def needs_shared_facts(type_name: str) -> bool:
    """Whether the type claims facts several entities state, so the sampler should draw
    chunks that state such facts."""
    return STATEMENT_TYPES.get(type_name).shared_facts


@dataclass(frozen=True)
class Availability:
    """The outcome of probing a world: the types it can make, in the pack's order, and one
    short reason for each enabled type it cannot make."""

    available: tuple[str, ...]
    reasons: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, str]:
        """The reasons, as the manifest records them (``config.unavailable``)."""
        return dict(self.reasons)


def texts_without_facts(world: World) -> str | None:
    """Why the world's texts give no fact at all (naming the texts' file where the source
    records one), or ``None`` when some chunk states a fact or there are no texts."""
    chunks = [c for chunks in world.chunks.values() for c in chunks]
    if not chunks or any(c.facts for c in chunks):
        return None
    texts = world.provenance.get("texts")
    name = texts.get("file") if isinstance(texts, dict) else None
    where = f"{name} ({len(chunks)} passages)" if isinstance(name, str) else \
        f"the texts ({len(chunks)} passages)"
    return f"{where} gave no facts to check"


def _period_reason(type_name: str, world: World, pack: DomainPack) -> str | None:
    """Why ``type_name`` needs more periods than an instance of ``pack`` shows, or ``None``."""
    kind = STATEMENT_TYPES.get(type_name)
    if kind.min_periods <= pack.instance_periods:
        return None
    if not world.period_axis:
        return f"needs {kind.min_periods} periods; the data have no period axis"
    return (f"needs {kind.min_periods} periods per instance; an instance shows "
            f"{pack.instance_periods}")


def _static_reason(type_name: str, world: World, pack: DomainPack,
                   no_facts: str | None) -> str | None:
    """Why ``type_name`` cannot be made whatever is drawn, or ``None``; ``no_facts`` is
    :func:`texts_without_facts` of ``world``."""
    period = _period_reason(type_name, world, pack)
    if period is not None:
        return period
    if STATEMENT_TYPES.get(type_name).needs_documents:
        if not world.chunks:
            return "reads text, but the data have no texts"
        if no_facts is not None:
            return f"reads text, but {no_facts}"
    return None


def probe_types(world: World, pack: DomainPack, seed: int,
                draws: int = PROBE_DRAWS) -> Availability:
    """The domain's types for which some instance of ``world`` gives both a true and a false
    statement within ``draws`` instance draws (deterministic in ``seed``), and why each other
    registered type is not possible; a type that cannot be made whatever is drawn (more
    periods than an instance shows, text without facts) is left out without probing."""
    found: list[str] = []
    reasons: dict[str, str] = {}
    no_facts = texts_without_facts(world)
    for type_name in pack.types:
        reason = _static_reason(type_name, world, pack, no_facts)
        if reason is not None:
            reasons[type_name] = reason
            continue
        kind = STATEMENT_TYPES.get(type_name)
        rng = derive(seed, "probe", type_name)
        missing = {True, False}
        drawn = 0
        for _ in range(draws):
            instance = sample_instance(world, pack, rng, trend_pair=kind.trend_pair,
                                       shared=needs_shared_facts(type_name),
                                       text=kind.needs_documents)
            if instance is None:
                continue
            drawn += 1
            for truth in sorted(missing):
                if make_statement(type_name, instance, pack, rng, truth, set()) is not None:
                    missing.discard(truth)
            if not missing:
                found.append(type_name)
                break
        else:
            reasons[type_name] = _probe_failure(drawn, draws, missing, kind.trend_pair,
                                                pack.instance_periods)
    for type_name in STATEMENT_TYPES.names():
        if type_name not in pack.types:
            reasons[type_name] = unplanned_reason(type_name, pack, world)
    return Availability(tuple(found), reasons)


def _probe_failure(drawn: int, draws: int, missing: set[bool], trend_pair: bool,
                   periods: int) -> str:
    if drawn == 0 and trend_pair:
        return (f"no instance of the data met the sampling rules in {draws} draws (an "
                f"all-period trend pair needs two entities of a similar scale that move the "
                f"same way at every step over {periods} periods in a chartable column)")
    if drawn == 0:
        return f"no instance of the data met the sampling rules in {draws} draws"
    what = " or ".join(sorted({True: "a true", False: "a false"}[m] for m in missing))
    return (f"none of {drawn} instances drawn ({draws} draws) gave {what} statement that "
            "meets the type's rules")


def unplanned_reason(type_name: str, pack: DomainPack, world: World) -> str:
    """Why a type the pack does not enable is not made (its forms, or what the data lack)."""
    if STATEMENT_TYPES.get(type_name).needs_documents and not pack.spec.documents:
        return "reads text, but the domain has no documents"
    period = _period_reason(type_name, world, pack)
    if period is not None:
        return period
    if type_name not in pack.words.forms:
        return "the domain's pack words no forms for it"
    return "the domain's pack does not enable it (statement_types)"
