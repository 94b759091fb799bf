"""What the derivation check finds (hopvista.program.derivation): a chart column that the table's
columns give by a linear relation with weights and a constant, within display rounding, in
the data shown; and nothing where the rows give no evidence of one."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from itertools import combinations, product

import pytest

from hopvista.display import shown
from hopvista.program.derivation import Relation, derivation


def _d(values: list[int] | list[str] | list[float]) -> list[Decimal]:
    return [Decimal(str(v)) for v in values]


def _clubs(seed: int, seasons: int = 5, clubs: int = 3) -> dict[str, list[Decimal]]:
    """A football panel: 38 games a season, three points a win, one a draw."""
    rnd = random.Random(seed)
    columns: dict[str, list[int]] = {k: [] for k in
                                     ("wins", "draws", "losses", "points", "goals")}
    for _ in range(clubs * seasons):
        wins = rnd.randint(5, 27)
        draws = rnd.randint(2, 38 - wins)
        columns["wins"].append(wins)
        columns["draws"].append(draws)
        columns["losses"].append(38 - wins - draws)
        columns["points"].append(3 * wins + draws)
        columns["goals"].append(rnd.randint(20, 90))
    return {k: _d(v) for k, v in columns.items()}


def _groups(clubs: int = 3, seasons: int = 5) -> list[int]:
    return [i // seasons for i in range(clubs * seasons)]


def _holds(found: Relation, target: list[Decimal], columns: dict[str, list[Decimal]],
           precision: int, places: dict[str, int]) -> bool:
    """The rule, in fractions (the plain reference for a relation that was found)."""
    tolerance = Fraction(1, 2 * 10**precision) + sum(
        (abs(b) * Fraction(1, 2 * 10 ** places[n]) for b, n in found.terms), Fraction(0))
    return all(abs(Fraction(t) - found.constant - sum(
        (b * Fraction(columns[n][i]) for b, n in found.terms), Fraction(0))) <= tolerance
        for i, t in enumerate(target))


# --- weights and constants -------------------------------------------------------------------

@pytest.mark.parametrize(("chart", "table", "formula"), [
    ("points", ["wins", "draws", "goals"], "points = 1 × draws + 3 × wins + 0"),
    ("losses", ["wins", "draws", "goals"], "losses = -1 × draws - 1 × wins + 38"),
    ("points", ["wins", "losses", "goals"], "points = -1 × losses + 2 × wins + 38"),
    ("wins", ["points", "draws"], "wins = -1/3 × draws + 1/3 × points + 0"),
    ("draws", ["wins", "losses", "points"], "draws = -1.5 × losses - 0.5 × points + 57"),
])
def test_weights_and_constants_are_found(chart: str, table: list[str], formula: str) -> None:
    for seed in range(20):
        columns = _clubs(seed)
        places = dict.fromkeys(table, 0)
        found = derivation(columns[chart], {k: columns[k] for k in table}, 0, places,
                           _groups())
        assert found is not None, seed
        assert found.formula(chart) == formula
        assert found.misfit == 0 and _holds(found, columns[chart], columns, 0, places)


def test_a_chart_the_table_does_not_determine_is_not_derived() -> None:
    """Goals have nothing to do with the results; wins are not determined by draws alone."""
    for seed in range(20):
        columns = _clubs(seed)
        table = {k: columns[k] for k in ("wins", "draws", "losses", "points")}
        assert derivation(columns["goals"], table, 0, groups=_groups()) is None
        assert derivation(columns["wins"], {"draws": columns["draws"],
                                            "goals": columns["goals"]}, 0,
                          groups=_groups()) is None


def test_a_signed_sum_is_still_found() -> None:
    rnd = random.Random(2)
    for rows in (15, 9, 3):  # three rows: too few to fit, the parameter-free sums remain
        for _ in range(20):
            columns = {k: _d([rnd.randint(-500, 500) for _ in range(rows)]) for k in "abcd"}
            target = [a - b + c for a, b, c in zip(columns["a"], columns["b"], columns["c"],
                                                   strict=True)]
            found = derivation(target, columns, 0, groups=list(range(rows)))
            assert found is not None
            assert found.formula() == "chart = 1 × a - 1 × b + 1 × c + 0"
            assert found.constant == 0 and found.misfit == 0


def test_relations_are_found_through_the_rounding_of_every_column() -> None:
    """Operating income = gross margin - expenses, each rounded at its own precision (to a
    tenth, a whole unit, a hundredth), and a unit conversion (a total in thousands)."""
    rnd = random.Random(7)
    for _ in range(30):
        gross = [Decimal(rnd.randint(10**5, 10**7)) / 1000 for _ in range(15)]
        expenses = [Decimal(rnd.randint(10**4, 10**6)) / 1000 for _ in range(15)]
        other = [Decimal(rnd.randint(0, 10**6)) / 1000 for _ in range(15)]
        income = [g - e for g, e in zip(gross, expenses, strict=True)]
        places = {"gross": 1, "expenses": 0, "other": 2}
        table = {"gross": [shown(v, 1) for v in gross], "expenses": [shown(v, 0) for v in
                                                                     expenses],
                 "other": [shown(v, 2) for v in other]}
        target = [shown(v, 2) for v in income]
        found = derivation(target, table, 2, places, _groups())
        assert found is not None and found.columns == ("expenses", "gross")
        assert found.terms == ((-1, "expenses"), (1, "gross"))
        assert _holds(found, target, table, 2, places)
        thousands = [shown(v / 1000, 3) for v in gross]
        found = derivation(thousands, table, 3, places, _groups())
        assert found is not None and found.formula() == "chart = 0.001 × gross + 0"


def test_the_rounding_bound_is_exact() -> None:
    """A chart that sits exactly on the bound (half a unit of the chart, plus |b| half units
    of each column) is derived; a thousandth of a unit beyond it in one row, it is not."""
    for seed in range(20):
        columns = _clubs(seed)
        rnd = random.Random(seed)
        bound = Decimal("0.05") + 3 * Decimal("0.5") + Decimal("0.5")  # chart at 1 decimal
        offsets = [rnd.choice((bound, -bound)) for _ in range(15)]
        offsets[0], offsets[1] = bound, -bound
        target = [3 * w + d + 10 + o for w, d, o in
                  zip(columns["wins"], columns["draws"], offsets, strict=True)]
        table = {k: columns[k] for k in ("wins", "draws", "goals")}
        found = derivation(target, table, 1, dict.fromkeys(table, 0), _groups())
        assert found is not None and found.formula() == "chart = 1 × draws + 3 × wins + 10"
        assert found.misfit == found.tolerance == bound
        target[0] += Decimal("0.001")
        found = derivation(target, table, 1, dict.fromkeys(table, 0), _groups())
        assert found is None or _holds(found, target, table, 1, dict.fromkeys(table, 0))
        assert found is None or found.terms != ((1, "draws"), (3, "wins"))


# --- no evidence, no relation ----------------------------------------------------------------

def test_random_panels_are_never_derived() -> None:
    rnd = random.Random(11)
    for n in range(400):
        precision = n % 3
        rows = 15 if n % 4 else 9
        columns = {f"c{j}": [Decimal(rnd.randint(-10**4, 10**4)).scaleb(-precision)
                             for _ in range(rows)] for j in range(6)}
        target = [Decimal(rnd.randint(-10**4, 10**4)).scaleb(-precision) for _ in range(rows)]
        assert derivation(target, columns, precision,
                          groups=[i // (rows // 3) for i in range(rows)]) is None


def test_three_rows_never_fit_a_line() -> None:
    """With a constant, a column and three rows there is one row to spare: chance fits a line
    through three points too often to be evidence. Only a parameter-free signed sum is."""
    rnd = random.Random(3)
    for _ in range(2000):
        columns = {k: _d([rnd.randint(0, 100) for _ in range(3)]) for k in ("a", "b")}
        target = _d([rnd.randint(0, 100) for _ in range(3)])
        found = derivation(target, columns, 0, groups=[0, 1, 2])
        sums = [(names, signs) for size in (1, 2) for names in combinations("ab", size)
                for signs in product((1, -1), repeat=size)
                if all(abs(t - sum((s * columns[n][i] for s, n in zip(signs, names,
                                                                       strict=True)),
                                   Decimal(0))) <= Decimal("0.5") * (size + 1)
                       for i, t in enumerate(target))]
        assert (found is None) == (not sums)
        assert found is None or (found.constant == 0 and {abs(b) for b, _ in found.terms}
                                 == {1})
    # an exact line through three points is no evidence either
    assert derivation(_d([5, 7, 11]), {"a": _d([1, 2, 4])}, 0) is None


def test_a_coincidence_of_a_few_entities_is_no_evidence() -> None:
    """Three materials whose properties all move in straight lines with temperature: 15
    rows, but six numbers each (a level and a slope per material), so five columns fit any
    such chart. Refitted without one material, the fit does not hold for it."""
    rnd = random.Random(4)
    flagged_without_groups = 0
    for _ in range(40):
        def straight(lo: int, hi: int) -> list[Decimal]:
            out = []
            for _ in range(3):
                level, slope = rnd.uniform(lo, hi), rnd.uniform(-1, 1) * (hi - lo) / 20
                out += [shown(Decimal(level + slope * t), 2) for t in range(5)]
            return out
        columns = {f"p{j}": straight(1, 100) for j in range(5)}
        target = straight(1, 10)
        assert derivation(target, columns, 2, groups=_groups()) is None
        flagged_without_groups += derivation(target, columns, 2) is not None
    assert flagged_without_groups > 0  # the entities are what tells a law from a coincidence


def test_columns_collinear_within_rounding_buy_no_tolerance() -> None:
    """Assets = liabilities + equity in the table: a huge coefficient on assets - liabilities
    - equity (rounding noise) would widen the bound |b| u until the chart fits."""
    rnd = random.Random(9)
    for _ in range(60):
        liabilities = [Decimal(rnd.randint(10**4, 10**6)) / 100 for _ in range(15)]
        equity = [Decimal(rnd.randint(10**4, 10**6)) / 100 for _ in range(15)]
        table = {"lt": [shown(v, 1) for v in liabilities], "seq": [shown(v, 1) for v in equity],
                 "at": [shown(a + b, 1) for a, b in zip(liabilities, equity, strict=True)],
                 "cash": [Decimal(rnd.randint(0, 10**4)) / 10 for _ in range(15)]}
        target = [Decimal(rnd.randint(0, 10**4)) / 10 for _ in range(15)]
        assert derivation(target, table, 1, groups=_groups()) is None


def test_a_flat_chart_is_not_derived() -> None:
    columns = {"a": _d(list(range(15))), "b": _d([i % 4 for i in range(15)])}
    assert derivation(_d([7] * 15), columns, 0, groups=_groups()) is None
    # nor one that is flat within rounding, by a relation that explains none of it
    assert derivation(_d([7, 8] * 7 + [7]), columns, 0, groups=_groups()) is None


# --- results ---------------------------------------------------------------------------------

def test_results_are_deterministic_and_printable() -> None:
    columns = _clubs(1)
    table = {k: columns[k] for k in ("goals", "wins", "draws")}
    reordered = {k: table[k] for k in reversed(list(table))}
    first = derivation(columns["losses"], table, 0, groups=_groups())
    assert first is not None
    assert derivation(columns["losses"], reordered, 0, groups=_groups()) == first
    assert derivation(columns["losses"], table, 0, dict.fromkeys(table, 0), _groups()) == first
    assert str(first) == "chart = -1 × draws - 1 × wins + 38"
    assert first.columns == ("draws", "wins") and first.tolerance == Decimal("1.5")
    odd = Relation(((Fraction(1, 7), "a"), (Fraction(-5, 2), "b")), Fraction(-1, 3),
                   Fraction(0), Fraction(1))
    assert odd.formula("x") == "x = 1/7 × a - 2.5 × b - 1/3"
    assert Relation(((Fraction(2**-40), "a"),), Fraction(0), Fraction(0),
                    Fraction(1)).formula() == "chart = 9.09495e-13 × a + 0"


def test_the_old_call_still_works() -> None:
    """Without per-column precisions every column is taken at the chart's; without groups
    each row is its own."""
    columns = _clubs(3)
    found = derivation(columns["points"], {k: columns[k] for k in ("wins", "draws")}, 0)
    assert found is not None and found.formula() == "chart = 1 × draws + 3 × wins + 0"


def test_the_verifier_names_the_relation() -> None:
    """``gen verify``'s chart-needed check: the relation, as a formula, from the rows shown
    (each table column at its own precision, the chart's entities as the groups)."""
    from hopvista.verify.checks import check_chart_needed

    columns = _clubs(5)
    entities, years = ["a", "b", "c"], [2019, 2020, 2021, 2022, 2023]

    def item(chart: str, table: list[str]) -> dict[str, object]:
        def cell(key: str, e: int, y: int) -> str:
            return str(columns[key][e * 5 + y])
        return {"inputs": {
            "chart": {"column": {"key": chart, "precision": 0}, "years": years,
                      "series": [{"entity": name, "values": [cell(chart, e, y)
                                                             for y in range(5)]}
                                 for e, name in enumerate(entities)]},
            "table": {"columns": [{"key": k, "precision": 0} for k in table],
                      "rows": [{"entity": name, "year": year,
                                "values": {k: cell(k, e, y) for k in table}}
                               for e, name in enumerate(entities)
                               for y, year in enumerate(years)]},
            "text": []}}

    assert check_chart_needed(item("losses", ["wins", "draws", "goals"]), []) == [
        "chart column 'losses' follows from the table in the data shown: "
        "losses = -1 × draws - 1 × wins + 38 (within rounding)"]
    assert check_chart_needed(item("goals", ["wins", "draws", "losses"]), []) == []
