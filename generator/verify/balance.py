"""Balance and counts, from small per-item summaries gathered while the items stream by.

:class:`Tally` keeps counters only (bounded by the number of answer sets, orders and types,
not by the number of items). From it come the plan's guarantees (each axis equal ±1) and the
manifest's ``shares`` and ``counts``, recomputed and compared.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations, product
from typing import Any

from hopvista.model.balance import (
    LEVEL_NAMES,
    agreement_key,
    agreement_shares,
    slot_groups,
    slot_orders,
)
from hopvista.model.kinds import THREE_STATEMENT
from hopvista.program.statement_types import proxied
from hopvista.verify.jsonl import same_json

ANSWER_SETS = [c for r in range(THREE_STATEMENT.statements + 1)
               for c in combinations(range(1, THREE_STATEMENT.statements + 1), r)]
Report = Callable[[str], None]
TrueFalse = dict[str, dict[str, int]]


def _truth_count(counts: dict[str, dict[str, int]], name: str, truth: bool) -> None:
    cell = counts.setdefault(name, {"true": 0, "false": 0})
    cell["true" if truth else "false"] += 1


@dataclass
class Tally:
    """Counters over the well-formed items seen so far."""

    items: int = 0
    statements: int = 0
    images: int = 0
    levels: Counter[str] = field(default_factory=Counter)
    answers: Counter[tuple[int, ...]] = field(default_factory=Counter)
    level_answers: Counter[tuple[int, tuple[int, ...]]] = field(default_factory=Counter)
    orders: Counter[tuple[int, tuple[str, ...]]] = field(default_factory=Counter)
    slot_types: Counter[tuple[int, str, str]] = field(default_factory=Counter)
    planned: TrueFalse = field(default_factory=dict)
    built: TrueFalse = field(default_factory=dict)
    agree: list[tuple[str, bool, dict[str, bool]]] = field(default_factory=list)
    """(type, label, demands) of every planned slot with an agreement demand. One small
    tuple per statement: the combinations are counted at the end."""
    proxied: dict[str, tuple[str, ...]] = field(default_factory=dict)
    waived: list[str] = field(default_factory=list)
    """The type of every statement of an item whose demands were waived."""
    waived_slots: Counter[tuple[str, bool]] = field(default_factory=Counter)
    """(type, label) -> statements whose demands were waived."""

    def add(self, item: dict[str, Any]) -> None:
        """Count one well-formed item."""
        level, answer = item["hops"], tuple(item["answer"])
        groups = tuple("+".join(s["modalities"]) for s in item["statements"])
        self.items += 1
        self.statements += len(item["statements"])
        self.images += len(item["images"])
        self.levels[LEVEL_NAMES[level]] += 1
        self.answers[answer] += 1
        self.level_answers[(level, answer)] += 1
        self.orders[(level, groups)] += 1
        for group, statement in zip(groups, item["statements"], strict=True):
            self.slot_types[(level, group, statement["type"])] += 1
            _truth_count(self.built, statement["type"], statement["label"])
        plan = item["provenance"]["plan"]
        for slot, name in enumerate(plan["types"]):
            _truth_count(self.planned, name, slot + 1 in plan["answer"])
        for statement in item["statements"]:
            self.proxied[statement["type"]] = proxied(statement["modalities"])
        agree = plan.get("agree")
        if isinstance(agree, list):
            for slot, name in enumerate(plan["types"]):
                wants = agree[slot]
                if not isinstance(wants, dict):
                    raise ValueError(f"provenance.plan.agree[{slot}] is not an object")
                if item["provenance"].get("agree_waived") is True:
                    self.waived.append(name)
                    self.waived_slots[(name, slot + 1 in plan["answer"])] += 1
                else:
                    self.agree.append((name, slot + 1 in plan["answer"],
                                       {str(k): bool(v) for k, v in wants.items()}))


def _spread(name: str, counts: dict[Any, int], universe: list[Any],
            slack: int = 0) -> list[str]:
    """A problem when the counts over ``universe`` differ by more than 1 (plus ``slack``:
    slots the plan balanced but the items could not keep)."""
    values = [counts.get(k, 0) for k in universe]
    if not values or max(values) - min(values) <= 1 + slack:
        return []
    shown = {", ".join(map(str, k)) if isinstance(k, tuple) else k: counts.get(k, 0)
             for k in universe}
    return [f"{name} not balanced: {shown}"]


def check_agreement(tally: Tally) -> list[str]:
    """The proxy-agreement axis: for each type and label, every combination of demands on
    the modalities its statements read is equal ±1."""
    problems = []
    counts = agreement_shares(tally.agree)
    for name, by_label in counts.items():
        modalities = tally.proxied.get(name, ())
        universe = [agreement_key(dict(zip(modalities, bits, strict=True)))
                    for bits in product((True, False), repeat=len(modalities))]
        for label, cell in by_label.items():
            if not isinstance(cell, dict):
                continue
            stray = sorted(set(cell) - set(universe))
            if stray:
                problems.append(f"agreement demands of {name} ({label}) name modalities its "
                                f"statements do not read: {', '.join(stray)}")
            waived = tally.waived_slots[(name, label == "true")]
            problems += _spread(f"proxy agreement of {name} ({label})", cell, universe,
                                slack=waived)
    return problems


def check_balance(tally: Tally, available: tuple[str, ...] | None = None) -> list[str]:
    """The plan's guarantees: answer sets (overall and per level), modality orders per level
    and types sharing a modality slot, each equal ±1; the proxy-agreement axis."""
    problems = check_agreement(tally)
    problems += _spread("answer sets", dict(tally.answers), ANSWER_SETS)
    for level in sorted({level for level, _ in tally.level_answers}):
        answers = {a: n for (lv, a), n in tally.level_answers.items() if lv == level}
        problems += _spread(f"level {level} answer sets", answers, ANSWER_SETS)
        groups = slot_groups(level, tuple(available or ()))
        if len(groups) > 1:
            orders = {o: n for (lv, o), n in tally.orders.items() if lv == level}
            problems += _spread(f"level {level} modality orders", orders,
                                slot_orders(list(groups)))
        for group, names in groups.items():
            types = {t: n for (lv, g, t), n in tally.slot_types.items()
                     if lv == level and g == group}
            problems += _spread(f"level {level} types in slot {group}", types, names)
    return problems


def shares(tally: Tally) -> dict[str, Any]:
    """The manifest's ``shares`` as the items give them (docs/format.md, section 5.2)."""
    orders: dict[str, dict[str, int]] = {}
    for (level, groups), n in tally.orders.items():
        if level != 3:
            orders.setdefault(LEVEL_NAMES[level], {})[" | ".join(groups)] = n
    return {
        "levels": dict(tally.levels),
        "answers": {",".join(map(str, a)) or "none": n for a, n in tally.answers.items()},
        "orders": orders,
        "types": tally.planned,
        "statements": tally.built,
    } | ({"agree": agreement_shares(tally.agree, tally.waived)}
         if tally.agree or tally.waived else {})


