"""Numbers a text states, matched as numbers (hopvista.program.stated_numbers): the one reading
of
written numbers behind the chart-needed check of the generator and of ``gen verify``, and
behind a panel's stated columns."""

from __future__ import annotations

from decimal import Decimal

import pytest

from hopvista.program.stated_numbers import number_tokens, stated_values, states
from hopvista.verify.checks import check_chart_needed


def _stated(text: str, values: list[str], precision: int) -> list[str]:
    return [str(v) for v in stated_values(text, [Decimal(v) for v in values], precision)]


@pytest.mark.parametrize(("text", "value", "precision", "expected"), [
    # never inside another number
    ("Revenue rose in 2021.", "21", 0, False),
    ("Revenue was 1,021.", "21", 0, False),
    ("Revenue was 1,021.", "1021", 0, True),
    ("Revenue was 1021.", "1021", 0, True),
    ("It reached 21.5 units.", "21", 0, False),
    ("It reached 21 units.", "21", 0, True),
    ("It reached 121 units.", "21", 0, False),
    ("Serial 21-0421-7.", "421", 0, False),  # "0421": a number of its own, 421
    # rounding: the text's number is the value rounded, or the same at the chart's precision
    ("Margins of 12.3 were seen.", "12.34", 2, True),
    ("Margins of 12 were seen.", "12.34", 2, True),
    ("Margins of 12.340 were seen.", "12.34", 2, True),
    ("Margins of 12.4 were seen.", "12.34", 2, False),
    ("Margins of 12.3 were seen.", "12.25", 2, True),  # half up
    ("Margins of 12.2 were seen.", "12.25", 2, False),
    ("Margins of 12.5 were seen.", "12.46", 0, True),  # a true value, rounded by the text
    ("Margins of 12.5 were seen.", "12", 0, False),  # would show as 13
    # too coarse: one significant digit states nothing
    ("It has 3 lines and 9 districts.", "3", 0, False),
    ("It has 3 lines.", "3.2", 1, False),
    ("A share of 0.5 was sold.", "0.5", 1, False),
    ("A share of 0.50 was sold.", "0.5", 2, True),
    ("It has 300 beds.", "300", 0, True),  # three digits written
    ("It has 300 beds.", "304", 0, False),
    # years: only a value exactly equal
    ("Founded in 1998.", "1998", 0, True),
    ("Founded in 1998.", "1998.2", 1, False),
    ("Founded in 1998.", "1998.0", 1, True),
    ("Sales of 1,998 units.", "1998.2", 1, True),  # grouped: not a year
    ("Founded in 1798.", "1798.2", 1, True),  # before 1800: a number
    ("The 2021/22 season.", "22", 0, False),
    ("The 2019-20 season.", "20", 0, False),
    # signs are ignored, currency and units do not matter
    ("A loss of 12.3 was booked.", "-12.3", 1, True),
    ("A change of -12.3 was booked.", "12.3", 1, True),
    ("A change of \u221212.3 was booked.", "-12.3", 1, True),
    ("It cost $1.2 in all.", "1.2", 1, True),
    ("Runs of 12km each.", "12", 0, True),
    # scale words and percentages: either reading
    ("Sales were 1.2 million.", "1200000", 0, True),
    ("Sales were 1.2 million.", "1240000", 0, True),
    ("Sales were 1.2 million.", "1260000", 0, False),
    ("Sales were 1.2 million.", "1.2", 1, True),
    ("Sales were $1.2bn.", "1200000000", 0, True),
    ("Sales were 12k.", "12000", 0, True),
    ("A margin of 12.5%.", "12.5", 1, True),
    ("A margin of 12.5%.", "0.125", 3, True),
    ("A margin of 12.5 percent.", "0.125", 3, True),
    ("A margin of 12.5%.", "0.126", 3, False),
    # names, ordinals, decades, lists, dates
    ("An A380 and a 737.", "380", 0, False),
    ("An A380 and a 737.", "737", 0, True),
    ("Results for Q3 and FY2023.", "2023", 0, False),
    ("The 21st year.", "21", 0, False),
    ("In the 1990s.", "1990", 0, False),
    ("Scores 12,13 and 14.", "13", 0, True),
    ("Version 1.2.3 shipped.", "1.2", 1, False),
    ("Shares of .75 each.", "0.75", 2, True),
])
def test_numbers_are_matched_as_numbers(text: str, value: str, precision: int,
                                        expected: bool) -> None:
    assert states(text, Decimal(value), precision) is expected
    assert bool(_stated(text, [value], precision)) is expected


def test_stated_values_are_the_values_a_text_writes_in_their_order() -> None:
    text = "In 2021 revenue grew to 1,234.5 from 1,021; margins held at 12."
    assert _stated(text, ["12.2", "21", "1234.5", "1021", "12.2", "2021", "7"], 1) == [
        "12.2", "1234.5", "1021", "2021"]
    assert _stated("No numbers here.", ["12"], 0) == []
    tokens = number_tokens(text)
    assert [str(t.value) for t in tokens] == ["2021", "1234.5", "1021", "12"]
    assert [t.year for t in tokens] == [True, False, False, False]
    assert text[tokens[1].start:tokens[1].end] == "1,234.5"


def _item(text: str, values: list[str]) -> dict[str, object]:
    return {"inputs": {
        "chart": {"column": {"key": "kappa", "precision": 1}, "years": [2020, 2021],
                  "series": [{"entity": "a", "values": values[:2]},
                             {"entity": "b", "values": values[2:]}]},
        "table": {"columns": [{"key": "rho", "precision": 1}],
                  "rows": [{"entity": e, "year": y, "values": {"rho": v}}
                           for e, vs in (("a", ("0.4", "0.7")), ("b", ("0.9", "0.2")))
                           for y, v in zip((2020, 2021), vs, strict=True)]},
        "text": [{"chunk": "a-1", "text": text}]}}


def test_the_verifier_reads_chart_values_in_text_as_numbers() -> None:
    item = _item("In 2021 the firm had 21.5 staff and a ratio of 3.4.",
                 ["21.0", "3.4", "12.3", "7.0"])
    assert check_chart_needed(item, []) == ["text chunk a-1 states chart values ['3.4']"]
    item = _item("In 2021 the firm had 12 staff.", ["21.0", "3.5", "12.3", "7.0"])
    assert check_chart_needed(item, []) == ["text chunk a-1 states chart values ['12.3']"]
    assert check_chart_needed(_item("Founded in 2021.", ["21.0", "3.5", "12.3", "7.0"]),
                              []) == []


def test_a_number_after_a_lettered_hyphen_is_a_name() -> None:
    assert stated_values("Its space group is F-43m.", [Decimal("42.92")], 2) == []
    assert stated_values("The B-52 and COVID-19.", [Decimal(52), Decimal(19)], 0) == []
    assert stated_values("It rose by 43 in 2020-21.", [Decimal("42.92")], 2) == [
        Decimal("42.92")]
