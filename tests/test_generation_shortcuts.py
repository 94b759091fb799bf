"""The shortcuts that make generation and the build's audit cheaper give what the plain way
gives: the derivation check (its float screen), formatted values, the instance screen, the
audit's memo. What the derivation check finds is tested in tests/test_derivation.py."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from hopvista.audit.data import AuditItem, Margins, with_folds
from hopvista.audit.defences import ProxyDefences, demand_phase
from hopvista.audit.proxy import ProxyModels, ProxyReader
from hopvista.audit.solvers import solve_no_chart, solve_no_table, solve_no_text
from hopvista.display import fmt, shown
from hopvista.domain import DomainPack
from hopvista.generation.instance import sample_instance
from hopvista.generation.item import _hardest_first, _screened
from hopvista.generation.plan import make_plan
from hopvista.program.derivation import Relation, _search, derivation
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.rng import derive
from hopvista.statements.types import make_statement
from hopvista.world import World

from .conftest import build_dataset, read_items


def _plain_holds(found: Relation, target: list[Decimal], columns: dict[str, list[Decimal]],
                 precision: int, places: dict[str, int]) -> bool:
    """The rule itself, in fractions: every row's residual within half a display unit of
    the chart plus |b| times half a display unit of each column used."""
    half = Fraction(1, 2)
    tolerance = half / 10**precision + sum(
        (abs(b) * half / 10 ** places[name] for b, name in found.terms), Fraction(0))
    return all(abs(Fraction(t) - found.constant - sum(
        (b * Fraction(columns[name][i]) for b, name in found.terms), Fraction(0)))
        <= tolerance for i, t in enumerate(target))


def _plain_derivation(target: list[Decimal], columns: dict[str, list[Decimal]],
                      precision: int, places: dict[str, int], groups: list[int]
                      ) -> Relation | None:
    """The derivation check the plain way: every candidate of every subset checked in exact
    arithmetic, no float screen."""
    return _search(target, columns, precision, places, groups, screen=False)


def _case(rnd: random.Random) -> tuple[list[Decimal], dict[str, list[Decimal]], int,
                                       dict[str, int], list[int], str]:
    """Random panels (3 entities of 1-5 periods, or 4 rows), with charts that are random, or
    a linear relation of some columns (weights, a constant) rounded as displayed, or sitting
    exactly on the rounding bound, or a hair outside it."""
    periods = rnd.choice([1, 3, 5, 5])
    rows = rnd.choice([3 * periods, 4]) if periods == 1 else 3 * periods
    groups = [i // periods for i in range(rows)]
    places = {f"c{j}": rnd.choice([0, 1, 2]) for j in range(rnd.randint(1, 5))}
    precision = rnd.choice([0, 1, 2])
    columns = {k: [Decimal(rnd.randint(-3000, 3000)).scaleb(-p) for _ in range(rows)]
               for k, p in places.items()}
    kind = rnd.choice(["random", "relation", "edge", "outside"])
    quantum = Decimal(1).scaleb(-precision)
    if kind == "random":
        target = [Decimal(rnd.randint(-3000, 3000)) * quantum for _ in range(rows)]
        return target, columns, precision, places, groups, kind
    names = rnd.sample(sorted(columns), rnd.randint(1, min(3, len(columns))))
    weights = {n: Fraction(rnd.choice([1, -1, 2, 3, -3])) * rnd.choice(
        [1, 1, Fraction(1, 2), Fraction(1, 3)]) for n in names}
    constant = Fraction(rnd.randint(-50, 50))
    exact = [constant + sum((w * Fraction(columns[n][i]) for n, w in weights.items()),
                            Fraction(0)) for i in range(rows)]
    if kind == "relation":
        target = [shown(Decimal(e.numerator) / Decimal(e.denominator), precision)
                  for e in exact]
        return target, columns, precision, places, groups, kind
    # on the bound: the chart's quantum divides it when every weight's denominator is 1
    weights = {n: Fraction(round(w)) or Fraction(1) for n, w in weights.items()}
    exact = [constant + sum((w * Fraction(columns[n][i]) for n, w in weights.items()),
                            Fraction(0)) for i in range(rows)]
    precision = max(places[n] for n in names) + 1
    bound = Fraction(1, 2 * 10**precision) + sum(
        (abs(w) * Fraction(1, 2 * 10 ** places[n]) for n, w in weights.items()), Fraction(0))
    offsets = [rnd.choice((bound, -bound)) for _ in range(rows)]
    if kind == "outside":
        k = rnd.randrange(rows)
        offsets[k] += Fraction(1, 10 ** (precision + 3)) * (1 if offsets[k] > 0 else -1)
    target = [Decimal((e + o).numerator) / Decimal((e + o).denominator)
              for e, o in zip(exact, offsets, strict=True)]
    return target, columns, precision, places, groups, kind


def test_the_derivation_check_finds_what_the_plain_exact_check_finds() -> None:
    """The float screen only saves work: on random panels, relations rounded as displayed,
    charts exactly on the rounding bound and a hair outside it (where a float screen would go
    wrong first), the check gives what checking every candidate exactly gives; and what it
    gives holds by the rule, in fractions."""
    rnd = random.Random(13)
    kinds: Counter[tuple[str, bool]] = Counter()
    for _ in range(700):
        target, columns, precision, places, groups, kind = _case(rnd)
        found = derivation(target, columns, precision, places, groups)
        assert found == _plain_derivation(target, columns, precision, places, groups), (
            target, columns, precision, places)
        if found is not None:
            assert _plain_holds(found, target, columns, precision, places)
            assert found.formula().startswith("chart = ")
        kinds[(kind, found is not None)] += 1
    # relations and charts on the bound are found, random charts are not, and each kind
    # was tried often enough to mean something
    assert kinds[("relation", True)] > 60 and kinds[("edge", True)] > 60
    assert kinds[("random", True)] == 0 and kinds[("random", False)] > 100
    assert kinds[("outside", True)] + kinds[("outside", False)] > 100


def test_series_of_another_length_are_an_error() -> None:
    """A foreign item may hold a column longer or shorter than the chart series: the check
    refuses it (the verifier reports it) instead of reading a misaligned relation."""
    rnd = random.Random(5)
    for _ in range(200):
        width = rnd.randint(1, 6)
        columns = {f"c{j}": [Decimal(rnd.randint(-9, 9)) for _ in range(width)]
                   for j in range(rnd.randint(1, 3))}
        columns["c0"] = columns["c0"] + [Decimal(1)] if rnd.random() < 0.5 else \
            columns["c0"][:-1]
        target = [Decimal(rnd.randint(-18, 18)) for _ in range(width)]
        with pytest.raises(ValueError, match="values for"):
            derivation(target, columns, 0)
    with pytest.raises(ValueError, match="groups"):
        derivation([Decimal(1)] * 5, {"a": [Decimal(2)] * 5}, 0, groups=[0, 1])


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
    defences = ProxyDefences(models)
    screened_entries = [e for e in plan if _screened(e, _hardest_first(e))]
    assert len(screened_entries) > 20
    given_up = 0
    for entry in screened_entries[:30]:
        order = _hardest_first(entry)
        rng = derive(5, "test-screen", entry.index)
        for attempt in range(1, 13):
            instance = sample_instance(world, pack, rng, trend_pair=True, shared=True,
                                       divergence=defences.divergence(entry))
            if instance is None:
                continue
            phase = demand_phase(attempt)
            assert phase is not None

            def reader(instance: Any = instance, phase: Any = phase) -> ProxyReader:
                return ProxyReader(models, {"inputs": instance.to_inputs(), "entities": [
                    {"id": e.id, "name": e.name} for e in instance.entities]},
                    relaxed=phase.relaxed, predictors=phase.predictors)
            wants = {s: phase.wants(entry, s, attempt) for s in entry.slots}
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
        periods = [STATEMENT_TYPES.get(entry.types[s]).periods_read for s in order]
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
