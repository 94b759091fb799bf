"""Markup colours stand out from what they mark: every mark kind's paint (a highlight's or a
shaded row's fill, the ink of an arrow, a ring, a hand-drawn loop or a column's box, over its
halo) from every background it may be drawn on in every table theme, a chart emphasis stroke
from the marks it is drawn on (the crimson outline on a red bar is drawn in another colour,
and the record says so); measured as CIEDE2000 colour differences, on the colours and on the
pixels drawn."""

from __future__ import annotations

import io
from collections.abc import Iterator
from itertools import permutations

import numpy as np
import pytest
from PIL import Image

from hopvista.augment import chart_markup
from hopvista.augment import markup as table_markup
from hopvista.augment.contrast import (
    FILL_DELTA_E,
    STROKE_DELTA_E,
    ciede2000,
    delta_e,
        over,
)
from hopvista.augment.grid import ENTITY, HEAD, NUM, Cell, Grid, marked, plain
from hopvista.markup_tasks.build import look as task_look
from hopvista.render.chart import ChartRenderer
from hopvista.render.panels import layout_document
from hopvista.render.table import TableRenderer, parse_style
from hopvista.rng import Streams
from hopvista.themes.charts import FCMR_PALETTE
from hopvista.themes.marks import HALO, MARK_KINDS, MarkKind, ink_look, ordered_kinds
from hopvista.themes.tables import builtin_themes, get_theme, sample_table_style
from hopvista.themes.tables.policy import cell_backgrounds, heading_backgrounds
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
    return get_theme(style["theme"]), style["accent"]


def _grounds(kind: MarkKind, style: dict[str, str]) -> list[str]:
    """What a mark of ``kind`` lies on: a body cell's backgrounds, a heading's too for a mark
    that covers a row or column, and for an ink over a halo the halo over each of them."""
    theme, accent = get_theme(style["theme"]), style["accent"]
    grounds = list(cell_backgrounds(theme, accent))
    if kind.scope != "cell":
        grounds += heading_backgrounds(theme, accent)
    if kind.paint == "ink" and kind.halo:
        grounds += [over(HALO[0], ground, HALO[1]) for ground in grounds]
    return grounds


def _stands_out_by(kind: MarkKind, look: dict[str, object], style: dict[str, str]) -> float:
    """How far the paint of a mark of ``kind`` drawn in ``look`` is, at least, from what it
    lies on, less the threshold of its paint (negative: it hardly shows)."""
    grounds = _grounds(kind, style)
    if kind.paint == "fill":
        opacity = min(float(str(look["opacity"])), kind.most_opacity)
        return min(delta_e(over(str(look["colour"]), g, opacity), g) for g in grounds) \
            - FILL_DELTA_E
    ink = ink_look(look)["ink"]
    return min(delta_e(ink, g) for g in grounds) - STROKE_DELTA_E


@pytest.mark.parametrize("kind", [k for k in ordered_kinds() if k.paint != "text"],
                         ids=lambda kind: kind.name)
def test_every_mark_kind_stands_out_from_everything_it_is_drawn_on(kind: MarkKind) -> None:
    replaced = 0
    for style in _styles():
        for streams in STREAMS[:6]:
            drawn = table_markup.look(streams, style)
            paint = table_markup.mark_paint(streams, kind, drawn, style)
            assert _stands_out_by(kind, drawn | paint, style) >= 0, (style, drawn, paint)
            assert paint == table_markup.mark_paint(streams, kind, drawn, style)  # seeded
            if paint:
                replaced += 1
                key = "colour" if kind.paint == "fill" else "ink"
                was = paint["replaced" if key == "colour" else "replaced_ink"]
                assert was[key] == (drawn["colour"] if key == "colour"
                                    else ink_look(drawn)["ink"]) != paint[key]
                assert was["delta_e"] < was["least"]
                assert _stands_out_by(kind, drawn, style) < 0
            else:  # a paint that stands out is kept: the variant's bytes stay
                assert _stands_out_by(kind, drawn, style) >= 0
    if kind.name == "column":  # a box over a coloured header
        assert replaced


def test_marks_in_the_text_s_own_colour_are_the_underline_and_the_bold() -> None:
    assert {k.name for k in ordered_kinds() if k.paint == "text"} <= {"underline", "bold"}
    assert table_markup.mark_paint(STREAMS[0], MARK_KINDS.get("underline"),
                                   table_markup.look(STREAMS[0]), {"theme": "dark",
                                                                   "accent": "#4fc3f7"}) == {}


def test_a_markup_task_s_shapes_stand_out_on_every_theme() -> None:
    drawn = task_look(Streams(1, "T1-000000", "markup"))
    for kind in (k for k in ordered_kinds() if k.paint == "ink" and k.scope == "cell"):
        for style in _styles():
            assert _stands_out_by(kind, drawn, style) >= 0, (kind.name, style)


