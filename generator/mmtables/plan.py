"""The plan of an mmtables build: which archetype, question type, reasoning type and answer
type each item has, and for a yes/no question its truth, for a count its number, fixed by the
seed before any table is drawn, each index's entry computable alone.

Archetypes go round in a seeded order per round, each as many times per round as its share
(equal shares by default: the eight are equal ±1 over any build). Question and reasoning
types go round :data:`BLOCKS`: twenty (question type, reasoning type) pairs in five blocks of
four, each block asking every question type once, the twenty asking every reasoning type four
times. Blocks come in a seeded order per round of twenty and pairs in a seeded order per
block, so question types are equal ±1 over any build and reasoning types equal over every
twenty items.

Answer types are planned per round of twenty too, each as many times as its share
(:data:`ANSWER_SHARES`, by default single-entity 5, single-number 4, multiple-numbers 4,
multiple-entities 3, image-location 2, multiple-types 2: every round gives each its share
exactly). Each item of the round gets one its (question type, reasoning type) can ask on a
table of its archetype (:data:`hopvista.mmtables.questions.TEMPLATES` says which), matched in
a seeded order so that which pair answers how changes from round to round. A yes/no is a
single entity and a count a single number, so the four fact-verification questions and the
three counts of a round fix seven of its answers; the other thirteen choose.

The closed answers are planned as well: of a round's fact-verification questions, half are
true and half false (in a seeded order); a round's counts ask for different numbers of rows
out of 1..4 (:data:`COUNTS`; 0 or 1 on a table with one picture), in a seeded order, so that
no count is more frequent than a third of them. The question maker then draws the value a
question names first and the pictures to fit (a count's rows, the truth of a yes/no), so the
wording says nothing of the answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np

from hopvista.errors import UserError
from hopvista.mmtables.domains import LAYOUTS
from hopvista.mmtables.questions import COUNTING, TEMPLATES, Ask
from hopvista.model.mmtable import ANSWER_TYPES, ARCHETYPES
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

ANSWER_SHARES: Mapping[str, int] = {
    "single-entity": 6, "single-number": 5, "multiple-numbers": 3, "multiple-entities": 2,
    "image-location": 2, "multiple-types": 2}
"""Each answer type's items per round of :data:`ROUND` (the default plan)."""
COUNTS = (1, 2, 3, 4)
"""The numbers of rows a count question asks for (on a table with one picture, each is
brought to 0 or 1 by its parity)."""


@dataclass(frozen=True)
class PlanEntry:
    """What item ``index`` asks: its archetype, question type, reasoning type and answer
    type; ``truth`` the answer of a yes/no question, ``count`` that of a count."""

    index: int
    archetype: str
    question_type: str
    reasoning: str
    answer_type: str
    truth: bool | None = None
    count: int | None = None

    @property
    def ask(self) -> Ask:
        """What the question maker is asked for besides the types."""
        return Ask(self.answer_type, self.truth, self.count)

    def to_json(self) -> dict[str, Any]:
        """The entry as the item's ``provenance.plan``."""
        found: dict[str, Any] = {"archetype": self.archetype,
                                 "question_type": self.question_type,
                                 "reasoning": self.reasoning, "answer_type": self.answer_type}
        if self.truth is not None:
            found["truth"] = self.truth
        if self.count is not None:
            found["count"] = self.count
        return found


def _whole_shares(what: str, names: Sequence[str], shares: Mapping[str, int]) -> dict[str, int]:
    """``shares`` checked against ``names`` (whole numbers >= 0, at least one above 0); a
    name not given gets 0."""
    for name, share in shares.items():
        if name not in names:
            raise UserError(f"{what} shares: no {what} {name!r} ({what}s: {', '.join(names)})")
        if isinstance(share, bool) or not isinstance(share, int) or share < 0:
            raise UserError(f"{what} shares: {name}: {share!r} is not a whole number >= 0")
    if not any(shares.values()):
        raise UserError(f"{what} shares: every share is 0")
    return {name: shares.get(name, 0) for name in names}


