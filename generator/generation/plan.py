"""The balance plan: level, answer set, modality order and statement types for every index.

The plan is drawn from the seed before any item is made, so retries can redraw an instance but
never the answer. Each axis is balanced on its own and shuffled independently:

* the 8 answer sets are equal ±1 over the build, and ±1 within each level;
* for Easy and Medium, the 6 orders of the three modality slots are equal ±1 per level;
* each modality slot is true about as often as false (orders are paired with answers to
  that end, keeping both balanced);
* types sharing a modality slot are equal ±1, and equal ±1 among that slot's true statements
  and among its false ones, so true and false are balanced per type and no type predicts
  the label;
* with the defences on, every statement of a type that reads the chart or the
  table is told whether the proxy reading of each (:mod:`hopvista.audit.proxy`) must agree with
  its label: the combinations are equal ±1 among a type's true statements and among its
  false ones, so a solver that imputes a withheld modality is at chance on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import chain, combinations, product
from typing import Any, TypeVar

import numpy as np

from hopvista.errors import UserError
from hopvista.model.balance import LEVEL_NAMES, slot_groups, slot_orders
from hopvista.model.kinds import THREE_STATEMENT
from hopvista.program.statement_types import STATEMENT_TYPES, proxied, types_for
from hopvista.rng import derive

T = TypeVar("T")

STATEMENTS = THREE_STATEMENT.statements
"""How many statements a plan gives each item: as many as its item kind has."""
ANSWER_SETS: tuple[tuple[int, ...], ...] = tuple(chain.from_iterable(
    combinations(range(1, STATEMENTS + 1), r) for r in range(STATEMENTS + 1)))


def check_levels(levels: tuple[int, ...], types: tuple[str, ...],
                 available: tuple[str, ...], reasons: dict[str, str] | None = None) -> None:
    """Raise ``UserError`` if a requested level has no type in this domain, or no modality
    slot of it that an available type fills; the message gives the ``reasons`` why each of
    the level's types is not possible (:class:`hopvista.generation.feasibility.Availability`)."""
    for level in levels:
        groups = slot_groups(level, types, available)
        if not groups:
            raise UserError(
                f"this domain makes no {LEVEL_NAMES[level]} ({level}-hop) statements: none of "
                f"its statement types ({', '.join(types) or 'none'}) has {level} hops; "
                "choose other --hops")
        if not any(groups.values()):
            names = [n for group in types_for(level, types).values() for n in group]
            raise UserError(
                f"this source cannot make {LEVEL_NAMES[level]} items: no statement of "
                f"{', '.join(groups)} is possible in its data "
                f"({why_not(names, reasons or {})}); choose other --hops")


def why_not(names: list[str], reasons: dict[str, str]) -> str:
    """The reasons ``names`` are not possible, types with the same reason together
    (``"FC, FC+CT: reads text, but texts.jsonl gave no facts; CT+TR: ..."``)."""
    grouped: dict[str, list[str]] = {}
    for name in names:
        grouped.setdefault(reasons.get(name, "not possible in its data"), []).append(name)
    return "; ".join(f"{', '.join(group)}: {reason}" for reason, group in grouped.items())


def missing_slots(levels: tuple[int, ...], types: tuple[str, ...],
                  available: tuple[str, ...]) -> dict[int, list[str]]:
    """Per level, the modality slots no available type fills: the plan leaves them out and
    fills the level's items from its other slots."""
    out: dict[int, list[str]] = {}
    for level in levels:
        empty = [g for g, names in slot_groups(level, types, available).items() if not names]
        if empty:
            out[level] = empty
    return out


@dataclass(frozen=True)
class PlanEntry:
    """What index ``index`` must be."""

    index: int
    level: int
    answer: tuple[int, ...]
    order: tuple[str, ...]
    types: tuple[str, ...]
    agree: tuple[tuple[tuple[str, bool], ...], ...] | None = None
    """Per slot, ``(modality, agrees)`` for each proxied modality its type reads; ``None``
    with the defences off."""
    structure: str | None = None
    """The structure type its table is shown in (``--structure``); ``None`` without one."""

    @property
    def slots(self) -> range:
        """The item's statement slots (0-based), in order."""
        return range(len(self.types))

    def truth(self, slot: int) -> bool:
        """Whether statement ``slot`` (0-based) must be true."""
        return slot + 1 in self.answer

    def wants(self, slot: int) -> dict[str, bool]:
        """Whether each proxy reading of statement ``slot`` must agree with its label
        (empty: no demand)."""
        return {} if self.agree is None else dict(self.agree[slot])

    def to_json(self) -> dict[str, Any]:
        """The plan entry as recorded in provenance."""
        out: dict[str, Any] = {"level": self.level, "answer": list(self.answer),
                               "order": list(self.order), "types": list(self.types)}
        if self.agree is not None:
            out["agree"] = [dict(slot) for slot in self.agree]
        if self.structure is not None:
            out["structure"] = self.structure
        return out


