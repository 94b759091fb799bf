"""Thresholds of the table hops (CT, the every-year CT and cumulative-sum hops): where in the
gap between two neighbouring values a threshold sits never changes whom it picks."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from hopvista.display import fmt, midpoint
from hopvista.statements.selection import GAP_POSITIONS, cuts


def _values(rng: np.random.Generator, places: int) -> dict[str, Decimal]:
    """Four entities' displayed values with ``places`` decimals, some of them tied."""
    raw = rng.choice([rng.uniform(-50, 50), *rng.uniform(-5000, 5000, 5)], size=4)
    return {f"e{i}": Decimal(f"{x:.{places}f}") for i, x in enumerate(raw)}


@pytest.mark.parametrize("places", [0, 1, 3])
def test_every_placed_threshold_picks_what_the_midpoint_picks(places: int) -> None:
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(300):
        values = _values(rng, places)
        for cmp in (">", "<"):
            exact = dict(cuts(values, cmp, range(1, 4)))
            placed = cuts(values, cmp, range(1, 4), np.random.default_rng(checked))
            assert {picked for _, picked in placed} == set(exact.values())
            for threshold, picked in placed:
                passing = frozenset(e for e, v in values.items()
                                    if (v > threshold if cmp == ">" else v < threshold))
                assert passing == picked
                assert threshold not in values.values()
                assert Decimal(fmt(threshold).replace(",", "")) == threshold  # shown exactly
                checked += 1
    assert checked > 1000


def test_each_gap_offers_its_midpoint_and_a_point_near_each_side_in_random_order() -> None:
    values = {"a": Decimal("100.0"), "b": Decimal("200.0"), "c": Decimal("400.0")}
    orders = set()
    for seed in range(20):
        found = cuts(values, ">", range(1, 2), np.random.default_rng(seed))
        thresholds = [t for t, _ in found]
        assert sorted(thresholds) == [Decimal("230"), Decimal("300"), Decimal("370")]
        assert midpoint(Decimal("200.0"), Decimal("400.0")) in thresholds
        orders.add(tuple(thresholds))
    assert len(orders) == math.factorial(len(GAP_POSITIONS))  # every order shows up


def test_a_narrow_gap_offers_only_the_positions_that_fit() -> None:
    """Neighbours one display step apart leave room for few distinct points (each with one
    decimal more than the values); none equals a value."""
    values = {"a": Decimal("10.1"), "b": Decimal("10.2")}
    found = cuts(values, "<", range(1, 2), np.random.default_rng(0))
    assert {t for t, _ in found} <= {Decimal("10.12"), Decimal("10.15"), Decimal("10.18")}
    assert Decimal("10.15") in {t for t, _ in found}
    assert all(picked == frozenset({"a"}) for _, picked in found)