def archetype_shares(shares: Mapping[str, int] | None) -> dict[str, int]:
    """``shares`` checked (each archetype's items per round, whole numbers, at least one
    above zero; an archetype not named gets none), or equal shares."""
    if shares is None:
        return dict.fromkeys(ARCHETYPES, 1)
    return _whole_shares("archetype", ARCHETYPES, shares)


def answer_shares(shares: Mapping[str, int] | None) -> dict[str, int]:
    """``shares`` checked (each answer type's items per round of :data:`ROUND`, whole
    numbers adding up to :data:`ROUND`; an answer type not named gets none), or
    :data:`ANSWER_SHARES`."""
    if shares is None:
        return dict(ANSWER_SHARES)
    checked = _whole_shares("answer type", ANSWER_TYPES, shares)
    if sum(checked.values()) != ROUND:
        raise UserError(f"answer type shares: they add up to {sum(checked.values())}; each "
                        f"is the answer type's items per round of {ROUND}, so they must add "
                        f"up to {ROUND}")
    return checked


UNASKABLE = frozenset({("single-chart", "explicit", "mathematical")})
"""(archetype, question type, reasoning type) no table of the archetype can ask: a table with
one picture cannot set a row named for its picture against a row chosen by its picture."""


@cache
def askable(archetype: str, question_type: str, reasoning: str) -> frozenset[str]:
    """The answer types a (question type, reasoning type) can ask on some table of
    ``archetype`` (what :data:`~hopvista.mmtables.questions.TEMPLATES` has for the pair, less
    what no layout of the archetype offers)."""
    if (archetype, question_type, reasoning) in UNASKABLE:
        return frozenset()
    forms = TEMPLATES[(question_type, reasoning)]
    return frozenset(answer for answer, form in forms.items()
                     if any(form.needs(layout) for layout in LAYOUTS[archetype]))


def planned(seed: int, index: int, shares: Mapping[str, int],
            answers: Mapping[str, int] | None = None) -> PlanEntry:
    """The plan's entry for item ``index`` (see the module docstring): ``shares`` are the
    archetypes' (:func:`archetype_shares`), ``answers`` the answer types'
    (:func:`answer_shares`; the default when ``None``). Items ``2k`` and ``2k + 1`` trade
    archetypes when that makes an :data:`UNASKABLE` entry askable, so every count stays as
    planned."""
    answers = ANSWER_SHARES if answers is None else answers
    turn = index // ROUND
    entries = _round(seed, turn, tuple(shares.items()), tuple(answers.items()))
    return entries[index % ROUND]


@lru_cache(maxsize=256)
def _round(seed: int, turn: int, shares: tuple[tuple[str, int], ...],
           answers: tuple[tuple[str, int], ...]) -> tuple[PlanEntry, ...]:
    """The entries of the items of round ``turn``."""
    first = turn * ROUND
    typed = [_typed(seed, first + k, dict(shares)) for k in range(ROUND)]
    answer_types = _answer_types(seed, turn, typed, dict(answers))
    truths = _truths(seed, turn, [reasoning == "fact-verification" for _, _, reasoning in typed])
    counts = _counts(seed, turn, typed)
    return tuple(PlanEntry(first + k, *typed[k], answer_types[k], truths[k], counts[k])
                 for k in range(ROUND))


def _typed(seed: int, index: int, shares: Mapping[str, int]) -> tuple[str, str, str]:
    """Item ``index``'s archetype, question type and reasoning type."""
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
    return archetype, question_type, reasoning


def _archetype(seed: int, index: int, shares: Mapping[str, int]) -> str:
    cycle = [name for name in ARCHETYPES for _ in range(shares[name])]
    turn, place = divmod(index, len(cycle))
    return cycle[_order(seed, len(cycle), "mmtables.archetypes", turn)[place]]


def _pair(seed: int, index: int) -> tuple[str, str]:
    turn, place = divmod(index, ROUND)
    block_at, slot = divmod(place, len(BLOCKS[0]))
    block = BLOCKS[_order(seed, len(BLOCKS), "mmtables.blocks", turn)[block_at]]
    question_type, reasoning = block[_order(seed, len(block), "mmtables.pairs", turn,
                                            block_at)[slot]]
    return question_type, reasoning


