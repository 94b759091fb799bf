"""The chart needed against products and ratios of table columns (hopvista.program.ratios)."""

from __future__ import annotations

import copy
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np

from hopvista.program.ratios import product_relation
from hopvista.verify.checks import check_chart_needed

GROUPS = [i // 5 for i in range(15)]


def shown(value: Fraction | Decimal | int, places: int) -> Decimal:
    return Decimal(float(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def brewery(seed: int = 1) -> tuple[list[Decimal], dict[str, list[Decimal]]]:
    """Output (hl), Export Share (%) shown to one decimal, and Exports = Share x Output / 100
    rounded, over 15 rows; Employees unrelated."""
    rng = np.random.default_rng(seed)
    output = [Decimal(int(v)) for v in rng.integers(5_000, 60_000, 15)]
    share = [Decimal(int(v)) / 10 for v in rng.integers(50, 400, 15)]
    exports = [shown(o * s / 100, 0) for o, s in zip(output, share, strict=True)]
    return exports, {"output": output, "share": share,
                     "employees": [Decimal(int(v)) for v in rng.integers(20, 300, 15)]}


PLACES = {"output": 0, "share": 1, "employees": 0, "exports": 0}


def test_a_share_and_its_total_give_the_part_and_each_other() -> None:
    exports, columns = brewery()
    found = product_relation(exports, columns, 0, PLACES, GROUPS)
    assert found is not None and found.terms == (("output", 1), ("share", 1))
    assert found.low <= Fraction(1, 100) <= found.high
    ratio = product_relation(columns["share"], {"output": columns["output"],
                                                "exports": exports}, 1, PLACES, GROUPS)
    assert ratio is not None and ratio.terms == (("exports", 1), ("output", -1))
    assert "÷ output" in ratio.formula("share")


def test_proportional_columns_and_nothing_else() -> None:
    _, columns = brewery()
    doubled = [2 * v for v in columns["output"]]
    found = product_relation(doubled, columns, 0, PLACES, GROUPS)
    assert found is not None and found.terms == (("output", 1),)
    rng = np.random.default_rng(7)
    for _ in range(200):
        chart = [Decimal(int(v)) for v in rng.integers(100, 10_000, 15)]
        assert product_relation(chart, columns, 0, PLACES, GROUPS) is None


def test_rows_through_zero_or_of_both_signs_say_nothing() -> None:
    exports, columns = brewery()
    signed = dict(columns, share=[-v if i % 2 else v for i, v in enumerate(columns["share"])])
    assert product_relation(exports, signed, 0, PLACES, GROUPS) is None
    near_zero = dict(columns, output=[Decimal(0)] + columns["output"][1:])
    found = product_relation(exports, near_zero, 0, PLACES, GROUPS)
    assert found is None or "output" not in found.columns
    assert product_relation(exports[:5], {k: v[:5] for k, v in columns.items()}, 0,
                            PLACES, GROUPS[:5]) is None  # five rows are no evidence


def test_a_rounding_off_by_more_than_display_is_no_relation() -> None:
    exports, columns = brewery()
    off = list(exports)
    off[4] = shown(off[4] * Decimal("1.1"), 0)  # a tenth more than any rounding allows
    assert product_relation(off, columns, 0, PLACES, GROUPS) is None


def test_the_verifier_names_a_ratio_the_table_gives() -> None:
    exports, columns = brewery()
    entities = ["a", "b", "c"]
    years = [2019, 2020, 2021, 2022, 2023]
    rows = [{"entity": e, "year": y, "values": {k: str(columns[k][5 * i + j])
                                                  for k in columns}}
            for i, e in enumerate(entities) for j, y in enumerate(years)]
    item = {"inputs": {
        "table": {"columns": [{"key": k, "precision": PLACES[k]} for k in columns],
                  "rows": rows},
        "chart": {"column": {"key": "exports", "precision": 0}, "years": years,
                  "series": [{"entity": e, "values": [str(v) for v in exports[5 * i:5 * i + 5]]}
                             for i, e in enumerate(entities)]},
        "text": []}}
    problems = check_chart_needed(item, [])
    assert any("exports" in p and "× output × share" in p for p in problems), problems
    unrelated = copy.deepcopy(item)
    unrelated["inputs"]["table"]["columns"] = [{"key": "employees", "precision": 0},
                                               {"key": "share", "precision": 1}]
    assert check_chart_needed(unrelated, []) == []
