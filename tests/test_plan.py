from __future__ import annotations

from collections import Counter

import pytest

from hopvista.domain import resolve_pack
from hopvista.generation.plan import (
    ANSWER_SETS,
    balanced_split,
    make_plan,
    parse_levels,
    plan_shares,
)
from hopvista.model.balance import slot_groups, slot_orders

TYPES = resolve_pack("financial").types
"""The financial domain's types, in its order."""


def _spread(counter: Counter, universe: list) -> int:
    values = [counter.get(k, 0) for k in universe]
    return max(values) - min(values)


@pytest.mark.parametrize("count,levels", [(160, (1, 2, 3)), (48, (3,)), (37, (1, 2)),
                                          (7, (1, 2, 3)), (101, (2,))])
def test_plan_balances_every_axis(count: int, levels: tuple[int, ...]) -> None:
    plan = make_plan(7, count, levels, TYPES)
    assert [e.index for e in plan] == list(range(count))
    assert _spread(Counter(e.level for e in plan), list(levels)) <= 1
    assert _spread(Counter(e.answer for e in plan), list(ANSWER_SETS)) <= 1
    for level in levels:
        at = [e for e in plan if e.level == level]
        assert _spread(Counter(e.answer for e in at), list(ANSWER_SETS)) <= 1
        groups = slot_groups(level, TYPES)
        if len(groups) > 1:
            assert _spread(Counter(e.order for e in at), slot_orders(list(groups))) <= 1
        for group, names in groups.items():
            for subset in (None, True, False):
                types = Counter(e.types[s] for e in at for s in range(3)
                                if e.order[s] == group
                                and (subset is None or e.truth(s) is subset))
                assert _spread(types, names) <= 1, (group, subset, types)
        for e in at:
            for s, name in enumerate(e.types):
                assert name in groups[e.order[s]]


def test_160_items_give_each_answer_set_20_times() -> None:
    counts = Counter(e.answer for e in make_plan(0, 160, (1, 2, 3), TYPES))
    assert sorted(counts.values()) == [20] * 8


def test_plan_is_a_function_of_seed_and_count() -> None:
    assert make_plan(3, 50, (1, 2, 3), TYPES) == make_plan(3, 50, (1, 2, 3), TYPES)
    assert make_plan(3, 50, (1, 2, 3), TYPES) != make_plan(4, 50, (1, 2, 3), TYPES)


def test_axes_are_not_aligned() -> None:
    """No axis predicts another: each answer set meets several levels and orders."""
    plan = make_plan(1, 480, (1, 2, 3), TYPES)
    for answer in ANSWER_SETS:
        with_answer = [e for e in plan if e.answer == answer]
        assert len({e.level for e in with_answer}) == 3
        assert len({e.order for e in with_answer if e.level == 1}) >= 4


def test_balanced_split_union_is_balanced() -> None:
    from hopvista.rng import derive
    parts = balanced_split(list("abcd"), [3, 3, 3], derive(0, "t"))
    assert [len(p) for p in parts] == [3, 3, 3]
    assert _spread(Counter(x for p in parts for x in p), list("abcd")) <= 1


@pytest.mark.parametrize("text,levels", [("3", (3,)), ("1-3", (1, 2, 3)), ("1,3", (1, 3)),
                                         ("2-3", (2, 3))])
def test_parse_levels(text: str, levels: tuple[int, ...]) -> None:
    assert parse_levels(text) == levels


@pytest.mark.parametrize("text", ["4", "0", "3-1", "a", "1-4", ""])
def test_parse_levels_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_levels(text)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("count,levels", [(160, (1, 2, 3)), (200, (1, 2, 3)), (37, (1, 2))])
def test_true_and_false_are_balanced_per_type(seed: int, count: int,
                                              levels: tuple[int, ...]) -> None:
    shares = plan_shares(make_plan(seed, count, levels, TYPES))["types"]
    for name, split in shares.items():
        assert abs(split["true"] - split["false"]) <= 2, (name, split)


def test_a_domain_without_text_balances_two_modality_slots() -> None:
    """Without documents, easy items have two modality groups (table, chart): the six
    three-slot orders using both are balanced, and medium items fill all slots from one."""
    types = tuple(t for t in TYPES if "FC" not in t)
    plan = make_plan(5, 120, (1, 2), types)
    easy = [e for e in plan if e.level == 1]
    orders = slot_orders(["table", "chart"])
    assert len(orders) == 6 and all(set(o) == {"table", "chart"} for o in orders)
    assert _spread(Counter(e.order for e in easy), orders) <= 1
    assert {e.order for e in plan if e.level == 2} == {("table+chart",) * 3}
    assert all("FC" not in t for e in plan for t in e.types)


def test_a_level_the_domain_cannot_make_is_refused() -> None:
    from hopvista.errors import UserError

    with pytest.raises(UserError, match="makes no hard"):
        make_plan(5, 12, (3,), tuple(t for t in TYPES if "FC" not in t))
