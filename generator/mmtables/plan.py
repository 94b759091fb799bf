"""The plan of an mmtables build: which archetype, question type and reasoning type each item
has, fixed by the seed before any table is drawn, each index's entry computable alone.

Archetypes go round in a seeded order per round, each as many times per round as its share
(equal shares by default: the eight are equal ±1 over any build). Question and reasoning
types go round :data:`BLOCKS`: twenty (question type, reasoning type) pairs in five blocks of
four, each block asking every question type once, the twenty asking every reasoning type four
times. Blocks come in a seeded order per round of twenty and pairs in a seeded order per
block, so question types are equal ±1 over any build and reasoning types equal over every
twenty items. Answer types follow from the questions each pair's maker asks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hopvista.errors import UserError
from hopvista.model.mmtable import ARCHETYPES
from hopvista.rng import derive

BLOCKS = (
    (("answer-mention", "extrema"), ("visual", "mathematical"),
     ("explicit", "fact-verification"), ("implicit", "other")),
    (("answer-mention", "extrema"), ("visual", "fact-verification"),
     ("explicit", "vision-based"), ("implicit", "mathematical")),
    (("answer-mention", "vision-based"), ("visual", "extrema"), ("explicit", "other"),
     ("implicit", "fact-verification")),
    (("answer-mention", "other"), ("visual", "mathematical"),
     ("explicit", "fact-verification"), ("implicit", "vision-based")),
    (("answer-mention", "other"), ("visual", "vision-based"), ("explicit", "mathematical"),
     ("implicit", "extrema")),
)
"""The (question type, reasoning type) pairs of one round, in blocks of four."""
ROUND = sum(len(block) for block in BLOCKS)


@dataclass(frozen=True)
class PlanEntry:
    """What item ``index`` asks: its archetype, question type and reasoning type."""

    index: int
    archetype: str
    question_type: str
    reasoning: str

    def to_json(self) -> dict[str, str]:
        """The entry as the item's ``provenance.plan``."""
        return {"archetype": self.archetype, "question_type": self.question_type,
                "reasoning": self.reasoning}


def archetype_shares(shares: Mapping[str, int] | None) -> dict[str, int]:
    """``shares`` checked (each archetype's items per round, whole numbers, at least one
    above zero; an archetype not named gets none), or equal shares."""
    if shares is None:
        return dict.fromkeys(ARCHETYPES, 1)
    for name, share in shares.items():
        if name not in ARCHETYPES:
            raise UserError(f"archetype shares: no archetype {name!r} (archetypes: "
                            f"{', '.join(ARCHETYPES)})")
        if isinstance(share, bool) or not isinstance(share, int) or share < 0:
            raise UserError(f"archetype shares: {name}: {share!r} is not a whole number >= 0")
    if not any(shares.values()):
        raise UserError("archetype shares: every share is 0")
    return {name: shares.get(name, 0) for name in ARCHETYPES}


UNASKABLE = frozenset({("single-chart", "explicit", "mathematical")})
"""(archetype, question type, reasoning type) no table of the archetype can ask: a table with
one picture cannot set a row named for its picture against a row chosen by its picture."""


def planned(seed: int, index: int, shares: Mapping[str, int]) -> PlanEntry:
    """The plan's entry for item ``index`` (see the module docstring). Items ``2k`` and
    ``2k + 1`` trade archetypes when that makes an :data:`UNASKABLE` entry askable, so every
    count stays as planned."""
    first = index - index % 2
    raw = [(_archetype(seed, i, shares), *_pair(seed, i)) for i in (first, first + 1)]
    traded = [(raw[1][0], *raw[0][1:]), (raw[0][0], *raw[1][1:])]
    if any(entry in UNASKABLE for entry in raw) and not any(e in UNASKABLE for e in traded):
        raw = traded
    archetype, question_type, reasoning = raw[index % 2]
    if (archetype, question_type, reasoning) in UNASKABLE:
        raise UserError(f"archetype shares: item {index} would be a {question_type} "
                        f"{reasoning} question on a {archetype} table, which none can ask; "
                        "give other archetypes a share")
    return PlanEntry(index, archetype, question_type, reasoning)


def _archetype(seed: int, index: int, shares: Mapping[str, int]) -> str:
    cycle = [name for name in ARCHETYPES for _ in range(shares[name])]
    turn, place = divmod(index, len(cycle))
    return cycle[int(derive(seed, "mmtables.archetypes", turn).permutation(len(cycle))[place])]


def _pair(seed: int, index: int) -> tuple[str, str]:
    turn, place = divmod(index, ROUND)
    block_at, slot = divmod(place, len(BLOCKS[0]))
    block = BLOCKS[int(derive(seed, "mmtables.blocks", turn).permutation(len(BLOCKS))
                       [block_at])]
    question_type, reasoning = block[int(derive(seed, "mmtables.pairs", turn, block_at)
                                         .permutation(len(block))[slot])]
    return question_type, reasoning
