"""The shortcuts that make generation and the build's audit cheaper give what the plain way
gives: the derivation check, formatted values, the instance screen, the audit's memo."""

from __future__ import annotations

import copy
import json
import random
from decimal import Decimal
from itertools import combinations, product
from pathlib import Path
from typing import Any

import pytest

from hopvista.audit.data import AuditItem, Margins, with_folds
from hopvista.audit.solvers import solve_no_chart, solve_no_table, solve_no_text
from hopvista.derivation import derivation
from hopvista.display import fmt, shown
from hopvista.domain import DomainPack
from hopvista.instance import sample_instance
from hopvista.item import DIVERGENCE, _hardest_first, _screened, demand_phase
from hopvista.plan import make_plan
from hopvista.proxy import ProxyModels, ProxyReader
from hopvista.rng import derive
from hopvista.statements.registry import STATEMENT_TYPES
from hopvista.statements.types import make_statement
from hopvista.world import World

from .conftest import build_dataset, read_items


def _plain_derivation(target: list[Decimal], columns: dict[str, list[Decimal]],
                      precision: int) -> tuple[tuple[int, str], ...] | None:
    """Every signed combination of up to three columns in exact decimals, smallest first."""
    unit = Decimal(1).scaleb(-precision) / 2
    for size in range(1, 4):
        tolerance = unit * (size + 1)
        for names in combinations(sorted(columns), size):
            for signs in product((1, -1), repeat=size):
                if all(abs(t - sum((s * columns[n][i] for s, n in zip(signs, names,
                                                                        strict=True)),
                                   Decimal(0))) <= tolerance for i, t in enumerate(target)):
                    return tuple(zip(signs, names, strict=True))
    return None


def test_the_derivation_check_finds_what_exact_decimals_find() -> None:
    """Random columns, and targets built from them that sit exactly on, just inside and
    just outside the rounding tolerance (where a float screen would go wrong first)."""
    rnd = random.Random(13)
    found = near = 0
    for _ in range(3000):
        precision = rnd.choice([0, 1, 2, 3])
        quantum = Decimal(1).scaleb(-precision)
        width, count = rnd.randint(1, 12), rnd.randint(0, 6)
        columns = {f"c{j}": [Decimal(rnd.randint(-10**7, 10**7)) * quantum
                             for _ in range(width)] for j in range(count)}
        kind = rnd.choice(["exact", "edge", "outside", "random"]) if columns else "random"
        if kind == "random":
            target = [Decimal(rnd.randint(-10**7, 10**7)) * quantum for _ in range(width)]
        else:
            names = rnd.sample(sorted(columns), min(count, rnd.randint(1, 3)))
            signs = [rnd.choice((1, -1)) for _ in names]
            edge = quantum / 2 * (len(names) + 1)
            offsets = [Decimal(0) if kind == "exact" else rnd.choice((edge, -edge))
                       for _ in range(width)]
            if kind == "outside":
                k = rnd.randrange(width)
                offsets[k] += quantum / 1000 * (1 if offsets[k] > 0 else -1)
            target = [sum((s * columns[n][i] for s, n in zip(signs, names, strict=True)),
                          Decimal(0)) + offsets[i] for i in range(width)]
        expected = _plain_derivation(target, columns, precision)
        assert derivation(target, columns, precision) == expected, (target, columns, precision)
        found += expected is not None
        near += kind == "outside"
    assert found > 900 and near > 500  # hits, and misses by a hair, were both tried


def test_misaligned_series_are_checked_as_the_exact_decimals_check_them() -> None:
    """A foreign item may hold a column longer or shorter than the chart series: the check
    then behaves exactly as the plain decimal one (an answer, or the same error)."""
    rnd = random.Random(5)
    for _ in range(400):
        width = rnd.randint(1, 5)
        columns = {f"c{j}": [Decimal(rnd.randint(-9, 9)) for _ in range(width + rnd.choice(
            (-1, 0, 1)))] for j in range(rnd.randint(1, 3))}
        target = [Decimal(rnd.randint(-18, 18)) for _ in range(width)]
        try:
            expected: object = _plain_derivation(target, columns, 0)
        except IndexError:
            expected = IndexError
        if expected is IndexError:
            with pytest.raises(IndexError):
                derivation(target, columns, 0)
        else:
            assert derivation(target, columns, 0) == expected


