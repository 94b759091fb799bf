"""Markup colours stand out from what they mark: a table highlight from every background its
cell may have in every table theme, a chart emphasis stroke from the marks it is drawn on
(the crimson outline on a red bar is drawn in another colour, and the record says so);
measured as CIEDE2000 colour differences, on the colours and on the pixels drawn."""

from __future__ import annotations

import io
from collections.abc import Iterator
from itertools import permutations

import numpy as np
import pytest
from PIL import Image

from hopvista.augment import chart_markup
from hopvista.augment import markup as table_markup
from hopvista.augment.contrast import FILL_DELTA_E, STROKE_DELTA_E, ciede2000, delta_e, over
from hopvista.augment.grid import ENTITY, HEAD, NUM, Cell, Grid, marked, plain
from hopvista.render.chart import ChartRenderer
from hopvista.render.panels import layout_document
from hopvista.render.table import TableRenderer, parse_style
from hopvista.rng import Streams
from hopvista.themes.charts import FCMR_PALETTE
from hopvista.themes.tables import builtin_themes, sample_table_style
from hopvista.themes.tables.policy import cell_backgrounds
from tests.test_render_chart import chart_for, style_for

SHARMA = [  # Sharma, Wu and Dalal (2005), Table 1: pairs 1, 7, 12, 17, 25, 34
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, -0.001, 2.49), (50.0, 0.0009, -2.49), 4.8045),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
]
STREAMS = [Streams(3, f"financial-s3-{n:06d}", "markup") for n in range(25)]


@pytest.mark.parametrize(("first", "second", "expected"), SHARMA)
def test_the_colour_difference_is_ciede2000(first: tuple[float, float, float],
                                            second: tuple[float, float, float],
                                            expected: float) -> None:
    assert ciede2000(first, second) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(second, first) == pytest.approx(expected, abs=1e-4)


def test_the_issue_s_case_measures_as_it_looks() -> None:
    assert delta_e("#c2185b", "#d62728") < STROKE_DELTA_E  # crimson on a red bar
    assert delta_e("#004d40", "#d62728") > STROKE_DELTA_E
    assert delta_e(over("#ffd54f", "#ffffff", 0.35), "#ffffff") > FILL_DELTA_E


def _styles() -> Iterator[dict[str, str]]:
    for theme in builtin_themes():
        for accent in theme.accents:
            yield {"theme": theme.name, "accent": accent}


def test_a_highlight_stands_out_from_every_background_of_every_table_theme() -> None:
    replaced = 0
    for style in _styles():
        grounds = cell_backgrounds(*_theme_and_accent(style))
        for streams in STREAMS:
            look = table_markup.look(streams, style)
            least = min(delta_e(over(look["colour"], g, look["opacity"]), g) for g in grounds)
            assert least >= FILL_DELTA_E, (style, look, least)
            first = streams.choose(table_markup.COLOURS, "markup.colour")
            if "replaced" in look:
                replaced += 1
                assert look["replaced"]["colour"] == first != look["colour"]
                assert look["replaced"]["delta_e"] < FILL_DELTA_E
            else:
                assert look["colour"] == first  # a colour that stands out is kept
            assert look == table_markup.look(streams, style)  # seeded
    assert replaced  # pale blue on a blue zebra row, for one


def _theme_and_accent(style: dict[str, str]) -> tuple[object, str]:
    from hopvista.themes.tables import get_theme

    return get_theme(style["theme"]), style["accent"]


def test_an_emphasis_stroke_stands_out_from_the_marks_it_is_drawn_on() -> None:
    for marks in permutations(FCMR_PALETTE, 2):
        for streams in STREAMS[:20]:
            look = chart_markup.look(streams, "bar", marks)
            assert min(delta_e(look["colour"], m) for m in marks) >= STROKE_DELTA_E
            assert look == chart_markup.look(streams, "bar", marks)


def test_a_crimson_outline_on_a_red_bar_is_drawn_in_another_colour() -> None:
    streams = next(s for s in (Streams(1, f"item-{n}", "chart-markup") for n in range(200))
                   if s.choose(chart_markup.COLOURS, "chart-markup.colour") == "#c2185b")
    look = chart_markup.look(streams, "bar", ("#d62728",))
    assert look["colour"] != "#c2185b"
    assert look["replaced"] == {"colour": "#c2185b", "delta_e": 17.7, "least": STROKE_DELTA_E}
    assert "replaced" not in chart_markup.look(streams, "bar", ("#1f77b4",))


