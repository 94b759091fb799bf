from __future__ import annotations

import hashlib
import importlib.metadata
import io
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hopvista.errors import UserError
from hopvista.render.browser import chromium_executable as find_chromium
from hopvista.render.chart import ChartRenderer
from hopvista.render.chart_data import ChartData
from hopvista.rng import Streams
from hopvista.themes import fonts
from hopvista.themes.charts import (
    CHART_KINDS,
    CHART_LIBRARIES,
    FCMR_PALETTE,
    FIGURE_HEIGHT_RANGE,
    FIGURE_WIDTH_RANGE,
    FONT_SIZE_RANGES,
    sample_chart_style,
)

pytestmark = pytest.mark.slow  # renders with Chromium, matplotlib or plotly

CHART: dict[str, Any] = {
    "column": {"key": "chech", "label": "Net Change in Cash", "unit": "USD millions",
               "precision": 1},
    "years": [2019, 2020, 2021, 2022, 2023],
    "series": [{"entity": "C093", "values": ["54.9", "-85.5", "217.3", "-25.9", "110.8"]},
               {"entity": "C064", "values": ["71.3", "42.3", "159.3", "5.6", "258.6"]},
               {"entity": "C013", "values": ["571.8", "157.1", "1,075.7", "487.2", "312.4"]}],
}
PIE: dict[str, Any] = {
    "column": CHART["column"],
    "years": [2021],
    "series": [{"entity": "C093", "values": ["217.3"]}, {"entity": "C064", "values": ["159.3"]},
               {"entity": "C013", "values": ["1,075.7"]}],
}
NAMES = {"C093": "Silva Microsystems Corporation", "C064": "Vazquez Technologies",
         "C013": "Adams-Webster"}


def _has_chromium() -> bool:
    try:
        find_chromium()
    except UserError:
        return False
    return True


HAS_CHROMIUM = _has_chromium()
needs_chromium = pytest.mark.skipif(
    not HAS_CHROMIUM, reason="no Chromium (PATH, HOPVISTA_CHROMIUM or Playwright): plotly "
    "charts are exported through kaleido, which drives Chromium")


def library_param(library: str) -> Any:
    marks = [needs_chromium] if library == "plotly" else []
    return pytest.param(library, marks=marks, id=library)


LIBRARIES = CHART_LIBRARIES.names()
KINDS = CHART_KINDS.names()
ALL_LIBRARIES = [library_param(lib) for lib in LIBRARIES]


@pytest.fixture(scope="module")
def renderer() -> Iterator[ChartRenderer]:
    with ChartRenderer(warm_plotly=HAS_CHROMIUM) as charts:
        yield charts


def style_for(library: str, kind: str, seed: int = 0, **changes: Any) -> dict[str, Any]:
    style = sample_chart_style(Streams(seed, "test-chart"), [kind])
    style.update(library=library, **changes)
    looks = CHART_LIBRARIES.get(library).looks[style["grid"]]
    if style["theme"] not in looks:
        style["theme"] = looks[0]
    return style


def chart_for(kind: str) -> dict[str, Any]:
    return PIE if kind == "pie" else CHART


# -- sampling ------------------------------------------------------------------------------

def test_sample_chart_style_covers_libraries_and_respects_kinds() -> None:
    libraries: Counter[str] = Counter()
    for index in range(600):
        kinds = ["line", "bar", "scatter"] if index % 2 else ["bar", "pie"]
        style = sample_chart_style(Streams(5, f"item-{index}"), kinds)
        json.dumps(style)
        libraries[style["library"]] += 1
        assert style["kind"] in kinds
        assert style["font"]["requested"] in fonts.FCMR_FONTS
        assert style["font"]["family"] == fonts.FCMR_FONTS[style["font"]["requested"]].family
        assert len(set(style["palette"])) >= 3 and set(style["palette"]) <= set(FCMR_PALETTE)
        for name, (low, high) in FONT_SIZE_RANGES.items():
            assert low <= style["font_sizes"][name] <= high
        assert FIGURE_WIDTH_RANGE[0] <= style["width"] <= FIGURE_WIDTH_RANGE[1]
        assert FIGURE_HEIGHT_RANGE[0] <= style["height"] <= FIGURE_HEIGHT_RANGE[1]
        assert style["legend"] in ("right", "below") and style["dpi"] == 100
    assert set(libraries) == set(LIBRARIES)
    assert min(libraries.values()) > 600 / 3 * 0.8, libraries


