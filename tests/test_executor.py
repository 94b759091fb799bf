"""The independent executor on hand-made inputs: presuppositions fail loudly."""

from __future__ import annotations

from typing import Any

import pytest

from hopvista.program.executor import Context, Undecidable, decide, drop, hops, mentions

YEARS = [2019, 2020, 2021, 2022, 2023]


def _item(table: dict[str, list[str]], chart: dict[str, list[str]],
          texts: dict[str, str] | None = None) -> dict[str, Any]:
    ids = list(chart)
    texts = texts or {e: f"Text of {e}." for e in ids}
    return {
        "entities": [{"id": e, "name": e} for e in ids],
        "inputs": {
            "text": [{"entity": e, "chunk": f"{e}-0", "section": "business", "period": 2023,
                      "text": texts[e]} for e in ids],
            "table": {"columns": [{"key": "sale"}], "rows": [
                {"entity": e, "year": y, "values": {"sale": table[e][i]}}
                for e in ids for i, y in enumerate(YEARS)]},
            "chart": {"column": {"key": "ni"}, "years": YEARS,
                      "series": [{"entity": e, "values": chart[e]} for e in ids]},
        },
    }


TABLE = {"A": ["1,000.0", "1,100.0", "1,200.0", "1,300.0", "1,400.0"],
         "B": ["500.0", "450.0", "700.0", "650.0", "900.0"],
         "C": ["-20.5", "10.0", "30.0", "40.0", "50.0"]}
CHART = {"A": ["10.0", "20.0", "30.0", "40.0", "50.0"],
         "B": ["60.0", "50.0", "70.0", "35.0", "80.0"],
         "C": ["5.0", "15.0", "25.0", "35.0", "45.0"]}


@pytest.fixture()
def ctx() -> Context:
    return Context(_item(TABLE, CHART), 0.03, 0.03)


def test_threshold_and_arithmetic(ctx: Context) -> None:
    ct = {"select": {"op": "ct", "column": "sale", "year": 2019, "cmp": ">",
                     "threshold": "750"}, "claim": {"entity": "A"}}
    assert decide(ct, ctx) is True
    ct["claim"] = {"entity": "B"}
    assert decide(ct, ctx) is False
    ar = {"select": {"op": "ar", "column": "sale", "years": [2020, 2019], "sign": "-",
                     "result": "30.5"}, "claim": {"entity": "C"}}
    assert decide(ar, ctx) is True


def test_value_on_threshold_is_undecidable(ctx: Context) -> None:
    program = {"select": {"op": "ct", "column": "sale", "year": 2019, "cmp": ">",
                          "threshold": "500.0"}, "claim": {"entity": "A"}}
    with pytest.raises(Undecidable, match="equals the threshold"):
        decide(program, ctx)


def test_two_entities_make_the_description_fail(ctx: Context) -> None:
    program = {"select": {"op": "ct", "column": "sale", "year": 2019, "cmp": ">",
                          "threshold": "0"}, "claim": {"entity": "A"}}
    with pytest.raises(Undecidable, match="picks 2 entities"):
        decide(program, ctx)


def test_trend_needs_every_entity_clear(ctx: Context) -> None:
    # A and C rise every year by 10 (span 80: margin 2.4); B zig-zags clearly.
    both = {"select": {"op": "tr_all", "column": "ni", "direction": "increasing"},
            "claim": {"entity": "A"}}
    with pytest.raises(Undecidable, match="picks 2"):
        decide(both, ctx)
    fuzzy = _item(TABLE, CHART | {"B": ["60.0", "61.0", "70.0", "71.0", "80.0"]})
    with pytest.raises(Undecidable, match="not visually clear"):
        decide(both, Context(fuzzy, 0.03, 0.03))


def test_ranking_margin(ctx: Context) -> None:
    program = {"select": {"op": "rk", "column": "ni", "year": 2022, "order": "max"},
               "claim": {"entity": "A"}}
    assert decide(program, ctx) is True
    close = _item(TABLE, CHART | {"B": ["60.0", "50.0", "70.0", "39.0", "80.0"]})
    with pytest.raises(Undecidable, match="too close"):
        decide(program, Context(close, 0.03, 0.03))


def test_flat_chart_ranks_nothing() -> None:
    flat = _item(TABLE, {e: ["0.0"] * 5 for e in CHART})
    program = {"select": {"op": "rk", "column": "ni", "year": 2020, "order": "min"},
               "claim": {"entity": "A"}}
    with pytest.raises(Undecidable):
        decide(program, Context(flat, 0.03, 0.03))


def test_rank_when_and_its_hops(ctx: Context) -> None:
    # B wins ni in 2019-2021 and 2023, A in 2022; A's sale > 1,250 in 2022-2023 only.
    program = {"select": {"op": "rk_when", "column": "ni", "order": "max",
                          "when": {"entity": "A", "terms": [{"column": "sale", "sign": "+"}],
                                   "cmp": "<", "threshold": "1250"}},
               "claim": {"entity": "B"}}
    assert decide(program, ctx) is True
    assert hops(program) == [("select", "when"), ("select",)]
    for path in hops(program):
        with pytest.raises(Undecidable):
            decide(drop(program, path), ctx)


def test_fact_needs_exactly_one_owner() -> None:
    texts = {"A": "We operate 12 plants in Ohio.", "B": "Our plants are in Texas.",
             "C": "We operate 12 plants in Ohio, too."}
    item = _item(TABLE, CHART, texts)
    program = {"select": {"op": "fact", "needle": "12 plants in Ohio"},
               "claim": {"entity": "A"}}
    with pytest.raises(Undecidable, match="picks 2"):
        decide(program, Context(item, 0.03, 0.03))
    program["select"]["needle"] = "in Texas"
    assert decide(program, Context(item, 0.03, 0.03)) is False


def test_needles_match_whole_words_only() -> None:
    assert mentions("We have 1,200 employees.", "1,200 employees")
    assert not mentions("We have 11,200 employees.", "1,200 employees")
    assert mentions("Based in  Austin,\nTexas.", "austin, texas")


def test_malformed_program_is_undecidable_not_a_crash(ctx: Context) -> None:
    with pytest.raises(Undecidable, match="malformed"):
        decide({"select": {"op": "ct", "column": "nope", "year": 1900}}, ctx)
    with pytest.raises(Undecidable, match="unknown operation"):
        decide({"select": {"op": "magic"}, "claim": {"entity": "A"}}, ctx)