@pytest.fixture(scope="module")
def renderer() -> Iterator[ChartRenderer]:
    with ChartRenderer(warm_plotly=False) as charts:
        yield charts


@pytest.mark.parametrize("library", ["matplotlib"])
def test_the_outline_drawn_on_a_red_bar_measures_as_chosen(renderer: ChartRenderer,
                                                           library: str) -> None:
    chart = chart_for("bar")
    names = {s["entity"]: s["entity"] for s in chart["series"]}
    style = style_for(library, "bar", seed=4)
    style["palette"] = ["#d62728", *[c for c in FCMR_PALETTE if c != "#d62728"]]
    streams = next(s for s in (Streams(1, f"item-{n}", "chart-markup") for n in range(200))
                   if s.choose(chart_markup.COLOURS, "chart-markup.colour") == "#c2185b")
    look = chart_markup.look(streams, "bar", (style["palette"][0],))
    plain, _ = renderer.render(chart, names, style)
    emphasis = {"entity": chart["series"][0]["entity"], "year": chart["years"][0],
                "how": "outline", "colour": look["colour"], "width": 3.0}
    png, meta = renderer.render(chart, names, style | {"emphasis": emphasis})
    before, after = (np.asarray(Image.open(io.BytesIO(p)).convert("RGB")) for p in (plain, png))
    changed = after[(before != after).any(axis=2)]
    colours, counts = np.unique(changed, axis=0, return_counts=True)
    stroke = "#" + "".join(f"{int(v):02x}" for v in colours[counts.argmax()])
    assert delta_e(stroke, "#d62728") >= STROKE_DELTA_E, (stroke, meta["emphasis"])


def _tiny_grid() -> Grid:
    heads = (Cell(0, 0, "Company", HEAD), Cell(0, 1, "Revenue", HEAD))
    body = tuple((Cell(r, 0, name, ENTITY), Cell(r, 1, value, NUM))
                 for r, (name, value) in enumerate((("Acme", "1,250"), ("Birch", "980"),
                                                    ("Cedar", "1,010")), start=1))
    return Grid(None, (heads, *body), 1)


def _ground_pixel(png: bytes, box: list[int]) -> str:
    """The colour at the inner top-left corner of a cell's box (padding, not text)."""
    x, y, w, h = box
    rgb = Image.open(io.BytesIO(png)).convert("RGB").getpixel((x + 3, y + 3))
    assert isinstance(rgb, tuple)
    return "#" + "".join(f"{v:02x}" for v in rgb[:3])


@pytest.mark.slow
def test_a_highlight_drawn_in_every_table_theme_measures_as_chosen() -> None:
    grid = _tiny_grid()
    # pale blue drawn first, at a low opacity: on a blue zebra row it would all but vanish
    streams = next(s for s in (Streams(2, f"item-{n}", "markup") for n in range(400))
                   if s.choose(table_markup.COLOURS, "markup.colour") == "#81d4fa"
                   and s.uniform("markup.opacity") < 0.2)
    styles = [(theme, theme.accents[0]) for theme in builtin_themes()]
    styles += [(theme, "#2e75b6") for theme in builtin_themes() if theme.name == "zebra"]
    with TableRenderer() as renderer:
        for theme, accent in styles:
            style = sample_table_style(Streams(1, "contrast"), theme.family) | {
                "theme": theme.name, "accent": accent, "font": theme.fonts[0]}
            look = table_markup.look(streams, style)
            parsed = parse_style(style)
            shots = [renderer.shoot(layout_document(marked(plain(grid), marks), parsed, look),
                                    parsed, "panels")
                     for marks in ({}, {(1, 1): "highlight"}, {(2, 1): "highlight"})]
            (plain_png, layout), *highlighted = shots
            boxes = {(c["row"], c["col"]): c["box"] for c in layout["cells"]}
            for row, (png, _) in enumerate(highlighted, start=1):  # a plain and a striped row
                before, after = (_ground_pixel(p, boxes[(row, 1)]) for p in (plain_png, png))
                assert delta_e(before, after) >= FILL_DELTA_E - 0.5, \
                    (theme.name, accent, look["colour"], before, after)