def test_sample_chart_style_is_deterministic_and_kinds_change_only_the_kind() -> None:
    a = sample_chart_style(Streams(1, "item-3"), ["line", "bar"])
    assert a == sample_chart_style(Streams(1, "item-3"), ["bar", "line"])
    b = sample_chart_style(Streams(1, "item-3"), KINDS)
    assert {k: v for k, v in a.items() if k != "kind"} == {
        k: v for k, v in b.items() if k != "kind"}
    seen = {sample_chart_style(Streams(1, f"item-{i}"), ["pie"])["kind"] for i in range(20)}
    assert seen == {"pie"}


@pytest.mark.parametrize("kinds", [[], ["donut"], ["line", "area"]])
def test_sample_chart_style_rejects_unknown_kinds(kinds: list[str]) -> None:
    with pytest.raises(ValueError, match="kinds"):
        sample_chart_style(Streams(0, "item-0"), kinds)


# -- rendering -----------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("library", ALL_LIBRARIES)
def test_every_library_draws_every_kind(renderer: ChartRenderer, library: str,
                                        kind: str) -> None:
    style = style_for(library, kind)
    png, meta = renderer.render(chart_for(kind), NAMES, style)
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    assert image.size == (style["width"], style["height"])
    assert meta["library"] == library and meta["kind"] == kind
    assert meta["width"] == style["width"] and meta["height"] == style["height"]
    assert meta["font"] == style["font"]["family"]
    assert meta["font_requested"] == style["font"]["requested"]
    assert meta["font_version"] and Path(meta["font_file"]).is_absolute()
    assert Path(meta["font_file"]).is_file()
    if library == "plotly":
        assert meta["font_file"] == str(fonts.fontconfig_file(meta["font"]))
    else:
        assert meta["font_file"] == fonts.resolve_font(meta["font"]).path
    assert meta["library_version"] == importlib.metadata.version(library)
    json.dumps(meta)
    # Not blank: the palette's colours are on the image.
    assert len(image.convert("RGB").getcolors(1 << 20) or []) > 20


@pytest.mark.parametrize("library", ALL_LIBRARIES)
def test_same_input_gives_same_bytes(renderer: ChartRenderer, library: str) -> None:
    style = style_for(library, "bar", seed=3)
    first, _ = renderer.render(CHART, NAMES, style)
    second, _ = renderer.render(CHART, NAMES, style)
    assert first == second


@pytest.mark.parametrize("library", ALL_LIBRARIES)
def test_style_state_is_reset_between_images(renderer: ChartRenderer, library: str) -> None:
    import matplotlib as mpl
    import seaborn as sns

    a = style_for(library, "line", seed=1)
    b = style_for(library, "line", seed=2, font={"requested": "Comic Sans MS",
                                               "family": "Comic Neue"},
                  grid=not a["grid"], palette=list(reversed(a["palette"])))
    first, _ = renderer.render(CHART, NAMES, a)
    renderer.render(CHART, NAMES, b)
    renderer.render(PIE, NAMES, dict(b, kind="pie"))
    original = mpl.rcParams.copy()
    try:  # someone else in the process changes the global style
        sns.set_theme(style="darkgrid", font_scale=2)
        mpl.rcParams["lines.linewidth"] = 9
        again, _ = renderer.render(CHART, NAMES, a)
    finally:
        mpl.rcParams.update(original)
    assert again == first


def test_bytes_are_the_same_in_a_fresh_process(renderer: ChartRenderer) -> None:
    libraries = [lib for lib in LIBRARIES if lib != "plotly" or HAS_CHROMIUM]
    styles = [style_for(lib, kind, seed=4) for lib in libraries for kind in ("bar", "scatter")]
    here = [hashlib.sha256(renderer.render(CHART, NAMES, s)[0]).hexdigest() for s in styles]
    script = (
        "import hashlib, json, sys\n"
        "from hopvista.render.chart import ChartRenderer\n"
        "chart, names, styles = json.load(sys.stdin)\n"
        "plotly = any(s['library'] == 'plotly' for s in styles)\n"
        "with ChartRenderer(warm_plotly=plotly) as r:\n"
        "    print(json.dumps([hashlib.sha256(r.render(chart, names, s)[0]).hexdigest()\n"
        "                      for s in styles]))\n")
    result = subprocess.run([sys.executable, "-c", script], input=json.dumps(
        [CHART, NAMES, styles]), capture_output=True, text=True, check=True, timeout=300)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == here