def check_shares(tally: Tally, manifest: dict[str, Any]) -> list[str]:
    """Each of the manifest's shares equals the one recomputed from the items."""
    stored = manifest.get("shares")
    if not isinstance(stored, dict):
        return ["manifest.json: field 'shares': expected an object"]
    return [f"manifest.json: shares.{key} {_short(stored.get(key))} differ from the items' "
            f"{_short(value)}" for key, value in shares(tally).items()
            if not same_json(stored.get(key), value)]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def check_counts(lines: int, tally: Tally | None, manifest: dict[str, Any],
                 count: int | None) -> list[str]:
    """``counts`` against the lines of items.jsonl and the config's count; statements and
    images only when every item was well formed (``tally`` given)."""
    counts = manifest.get("counts")
    if not isinstance(counts, dict):
        return ["manifest.json: field 'counts': expected an object"]
    problems = []
    if not same_json(counts.get("items"), lines):
        problems.append(f"manifest.json: counts.items {_short(counts.get('items'))} but "
                        f"items.jsonl has {lines} line(s)")
    if count is not None and count != lines:
        problems.append(f"manifest.json: config.count {count} but items.jsonl has "
                        f"{lines} line(s)")
    if tally is not None:
        for key, value in (("statements", tally.statements), ("images", tally.images)):
            if not same_json(counts.get(key), value):
                problems.append(f"manifest.json: counts.{key} {_short(counts.get(key))} but "
                                f"the items have {value}")
    return problems