def test_a_row_shaded_in_a_zebra_row_s_colour_is_shaded_in_another() -> None:
    style = {"theme": "zebra", "accent": "#2e75b6"}
    row = MARK_KINDS.get("row")
    streams = next(s for s in STREAMS if table_markup.mark_paint(
        s, row, table_markup.look(s, style), style))
    drawn = table_markup.look(streams, style)
    paint = table_markup.mark_paint(streams, row, drawn, style)
    assert paint["replaced"]["colour"] == drawn["colour"] != paint["colour"]
    assert paint["replaced"]["least"] == FILL_DELTA_E
    assert _stands_out_by(row, drawn | paint, style) >= 0


def test_a_column_box_on_a_coloured_header_is_drawn_in_another_ink() -> None:
    style = {"theme": "coloured-header", "accent": "#7f6000"}
    column = MARK_KINDS.get("column")
    streams = next(s for s in STREAMS if table_markup.mark_paint(
        s, column, table_markup.look(s, style), style))
    drawn = table_markup.look(streams, style)
    paint = table_markup.mark_paint(streams, column, drawn, style)
    assert paint["replaced_ink"] == {"ink": ink_look(drawn)["ink"],
                                     "delta_e": paint["replaced_ink"]["delta_e"],
                                     "least": STROKE_DELTA_E}
    assert delta_e(paint["ink"], "#7f6000") >= STROKE_DELTA_E
    assert table_markup.mark_paint(streams, column, drawn, {"theme": "financial-report",
                                                            "accent": "#7f6000"}) == {}


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


@pytest.fixture(scope="module")
def tables() -> Iterator[TableRenderer]:
    with TableRenderer() as renderer:
        yield renderer


@pytest.mark.slow
def test_a_highlight_drawn_in_every_table_theme_measures_as_chosen(
        tables: TableRenderer) -> None:
    grid = _tiny_grid()
    # pale blue drawn first, at a low opacity: on a blue zebra row it would all but vanish
    streams = next(s for s in (Streams(2, f"item-{n}", "markup") for n in range(400))
                   if s.choose(table_markup.COLOURS, "markup.colour") == "#81d4fa"
                   and s.uniform("markup.opacity") < 0.2)
    styles = [(theme, theme.accents[0]) for theme in builtin_themes()]
    styles += [(theme, "#2e75b6") for theme in builtin_themes() if theme.name == "zebra"]
    for theme, accent in styles:
        style = sample_table_style(Streams(1, "contrast"), theme.family) | {
            "theme": theme.name, "accent": accent, "font": theme.fonts[0]}
        look = table_markup.look(streams, style)
        parsed = parse_style(style)
        shots = [tables.shoot(layout_document(marked(plain(grid), marks), parsed, look),
                              parsed, "panels")
                 for marks in ({}, {(1, 1): "highlight"}, {(2, 1): "highlight"})]
        (plain_png, layout), *highlighted = shots
        boxes = {(c["row"], c["col"]): c["box"] for c in layout["cells"]}
        for row, (png, _) in enumerate(highlighted, start=1):  # a plain and a striped row
            before, after = (_ground_pixel(p, boxes[(row, 1)]) for p in (plain_png, png))
            assert delta_e(before, after) >= FILL_DELTA_E - 0.5, \
                (theme.name, accent, look["colour"], before, after)


def _hex(rgb: np.ndarray) -> str:
    return "#" + "".join(f"{int(v):02x}" for v in rgb)


@pytest.mark.slow
def test_each_line_kind_s_ink_drawn_on_the_darkest_theme_measures_as_chosen(
        tables: TableRenderer) -> None:
    grid = _tiny_grid()
    theme = get_theme("dark")  # the darkest built-in theme: cells #1e1e1e and #262626
    style = sample_table_style(Streams(1, "contrast"), theme.family) | {
        "theme": theme.name, "accent": theme.accents[0], "font": theme.fonts[0]}
    parsed = parse_style(style)
    streams = STREAMS[0]
    drawn = table_markup.look(streams, style)
    plain_png, layout = tables.shoot(layout_document(plain(grid), parsed, drawn),
                                     parsed, "panels")
    ground = _ground_pixel(plain_png, {(c["row"], c["col"]): c["box"]
                                       for c in layout["cells"]}[(2, 1)])
    for kind in (k for k in ordered_kinds() if k.paint == "ink"):
        look = drawn | table_markup.mark_paint(streams, kind, drawn, style)
        ink = ink_look(look)["ink"]
        png, _ = tables.shoot(layout_document(marked(plain(grid), {(2, 1): kind.name}),
                                              parsed, look), parsed, "panels")
        before, after = (np.asarray(Image.open(io.BytesIO(p)).convert("RGB"))
                         for p in (plain_png, png))
        colours, counts = np.unique(after[(before != after).any(axis=2)], axis=0,
                                    return_counts=True)
        inked = [_hex(c) for c in colours if delta_e(_hex(c), ink) < 3]  # the line's own
        assert sum(n for c, n in zip(colours, counts, strict=True)
                   if _hex(c) in inked) >= 10, (kind.name, ink)
        measured = min(delta_e(c, ground) for c in inked)
        assert measured >= STROKE_DELTA_E - 1, (kind.name, ink, ground, measured)
