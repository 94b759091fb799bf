"""Which statement types a world can make at all, found by probing it before planning.

A real source may make some types impossible (three companies whose chart columns never move
the same way every year cannot give CT+TR). The plan is drawn over the possible types only, so
a build never retries forever on a type its world cannot support; the manifest says which.
"""

from __future__ import annotations

from hopvista.domain import DomainPack
from hopvista.instance import sample_instance
from hopvista.rng import derive
from hopvista.statements.registry import STATEMENT_TYPES
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


def feasible_types(world: World, pack: DomainPack, seed: int,
                   draws: int = PROBE_DRAWS) -> tuple[str, ...]:
    """The domain's types for which some instance of ``world`` gives both a true and a false
    statement within ``draws`` instance draws (deterministic in ``seed``); a type needing
    more periods than an instance shows is left out without probing."""
    found = []
    periods = pack.instance_periods
    for type_name in pack.types:
        kind = STATEMENT_TYPES.get(type_name)
        if kind.min_periods > periods or (kind.needs_documents and not world.chunks):
            continue
        rng = derive(seed, "probe", type_name)
        missing = {True, False}
        for _ in range(draws):
            instance = sample_instance(world, pack, rng, trend_pair=kind.trend_pair,
                                       shared=needs_shared_facts(type_name))
            if instance is None:
                continue
            for truth in sorted(missing):
                if make_statement(type_name, instance, pack, rng, truth, set()) is not None:
                    missing.discard(truth)
            if not missing:
                found.append(type_name)
                break
    return tuple(found)
