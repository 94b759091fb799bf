"""Stable sampling: named streams, rendezvous choices, and registering a theme, a library or a
chart kind moves only the items that now pick it."""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from hopvista.rng import Streams, choose, stream
from hopvista.themes.chart_kinds import CHART_KINDS, ChartKind, allowed_kinds, whole_chart
from hopvista.themes.charts import CHART_LIBRARIES, ChartLibrary, Drawn, sample_chart_style
from hopvista.themes.style import sample_style, shown_chart
from hopvista.themes.tables import TABLE_THEMES, Theme, sample_table_style

IDS = [f"financial-s7-{i:06d}" for i in range(300)]
KINDS = ["line", "bar", "scatter"]


# -- the primitives ------------------------------------------------------------------------

def test_streams_are_named_and_reproducible() -> None:
    a = stream(7, "x-000001", "base", "table.font_size_px").random(4)
    assert list(a) == list(stream(7, "x-000001", "base", "table.font_size_px").random(4))
    others = [stream(8, "x-000001", "base", "table.font_size_px"),
              stream(7, "x-000002", "base", "table.font_size_px"),
              stream(7, "x-000001", "blur", "table.font_size_px"),
              stream(7, "x-000001", "base", "table.padding_y_px")]
    for other in others:
        assert list(other.random(4)) != list(a)


def test_choose_depends_on_the_set_of_options_not_their_order() -> None:
    options = ["web", "latex", "excel", "dark"]
    for item in IDS[:50]:
        picked = choose(options, 1, item, "base", "table.theme")
        assert picked in options
        assert picked == choose(list(reversed(options)), 1, item, "base", "table.theme")


def test_adding_an_option_moves_only_the_items_that_pick_it() -> None:
    old = ["a", "b", "c", "d", "e"]
    before = {i: choose(old, 3, i, "base", "x") for i in IDS}
    after = {i: choose([*old, "new"], 3, i, "base", "x") for i in IDS}
    moved = {i for i in IDS if before[i] != after[i]}
    assert moved == {i for i in IDS if after[i] == "new"}
    assert 30 <= len(moved) <= 75  # about a sixth of 300
    # Removing an option moves only the items that had chosen it.
    fewer = {i: choose(old[1:], 3, i, "base", "x") for i in IDS}
    assert {i for i in IDS if fewer[i] != before[i]} == {i for i in IDS if before[i] == "a"}


def test_equal_weights_give_equal_shares_and_weights_scale_them() -> None:
    ids = [f"item-{i}" for i in range(3000)]
    counts = Counter(choose("abc", 0, i, "base", "s") for i in ids)
    assert all(abs(n - 1000) < 5 * math.sqrt(1000 * 2 / 3) for n in counts.values()), counts
    weighted = Counter(choose("abc", 0, i, "base", "s", {"a": 2, "b": 1, "c": 0}) for i in ids)
    assert weighted["c"] == 0
    assert abs(weighted["a"] - 2000) < 5 * math.sqrt(3000 * 2 / 9), weighted


@pytest.mark.parametrize(("options", "weights"), [
    ([], None), (["a", "a"], None), (["a", "b"], [1.0]), (["a", "b"], {"a": 1.0}),
    (["a", "b"], [0, 0]), (["a", "b"], [1, -1]), (["a"], [math.nan])])
def test_choose_rejects_bad_options(options: list[str], weights: Any) -> None:
    with pytest.raises(ValueError):
        choose(options, 0, "i", "base", "s", weights)


# -- themes, libraries and kinds registered from outside -----------------------------------

@pytest.fixture
def extra_theme() -> Iterator[Theme]:
    theme = Theme("test-sepia", ("Liberation Sans", "DejaVu Sans"),
                  "A theme a plug-in adds: sepia page, ruled rows.",
                  css=":root { --hv-bg: #f4ecd8; }\n"
                      ".hv-body td { border-bottom: 1px solid var(--hv-accent); }\n",
                  accents=("#704214",))
    TABLE_THEMES.register(theme.name, theme)
    yield theme
    TABLE_THEMES.unregister(theme.name)