# -- pies, values, axes --------------------------------------------------------------------

@pytest.mark.parametrize("library", ALL_LIBRARIES)
def test_pie_needs_one_year_of_positive_values(renderer: ChartRenderer, library: str) -> None:
    style = style_for(library, "pie")
    renderer.render(PIE, NAMES, style)
    with pytest.raises(ValueError, match="one year"):
        renderer.render(CHART, NAMES, style)
    negative = json.loads(json.dumps(PIE))
    negative["series"][0]["values"] = ["-3.0"]
    with pytest.raises(ValueError, match="positive"):
        renderer.render(negative, NAMES, style)


def test_value_range_holds_every_value_and_bars_include_zero() -> None:
    for kind in ("line", "scatter", "bar"):
        data = ChartData.parse(CHART, NAMES, kind)
        low, high = data.value_range()
        values = data.flat_values()
        assert low < min(values) and high > max(values)
        assert data.crosses_zero()
    positive = json.loads(json.dumps(CHART))
    for series in positive["series"]:
        series["values"] = [v.lstrip("-") for v in series["values"]]
    bars = ChartData.parse(positive, NAMES, "bar")
    assert bars.value_range()[0] == 0.0 and not bars.crosses_zero()
    line = ChartData.parse(positive, NAMES, "line")
    assert line.value_range()[0] < min(line.flat_values())


def test_chart_data_checks_names_and_alignment() -> None:
    with pytest.raises(ValueError, match="display name"):
        ChartData.parse(CHART, {"C093": "A"}, "line")
    with pytest.raises(ValueError, match="share a display name"):
        ChartData.parse(CHART, dict.fromkeys(NAMES, "Same"), "line")
    short = json.loads(json.dumps(CHART))
    short["series"][1]["values"] = short["series"][1]["values"][:3]
    with pytest.raises(ValueError, match="values"):
        ChartData.parse(short, NAMES, "line")
    with pytest.raises(ValueError, match="style asks"):
        ChartData.parse(dict(CHART, kind="bar"), NAMES, "line")


def test_plotly_figure_uses_names_years_and_the_substitute_font() -> None:
    from hopvista.render.chart_plotly import plotly_figure

    for kind in ("line", "bar", "scatter"):
        style = style_for("plotly", kind, legend="below")
        data = ChartData.parse(CHART, NAMES, kind)
        figure = plotly_figure(data, style, style["font"]["family"])
        assert [t["name"] for t in figure["data"]] == list(NAMES.values())
        layout = figure["layout"]
        assert layout["font"]["family"] == style["font"]["family"]
        assert layout["title"]["text"] == "Net Change in Cash"
        assert layout["yaxis"]["title"]["text"] == "USD millions"
        low, high = layout["yaxis"]["range"]
        assert low < min(data.flat_values()) and high > max(data.flat_values())
        if kind == "bar":
            assert layout["xaxis"]["type"] == "category"
            assert [t["x"] for t in figure["data"]][0] == ["2019", "2020", "2021", "2022",
                                                          "2023"]
        else:
            assert layout["xaxis"]["ticktext"] == ["2019", "2020", "2021", "2022", "2023"]


# -- layout of matplotlib / seaborn images ---------------------------------------------------

LONG_NAMES = {"C093": "Kessler, Nguyen and Featherstonehaugh Holdings International",
              "C064": "B", "C013": "Crawford-Montgomery Semiconductor Manufacturing Group"}


