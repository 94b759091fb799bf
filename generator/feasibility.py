"""Which statement types a world can make at all, found by probing it before planning.

A real source may make some types impossible (three companies whose chart columns never move
the same way every year cannot give CT+TR). The plan is drawn over the possible types only, so
a build never retries forever on a type its world cannot support; the manifest says which.
"""

from __future__ import annotations

from hopvista.domain import STATEMENT_TYPES, DomainPack
from hopvista.instance import sample_instance
from hopvista.rng import derive
from hopvista.statements.types import make_statement
from hopvista.world import World

PROBE_DRAWS = 300
#: With three periods the only trend span is all of them, so an item could not hold both a
#: one-hop TR (one entity trends) and a CT+TR pair (two trend) on its one chart: all-year
#: trend pairs need a fourth period to leave shorter spans to one-hop trends.
MIN_PERIODS_FOR_TREND_PAIRS = 4


def needs_trend_pair(type_name: str) -> bool:
    """Whether the type has the all-years trend hop pair (CT+TR, AR+TR, with or without FC)."""
    return "TR" in type_name and "+" in type_name.removeprefix("FC+")


def feasible_types(world: World, pack: DomainPack, seed: int,
                   draws: int = PROBE_DRAWS) -> tuple[str, ...]:
    """The types for which some instance of ``world`` gives both a true and a false statement
    within ``draws`` instance draws (deterministic in ``seed``); all-year trend pairs only
    with at least four periods per instance."""
    found = []
    short = pack.spec.instance.periods < MIN_PERIODS_FOR_TREND_PAIRS
    for type_name in STATEMENT_TYPES:
        if short and needs_trend_pair(type_name):
            continue
        rng = derive(seed, "probe", type_name)
        missing = {True, False}
        for _ in range(draws):
            instance = sample_instance(world, pack, rng, trend_pair=needs_trend_pair(type_name))
            if instance is None:
                continue
            for truth in sorted(missing):
                if make_statement(type_name, instance, pack, rng, truth, set()) is not None:
                    missing.discard(truth)
            if not missing:
                found.append(type_name)
                break
    return tuple(found)