def _never_drawn(*args: Any) -> Drawn:
    raise AssertionError("the sampler never draws")


@pytest.fixture
def extra_library() -> Iterator[ChartLibrary]:
    library = ChartLibrary("test-lib", "A library a plug-in adds.", ("line", "bar", "scatter"),
                           {True: ("grid",), False: ("plain",)}, _never_drawn, ("numpy",))
    CHART_LIBRARIES.register(library.name, library)
    yield library
    CHART_LIBRARIES.unregister(library.name)


def _styles(kinds: list[str]) -> list[dict[str, Any]]:
    return [{"table": sample_table_style(Streams(7, i)),
             "chart": sample_chart_style(Streams(7, i), kinds)} for i in IDS]


def test_a_registered_theme_restyles_only_the_items_that_pick_it() -> None:
    before = _styles(KINDS)
    theme = Theme("test-sepia", ("Liberation Sans",), "sepia", css=":root { --hv-bg: #eee; }")
    TABLE_THEMES.register(theme.name, theme)
    try:
        assert TABLE_THEMES.get("test-sepia") is theme
        after = _styles(KINDS)
    finally:
        TABLE_THEMES.unregister(theme.name)
    changed = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    picked = [i for i, a in enumerate(after) if a["table"]["theme"] == "test-sepia"]
    assert changed == picked
    assert 8 <= len(picked) <= 45  # about 300 / 14
    assert all(before[i]["chart"] == after[i]["chart"] for i in range(len(IDS)))
    assert _styles(KINDS) == before  # unregistered: back to the old styles


def test_a_registered_library_moves_only_the_charts_that_pick_it(
        extra_library: ChartLibrary) -> None:
    CHART_LIBRARIES.unregister(extra_library.name)
    before = _styles(KINDS)
    CHART_LIBRARIES.register(extra_library.name, extra_library)
    after = _styles(KINDS)
    changed = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    picked = [i for i, a in enumerate(after) if a["chart"]["library"] == "test-lib"]
    assert changed == picked and 45 <= len(picked) <= 105  # about a quarter
    for i in picked:  # only the library and its look moved
        assert after[i]["chart"]["theme"] in ("grid", "plain")
        rest = {k: v for k, v in after[i]["chart"].items() if k not in ("library", "theme")}
        assert rest == {k: v for k, v in before[i]["chart"].items()
                        if k not in ("library", "theme")}
    # The library does not draw pies: a pie never goes to it.
    pies = [sample_chart_style(Streams(7, i), ["pie"]) for i in IDS[:100]]
    assert {s["library"] for s in pies} <= {"matplotlib", "seaborn", "plotly"}


def test_a_registered_kind_moves_only_the_items_that_pick_it() -> None:
    before = _styles([*KINDS, "pie"])
    kind = ChartKind("test-area", "Stacked areas.", whole_chart)
    drawer = ChartLibrary("test-area-lib", "draws areas", ("test-area",),
                          {True: ("a",), False: ("b",)}, _never_drawn, ("numpy",))
    CHART_KINDS.register(kind.name, kind)
    try:
        assert sample_chart_style(Streams(7, IDS[0]), [*KINDS, "pie"]) == before[0]["chart"]
        unchanged = _styles([*KINDS, "pie", "test-area"])  # no library draws it yet
        assert unchanged == before
        CHART_LIBRARIES.register(drawer.name, drawer)
        after = _styles([*KINDS, "pie", "test-area"])
    finally:
        CHART_KINDS.unregister(kind.name)
        CHART_LIBRARIES.unregister(drawer.name)
    changed = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    picked = [i for i, a in enumerate(after) if a["chart"]["kind"] == "test-area"]
    assert changed == picked and picked
    assert {after[i]["chart"]["library"] for i in picked} == {"test-area-lib"}