@lru_cache(maxsize=1024)
def _order(seed: int, size: int, *keys: str | int) -> tuple[int, ...]:
    """A seeded permutation of ``range(size)`` (``derive(seed, *keys)``)."""
    return tuple(int(k) for k in derive(seed, *keys).permutation(size))


def _answer_types(seed: int, turn: int, typed: Sequence[tuple[str, str, str]],
                  answers: Mapping[str, int]) -> list[str]:
    """An answer type for each item of round ``turn``, each type as many times as its share,
    each one its item's question can ask."""
    options = [askable(*entry) for entry in typed]
    seats = [name for name in ANSWER_TYPES for _ in range(answers.get(name, 0))]
    matched = match(options, seats, derive(seed, "mmtables.answer-types", turn))
    if matched is None:
        first = turn * ROUND
        wanted = ", ".join(f"{name} {answers[name]}" for name in ANSWER_TYPES
                           if answers.get(name))
        raise UserError(f"answer type shares: the questions planned for items {first}-"
                        f"{first + ROUND - 1} cannot give {wanted} (a yes/no is a "
                        "single-entity, a count a single-number: see docs/mmtables.md for "
                        "what each question can answer); give other shares")
    return matched


def match(options: Sequence[frozenset[str]], seats: Sequence[str],
          rng: np.random.Generator) -> list[str] | None:
    """A seat for each slot, each seat taken once and a slot only given a seat among its
    ``options`` (a perfect matching, found by augmenting paths with slots and seats visited
    in an order drawn from ``rng``), or ``None`` when there is none."""
    if len(seats) != len(options):
        return None
    slot_order = [int(k) for k in rng.permutation(len(options))]
    seat_order = [int(k) for k in rng.permutation(len(seats))]
    holder: dict[int, int] = {}

    def seat_for(slot: int, tried: set[int]) -> bool:
        for seat in seat_order:
            if seat in tried or seats[seat] not in options[slot]:
                continue
            tried.add(seat)
            if seat not in holder or seat_for(holder[seat], tried):
                holder[seat] = slot
                return True
        return False

    if not all(seat_for(slot, set()) for slot in slot_order):
        return None
    found = [""] * len(options)
    for seat, slot in holder.items():
        found[slot] = seats[seat]
    return found


def _truths(seed: int, turn: int, verifying: Sequence[bool]) -> list[bool | None]:
    """``True`` for half of the round's fact-verification questions and ``False`` for the
    other half (an odd one out drawn), in a seeded order; ``None`` for the others."""
    slots = [k for k, v in enumerate(verifying) if v]
    rng = derive(seed, "mmtables.truths", turn)
    values = [k % 2 == 0 for k in range(len(slots))]
    if len(slots) % 2:
        values[-1] = bool(rng.integers(2))
    order = [int(k) for k in rng.permutation(len(slots))]
    found: list[bool | None] = [None] * len(verifying)
    for slot, k in zip(slots, order, strict=True):
        found[slot] = values[k]
    return found


def _counts(seed: int, turn: int, typed: Sequence[tuple[str, str, str]]) -> list[int | None]:
    """The number of rows each count of round ``turn`` asks for: :data:`COUNTS` in a seeded
    order (round after round of them when a round has more counts), 0 or 1 on a table of one
    picture (:func:`one_picture`); ``None`` for the others."""
    slots = [k for k, (_, qt, reasoning) in enumerate(typed) if (qt, reasoning) in COUNTING]
    found: list[int | None] = [None] * len(typed)
    for k, slot in enumerate(slots):
        cycle, place = divmod(k, len(COUNTS))
        order = derive(seed, "mmtables.counts", turn, cycle).permutation(len(COUNTS))
        count = COUNTS[int(order[place])]
        found[slot] = count % 2 if one_picture(typed[slot][0]) else count
    return found


def one_picture(archetype: str) -> bool:
    """Whether every table of ``archetype`` shows one picture."""
    return all(column.single for layout in LAYOUTS[archetype] for column in layout.columns)