def test_a_value_formats_at_a_precision_whatever_decimals_it_carries() -> None:
    rnd = random.Random(3)
    for _ in range(2000):
        precision = rnd.choice([0, 1, 2, 3])
        value = Decimal(rnd.randint(-10**9, 10**9)).scaleb(-rnd.randint(0, 5))
        for twin in (value, value.quantize(Decimal("1E-6")), -value, value.normalize()):
            plain = shown(twin, precision)
            text = f"{abs(plain):,.{precision}f}"
            assert fmt(twin, precision) == (f"-{text}" if plain < 0 else text)
    assert fmt(Decimal("-0.004"), 2) == "0.00"
    assert fmt(Decimal("1.50")) == "1.50" and fmt(Decimal("1.5")) == "1.5"  # no precision


def test_the_screen_gives_up_only_instances_the_ordered_making_gives_up(
        pack: DomainPack, world: World) -> None:
    """Every Hard and Medium plan entry with a screened slot, many instance draws each: when
    the screen finds no statement for a slot, making the statements in order fails too."""
    plan = make_plan(5, 120, (2, 3), pack.types)
    models = ProxyModels.of(world)
    screened_entries = [e for e in plan if _screened(e, _hardest_first(e))]
    assert len(screened_entries) > 20
    given_up = 0
    for entry in screened_entries[:30]:
        order = _hardest_first(entry)
        rng = derive(5, "test-screen", entry.index)
        for attempt in range(1, 13):
            instance = sample_instance(world, pack, rng, trend_pair=True, shared=True,
                                       divergent=DIVERGENCE)
            if instance is None:
                continue
            phase = demand_phase(attempt)
            assert phase is not None

            def reader(instance: Any = instance, phase: Any = phase) -> ProxyReader:
                return ProxyReader(models, {"inputs": instance.to_inputs(), "entities": [
                    {"id": e.id, "name": e.name} for e in instance.entities]},
                    relaxed=phase.relaxed, predictors=phase.predictors)
            wants = {s: phase.wants(entry, s, attempt) for s in range(3)}
            screen = reader()
            missing = [s for s in _screened(entry, order)
                       if make_statement(entry.types[s], instance, pack,
                                         derive(5, "screen", entry.index, attempt), entry.truth(s),
                                         set(), wants=wants[s], reader=screen) is None]
            if not missing:
                continue
            given_up += 1
            used: set[str] = set()
            ordered = reader()
            made = [make_statement(entry.types[s], instance, pack, rng, entry.truth(s), used,
                                   wants=wants[s], reader=ordered) for s in order]
            assert None in made, (entry.types, attempt)
    assert given_up > 50


def test_screened_slots_read_more_periods_than_every_slot_before_them(
        pack: DomainPack) -> None:
    """A sweep of the plan: the screen holds the slots it should, never the first."""
    for entry in make_plan(5, 240, (1, 2, 3), pack.types):
        order = _hardest_first(entry)
        periods = [STATEMENT_TYPES.get(entry.types[s]).min_periods for s in order]
        expected = [s for k, s in enumerate(order) if k and periods[k] > max(periods[:k])]
        assert _screened(entry, order) == expected
        assert order[0] not in _screened(entry, order)


@pytest.mark.slow
def test_the_audits_solvers_leave_the_items_as_they_were_and_answer_alike_twice(
        tmp_path: Path) -> None:
    """The solvers read each item's columns once (a memo on the audit item) and hide a
    modality in a new item that shares the rest: answering twice gives the same answers,
    and no item is changed."""
    out = tmp_path / "ds"
    build_dataset(out, "-n", "24", "--no-images", "--seed", "4")
    dicts = read_items(out)
    before = copy.deepcopy(dicts)
    items = with_folds(dicts, 3, 0)
    margins = Margins(0.03, 0.03)
    for solve in (solve_no_chart, solve_no_table):
        first = solve(items, margins)
        assert solve(items, margins) == first
        fresh = [AuditItem(i.data, i.fold) for i in items]  # no memo
        assert solve(fresh, margins) == first
    assert solve_no_text(items, margins) == solve_no_text(items, margins)
    assert json.dumps(dicts, sort_keys=True) == json.dumps(before, sort_keys=True)