def test_allowing_a_kind_moves_only_the_kind() -> None:
    """Sizes, fonts and the palette come from their own streams: allowing a pie changes the
    kind of the items that pick it (and their library only if it cannot draw pies)."""
    for item in IDS[:100]:
        a = sample_chart_style(Streams(7, item), KINDS)
        b = sample_chart_style(Streams(7, item), [*KINDS, "pie"])
        assert a == b or (b["kind"] == "pie" and {k: v for k, v in a.items() if k != "kind"}
                          == {k: v for k, v in b.items() if k != "kind"})


def test_a_plugin_theme_renders_its_own_css(extra_theme: Theme) -> None:
    from hopvista.render.table import parse_style, render_html
    from tests.conftest import default_style

    style = parse_style(default_style("test-sepia"))
    assert style.theme is extra_theme
    table = {"entity_label": "Company", "period_label": "Year",
             "columns": [{"key": "a", "label": "A", "unit": None, "precision": 0}],
             "rows": [{"entity": "E1", "year": 2020, "values": {"a": "1"}}]}
    assert "#f4ecd8" in render_html(table, {"E1": "One"}, default_style("test-sepia"))


def test_theme_records_are_checked() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Theme("t", ("Liberation Sans",), "no css")
    with pytest.raises(ValueError, match="exactly one"):
        Theme("t", ("Liberation Sans",), "both", css="a{}", css_file="web.css")
    with pytest.raises(ValueError, match="font_size_px"):
        Theme("t", ("Liberation Sans",), "bad", css="a{}", font_size_px=(9, 8))


# -- the item's style: pure functions ------------------------------------------------------

@dataclass(frozen=True)
class FakeStatement:
    type: str
    modalities: list[str]
    program: dict[str, Any] = field(default_factory=dict)


CHART = {
    "column": {"key": "sale", "label": "Sales", "unit": "USD millions", "precision": 1},
    "years": [2019, 2020, 2021],
    "series": [{"entity": "A", "values": ["10.0", "20.0", "90.0"]},
               {"entity": "B", "values": ["30.0", "25.0", "5.0"]},
               {"entity": "C", "values": ["12.0", "11.0", "4.0"]}],
}
RANKING = [FakeStatement("RK", ["chart"], {"select": {"op": "rk", "year": 2021,
                                                      "order": "max"}}),
           FakeStatement("CT", ["table"]), FakeStatement("FC", ["text"])]
TREND = [FakeStatement("TR", ["chart"]), FakeStatement("CT", ["table"]),
         FakeStatement("FC", ["text"])]


def test_pie_is_allowed_only_for_a_clear_one_year_ranking() -> None:
    assert set(allowed_kinds(CHART, RANKING, 0.03)) == {"line", "bar", "scatter", "pie"}
    assert set(allowed_kinds(CHART, TREND, 0.03)) == {"line", "bar", "scatter"}
    assert "pie" not in allowed_kinds(CHART, RANKING, 0.9)  # the lead is not clear enough


def test_style_sampling_and_the_shown_chart_never_change_their_inputs() -> None:
    chart = copy.deepcopy(CHART)
    statements = list(RANKING)
    kinds = Counter()
    for item in IDS[:120]:
        style = sample_style(Streams(7, item), chart, statements, 0.03)
        kinds[style["chart"]["kind"]] += 1
        shown = shown_chart(chart, style["chart"]["kind"], statements, 0.03)
        assert shown["kind"] == style["chart"]["kind"]
        if shown["kind"] == "pie":
            assert shown["years"] == [2021]
            assert [s["values"] for s in shown["series"]] == [["90.0"], ["5.0"], ["4.0"]]
        else:
            assert {k: v for k, v in shown.items() if k != "kind"} == CHART
        assert chart == CHART and statements == RANKING
    assert set(kinds) == {"line", "bar", "scatter", "pie"}
    with pytest.raises(ValueError, match="cannot show"):
        shown_chart(chart, "pie", TREND, 0.03)