def _check_layout(fig: Any) -> None:
    """Legend, titles and tick labels inside the image and clear of the plot and each
    other; dodged scatter markers of different entities apart; pie labels apart."""
    renderer = fig.canvas.get_renderer()
    (ax,) = fig.axes
    image = fig.bbox
    texts = [t for t in [ax.title, ax.xaxis.label, ax.yaxis.label] if t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in texts]
    for box in boxes:
        assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= image.x1 + 1 and \
            box.y1 <= image.y1 + 1, box
    if ax.texts or not fig.legends:  # pie
        labels = [t.get_window_extent(renderer) for t in ax.texts]
        for i, a in enumerate(labels):
            assert image.contains(a.x0, a.y0) and image.contains(a.x1, a.y1), a
            assert not any(a.overlaps(b) for b in labels[i + 1:])
        return
    (legend,) = fig.legends
    legend_box = legend.get_window_extent(renderer)
    assert not legend_box.overlaps(ax.get_window_extent(renderer))
    assert legend_box.x0 >= -1 and legend_box.y0 >= -1
    assert legend_box.x1 <= image.x1 + 1 and legend_box.y1 <= image.y1 + 1
    assert not any(legend_box.overlaps(b) for b in boxes)
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    ticks = [t.get_window_extent(renderer) for t in labels]
    angle = labels[0].get_rotation()
    if angle == 0:
        assert not any(a.overlaps(b) for i, a in enumerate(ticks) for b in ticks[i + 1:])
    else:  # slanted labels: their boxes overlap, their lines of text must not
        line = labels[0].get_fontsize() * fig.dpi / 72.0
        gaps = [(b.x0 + b.x1 - a.x0 - a.x1) / 2 for a, b in zip(ticks, ticks[1:], strict=False)]
        assert min(gaps) * np.sin(np.radians(angle)) >= line, (angle, min(gaps), line)
    collections = [c for c in ax.collections if len(c.get_offsets())]
    if len(collections) > 1:  # scatter: marker centres at one year stay a diameter apart
        dpi = fig.dpi
        points = []
        for collection in collections:
            diameter = float(np.sqrt(collection.get_sizes()[0])) * dpi / 72.0
            for x, y in ax.transData.transform(collection.get_offsets()):
                points.append((x, y, diameter))
        by_row = sorted(points)
        for (x1, _, d1), (x2, _, d2) in zip(by_row, by_row[1:], strict=False):
            if abs(x2 - x1) < 40:  # same year
                assert x2 - x1 >= (d1 + d2) / 2, (x1, x2, d1)


@pytest.mark.parametrize("seaborn", [False, True], ids=["matplotlib", "seaborn"])
def test_matplotlib_layout_keeps_legend_and_labels_clear(seaborn: bool) -> None:
    from hopvista.render.chart_mpl import draw_matplotlib_chart

    library = "seaborn" if seaborn else "matplotlib"
    many_years = json.loads(json.dumps(CHART))
    many_years["years"] = list(range(2012, 2024))
    for series in many_years["series"]:
        series["values"] = [f"{v * 1000:,.1f}" for v in range(1, 13)]
    tiny_pie = json.loads(json.dumps(PIE))
    tiny_pie["series"][0]["values"] = ["3.0"]
    tiny_pie["series"][1]["values"] = ["4.0"]
    cases = [(CHART, k) for k in ("line", "bar", "scatter")] + [
        (many_years, "scatter"), (many_years, "bar"), (PIE, "pie"), (tiny_pie, "pie")]
    for seed in range(3):
        for chart, kind in cases:
            for names in (NAMES, LONG_NAMES):
                style = style_for(library, kind, seed=seed, legend=("right", "below")[seed % 2])
                data = ChartData.parse(chart, names, kind)
                font = fonts.resolve_font(style["font"]["family"])
                draw_matplotlib_chart(data, style, font, False, seaborn, inspect=_check_layout)


# -- fonts ---------------------------------------------------------------------------------

def test_every_fcmr_substitute_resolves_in_matplotlib_and_fontconfig() -> None:
    for font in fonts.FCMR_FONTS.values():
        resolved = fonts.resolve_font(font.family)
        assert resolved.family == font.family
        assert fonts.fontconfig_family(font.family).casefold() == font.family.casefold()
        assert not fonts.missing_glyphs(font.family, "Adams-Webster 2019 1,075.7 -85.5")
    drawn = fonts.font_manifest(f.family for f in fonts.FCMR_FONTS.values())
    assert len(drawn) == len({f.family for f in fonts.FCMR_FONTS.values()})
    assert all(e["version"] and e["version"] != "unknown" for e in drawn.values())