def balanced_split(values: list[T], counts: list[int], rng: np.random.Generator) -> list[list[T]]:
    """Lists of the given lengths, each balanced ±1 over ``values``, their union too, shuffled.

    Whole rounds go to every list; the remainders are taken from one shuffled cycle of the
    values in turn, so the extras of consecutive lists never pile up on the same value.
    """
    k = len(values)
    cycle = [values[int(i)] for i in rng.permutation(k)]
    out, cursor = [], 0
    for count in counts:
        rounds, extra = divmod(count, k)
        part = values * rounds + [cycle[(cursor + j) % k] for j in range(extra)]
        cursor += extra
        out.append([part[int(i)] for i in rng.permutation(len(part))])
    return out


def _even_out_truth(orders: list[tuple[str, ...]], answers: list[tuple[int, ...]],
                    groups: list[str], rng: np.random.Generator, rounds: int = 4000) -> None:
    """Swap orders between items until each modality slot is true about half of the time.

    Swaps keep the multiset of orders (so their balance) and the answers; they only pair
    them so that no modality slot is more often true than false. The score of a slot is
    (true - false); the sum of squared scores is driven down, spreading any imbalance that
    the answers force evenly over the slots.
    """
    def contribution(order: tuple[str, ...], answer: tuple[int, ...]) -> dict[str, int]:
        return {g: (1 if s + 1 in answer else -1) for s, g in enumerate(order)}

    score = dict.fromkeys(groups, 0)
    for order, answer in zip(orders, answers, strict=True):
        for g, v in contribution(order, answer).items():
            score[g] += v
    n = len(orders)
    for _ in range(rounds):
        if n < 2 or sum(abs(v) for v in score.values()) <= len(groups) * (n % 2):
            return
        i, j = (int(x) for x in rng.choice(n, size=2, replace=False))
        if orders[i] == orders[j]:
            continue
        trial = dict(score)
        for order, answer, sign in ((orders[i], answers[i], -1), (orders[j], answers[j], -1),
                                    (orders[j], answers[i], 1), (orders[i], answers[j], 1)):
            for g, v in contribution(order, answer).items():
                trial[g] += sign * v
        if sum(v * v for v in trial.values()) <= sum(v * v for v in score.values()):
            orders[i], orders[j] = orders[j], orders[i]
            score = trial


def parse_levels(text: str) -> tuple[int, ...]:
    """``'3'``, ``'1-3'`` or ``'1,3'`` to a tuple of levels; ``ValueError`` if out of 1..3."""
    levels: set[int] = set()
    for part in text.split(","):
        bounds = part.strip().split("-")
        if len(bounds) > 2 or not all(b.strip().isdigit() for b in bounds):
            raise ValueError(f"cannot read {text!r}: use e.g. 3, 1-3 or 1,3")
        low, high = int(bounds[0]), int(bounds[-1])
        if low > high or low < 1 or high > 3:
            raise ValueError(f"hops must be between 1 and 3, got {text!r}")
        levels.update(range(low, high + 1))
    return tuple(sorted(levels))