def test_missing_family_raises_user_error_with_the_package(
        monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tuple(f for f in fonts._faces() if "comic neue" not in f.families)
    monkeypatch.setattr(fonts, "_faces", lambda: kept)
    fonts.resolve_font.cache_clear()
    try:
        with pytest.raises(UserError, match=r"Comic Neue.*fonts-comic-neue"):
            fonts.resolve_font("Comic Neue")
    finally:
        fonts.resolve_font.cache_clear()
    with pytest.raises(UserError, match="Hopvista Missing Sans"):
        fonts.fontconfig_family("Hopvista Missing Sans")


def test_renderer_refuses_a_missing_font(renderer: ChartRenderer) -> None:
    style = style_for("matplotlib", "line", font={"requested": "Arial",
                                                  "family": "Hopvista Missing Sans"})
    with pytest.raises(UserError, match="Hopvista Missing Sans"):
        renderer.render(CHART, NAMES, style)


def test_fontconfig_refuses_an_alias() -> None:
    if fonts._fc_match("Arial")[0][0] == "Arial":
        pytest.skip("real Arial is installed here")
    with pytest.raises(UserError, match="Arial"):
        fonts.fontconfig_family("Arial")


# -- lifecycle -----------------------------------------------------------------------------

def test_renderer_must_be_open_and_can_reopen() -> None:
    charts = ChartRenderer(warm_plotly=False)
    with pytest.raises(RuntimeError, match="not open"):
        charts.render(CHART, NAMES, style_for("matplotlib", "bar"))
    with charts:
        first, _ = charts.render(CHART, NAMES, style_for("matplotlib", "bar"))
    with charts:
        again, _ = charts.render(CHART, NAMES, style_for("matplotlib", "bar"))
    assert first == again


@needs_chromium
def test_plotly_renderer_restarts_after_exit() -> None:
    charts = ChartRenderer()
    style = style_for("plotly", "line")
    with charts:
        first, _ = charts.render(CHART, NAMES, style)
    assert charts.kaleido_start_s is not None
    with charts:
        again, _ = charts.render(CHART, NAMES, style)
    assert first == again


def test_chromium_override_must_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPVISTA_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(UserError, match="HOPVISTA_CHROMIUM"):
        find_chromium()


@needs_chromium
@pytest.mark.parametrize("kind", KINDS)
def test_a_build_exports_plotly_with_kaleidos_bytes(renderer: ChartRenderer, kind: str) -> None:
    """A build draws plotly charts in a page of its table renderer's context
    (:class:`~hopvista.render.plotly_page.PlotlyPage`) instead of kaleido's own browser:
    the PNG must be kaleido's, byte for byte."""
    from hopvista.render.plotly_page import PlotlyPage
    from hopvista.render.table import TableRenderer

    style = style_for("plotly", kind)
    kaleido_png, kaleido_meta = renderer.render(chart_for(kind), NAMES, style)
    with TableRenderer() as table:
        page = PlotlyPage(table.context)
        with ChartRenderer(exporter=page.export) as charts:
            png, meta = charts.render(chart_for(kind), NAMES, style)
    assert hashlib.sha256(png).hexdigest() == hashlib.sha256(kaleido_png).hexdigest()
    assert meta == kaleido_meta


def _kaleido_browsers() -> int:
    import contextlib

    import psutil

    found = 0
    for process in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):  # a process that ended meanwhile
            found += "hopvista-kaleido-" in " ".join(process.cmdline())
    return found


@needs_chromium
def test_augment_exports_plotly_in_its_table_browser(renderer: ChartRenderer,
                                                     tmp_path: Path) -> None:
    """`gen augment`'s workers export plotly charts in a page of their table browser, as a
    build's do: kaleido's bytes, no kaleido browser of their own, only on the thread that
    drives the browser (Playwright's API belongs to it), and again after the pages are
    renewed."""
    from concurrent.futures import ThreadPoolExecutor

    from hopvista.render.item_images import RENEW_EVERY
    from hopvista.variants.maker import VariantMaker

    style = style_for("plotly", "line")
    kaleido_png, kaleido_meta = renderer.render(chart_for("line"), NAMES, style)
    before = _kaleido_browsers()
    with VariantMaker(tmp_path, seed=0) as maker:
        png, meta = maker._draw_chart(chart_for("line"), NAMES, style)
        started = _kaleido_browsers() - before
        with ThreadPoolExecutor(max_workers=1) as helper, \
                pytest.raises(RuntimeError, match="thread that shoots tables"):
            helper.submit(maker._draw_chart, chart_for("line"), NAMES, style).result()
        maker._pages.tend(RENEW_EVERY)  # a new renderer process: the plotly page opens again
        renewed, _ = maker._draw_chart(chart_for("line"), NAMES, style)
    assert png == kaleido_png
    assert meta == kaleido_meta
    assert renewed == kaleido_png
    assert started == 0