def make_plan(seed: int, count: int, levels: tuple[int, ...], types: tuple[str, ...],
              available: tuple[str, ...] | None = None,
              defences: bool = True) -> list[PlanEntry]:
    """The plan of a build: a pure function of (seed, count, levels, the domain's types in
    its order, the available ones, whether the defences are on)."""
    possible = available if available is not None else types
    check_levels(levels, types, possible)
    rng = derive(seed, "plan", count, *levels)
    (level_of,) = balanced_split(list(levels), [count], rng)
    members = {lv: [i for i in range(count) if level_of[i] == lv] for lv in levels}
    answers_by_level = balanced_split(list(ANSWER_SETS), [len(members[lv]) for lv in levels],
                                      rng)
    answer: dict[int, tuple[int, ...]] = {}
    order: dict[int, tuple[str, ...]] = {}
    for lv, answers in zip(levels, answers_by_level, strict=True):
        answer.update(zip(members[lv], answers, strict=True))
        groups = [g for g, names in slot_groups(lv, types, possible).items() if names]
        if len(groups) == 1:
            order.update({i: (groups[0],) * STATEMENTS for i in members[lv]})
        else:
            (orders,) = balanced_split(slot_orders(groups), [len(members[lv])], rng)
            _even_out_truth(orders, [answer[i] for i in members[lv]], groups, rng)
            order.update(zip(members[lv], orders, strict=True))
    chosen_type: dict[tuple[int, int], str] = {}
    for lv in levels:
        for group, names in slot_groups(lv, types, possible).items():
            if not names:
                continue  # a slot no possible type fills: no item's order has it
            slots = [(i, s) for i in members[lv] for s in range(STATEMENTS)
                     if order[i][s] == group]
            true = [x for x in slots if x[1] + 1 in answer[x[0]]]
            false = [x for x in slots if x[1] + 1 not in answer[x[0]]]
            for where, chosen in zip((true, false),
                                     balanced_split(names, [len(true), len(false)], rng),
                                     strict=True):
                chosen_type.update(zip(where, chosen, strict=True))
    agree = _agreement(chosen_type, answer, rng) if defences else None
    return [PlanEntry(index=i, level=level_of[i], answer=answer[i], order=order[i],
                      types=tuple(chosen_type[(i, s)] for s in range(STATEMENTS)),
                      agree=None if agree is None else tuple(agree[(i, s)]
                                                             for s in range(STATEMENTS)))
            for i in range(count)]


def with_structures(plan: list[PlanEntry], structures: tuple[str, ...], seed: int
                    ) -> list[PlanEntry]:
    """The plan with a structure type for every entry (none without ``structures``): each
    type equal ±1 over the build and within each level, drawn from a stream of its own, so
    the rest of the plan is the one a build without structures makes."""
    if not structures:
        return plan
    rng = derive(seed, "structure", len(plan))
    levels = sorted({e.level for e in plan})
    members = [[e for e in plan if e.level == lv] for lv in levels]
    chosen: dict[int, str] = {}
    for entries, kinds in zip(members, balanced_split(list(structures),
                                                      [len(m) for m in members], rng),
                              strict=True):
        chosen.update(zip((e.index for e in entries), kinds, strict=True))
    return [replace(e, structure=chosen[e.index]) for e in plan]


def _agreement(chosen_type: dict[tuple[int, int], str], answer: dict[int, tuple[int, ...]],
               rng: np.random.Generator) -> dict[tuple[int, int], tuple[tuple[str, bool], ...]]:
    """Per slot, whether each proxy reading must agree: every combination equal ±1 among a
    type's true slots and among its false ones."""
    result: dict[tuple[int, int], tuple[tuple[str, bool], ...]] = {}
    for name in sorted(set(chosen_type.values())):
        modalities = proxied(STATEMENT_TYPES.get(name).modalities)
        combos = [tuple(zip(modalities, bits, strict=True))
                  for bits in product((True, False), repeat=len(modalities))]
        slots = sorted(x for x, t in chosen_type.items() if t == name)
        for truth in (True, False):
            where = [x for x in slots if (x[1] + 1 in answer[x[0]]) == truth]
            (bits,) = balanced_split(combos, [len(where)], rng)
            result.update(zip(where, bits, strict=True))
    return result


def plan_shares(plan: list[PlanEntry]) -> dict[str, Any]:
    """Counts along every balanced axis, as the manifest reports them."""
    def tally(keys: list[str]) -> dict[str, int]:
        return {k: keys.count(k) for k in sorted(set(keys))}

    def answer_key(a: tuple[int, ...]) -> str:
        return ",".join(map(str, a)) or "none"

    by_type: dict[str, dict[str, int]] = {}
    for entry in plan:
        for slot, name in enumerate(entry.types):
            cell = by_type.setdefault(name, {"true": 0, "false": 0})
            cell["true" if entry.truth(slot) else "false"] += 1
    return {
        "levels": tally([LEVEL_NAMES[e.level] for e in plan]),
        "answers": tally([answer_key(e.answer) for e in plan]),
        "orders": {LEVEL_NAMES[lv]: tally([" | ".join(e.order) for e in plan if e.level == lv])
                   for lv in sorted({e.level for e in plan}) if lv != 3},
        "types": {name: by_type[name] for name in sorted(by_type)},
    } | ({"structures": tally([e.structure for e in plan if e.structure is not None])}
         if any(e.structure is not None for e in plan) else {})


