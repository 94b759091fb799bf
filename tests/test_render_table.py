"""Table rendering through headless Chromium: themes, layout, determinism, escaping, sealing."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from hopvista.errors import UserError
from hopvista.render import browser
from hopvista.render.table import TableRenderer, parse_style, render_html
from hopvista.rng import Streams
from hopvista.themes.tables import TABLE_THEMES, sample_table_style
from tests.conftest import default_style

pytestmark = pytest.mark.slow  # renders with Chromium, matplotlib or plotly

COLUMNS = [
    ("sale", "Sales"),
    ("cogs", "Cost of Goods Sold"),
    ("dp", "Depreciation and Amortization"),
    ("ni", "Net Income"),
    ("lct", "Current Liabilities"),
    ("dltt", "Long-Term Debt"),
]
NAMES = {
    "C093": "Silva Microsystems Corporation",
    "C064": "Vazquez Technologies",
    "C013": "Adams-Webster",
}
YEARS = [2019, 2020, 2021, 2022, 2023]


def make_table(unit: str | None = "USD millions") -> dict[str, Any]:
    """3 entities x 5 years x 6 columns, values as displayed strings (format.md 2.2)."""
    columns = [{"key": k, "label": label, "unit": unit, "precision": 1} for k, label in COLUMNS]
    rows = []
    n = 0
    for entity in NAMES:
        for year in YEARS:
            values = {}
            for key, _ in COLUMNS:
                n += 1
                value = (n * 7919) % 6000 - 900
                values[key] = f"{value:,}.{n % 10}" if value >= 0 else f"-{-value:,}.{n % 10}"
            rows.append({"entity": entity, "year": year, "values": values})
    return {"entity_label": "Company", "period_label": "Year", "columns": columns, "rows": rows}


def expected_texts(table: dict[str, Any], names: dict[str, str]) -> dict[tuple[int, int], str]:
    texts = {(0, 0): table["entity_label"], (0, 1): table["period_label"]}
    for c, column in enumerate(table["columns"], start=2):
        texts[(0, c)] = column["label"]
    for r, row in enumerate(table["rows"], start=1):
        texts[(r, 0)] = names[row["entity"]]
        texts[(r, 1)] = str(row["year"])
        for c, column in enumerate(table["columns"], start=2):
            texts[(r, c)] = row["values"][column["key"]]
    return texts


def chromium_available() -> str | None:
    """None when a Chromium can be launched, else the reason (for the skip message)."""
    try:
        cands = browser.candidates()
    except UserError as exc:
        return str(exc)
    if any(c.executable for c in cands):
        return None
    return f"no Chromium on PATH and {browser.ENV_VAR} unset (a Playwright-managed one may work)"


@pytest.fixture(scope="module")
def renderer() -> Iterator[TableRenderer]:
    reason = chromium_available()
    try:
        r = TableRenderer().open()
    except UserError as exc:
        pytest.skip(f"no Chromium to render tables with: {exc} ({reason})")
    try:
        yield r
    finally:
        r.close()


def check_layout(png: bytes, layout: dict[str, Any], table: dict[str, Any]) -> None:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    assert image.size == (layout["width"], layout["height"])
    n_rows = 1 + len(table["rows"])
    n_cols = 2 + len(table["columns"])
    cells = layout["cells"]
    assert len(cells) == n_rows * n_cols
    assert [(c["row"], c["col"]) for c in cells] == [
        (r, c) for r in range(n_rows) for c in range(n_cols)
    ]
    texts = expected_texts(table, NAMES)
    for cell in cells:
        x, y, w, h = cell["box"]
        assert w > 0 and h > 0, cell
        assert x >= 0 and y >= 0, cell
        assert x + w <= layout["width"] and y + h <= layout["height"], cell
        assert cell["text"] == texts[(cell["row"], cell["col"])]
    for r in range(n_rows):
        row = [c["box"] for c in cells if c["row"] == r]
        for left, right in zip(row, row[1:], strict=False):
            assert left[0] + left[2] <= right[0], (r, left, right)  # no overlap, left to right
        assert len({(b[1], b[3]) for b in row}) == 1  # one row band
    for r in range(1, n_rows):  # rows stack downwards
        above = next(c["box"] for c in cells if c["row"] == r - 1)
        below = next(c["box"] for c in cells if c["row"] == r)
        assert above[1] + above[3] <= below[1]


@pytest.mark.parametrize("theme", TABLE_THEMES.names())
def test_every_theme_renders(renderer: TableRenderer, theme: str) -> None:
    table = make_table()
    style = default_style(theme)
    png, layout = renderer.render(table, NAMES, style)
    check_layout(png, layout, table)
    assert layout["font"] == style["font"]
    assert layout["caption"]["text"] == "USD millions"
    json.dumps(layout)  # JSON-serialisable


def test_every_theme_font_is_installed(renderer: TableRenderer) -> None:
    """Every font a theme may sample renders without fallback (install.sh installs them)."""
    table = make_table()
    for name, theme in TABLE_THEMES.items():
        for font in theme.fonts:
            _, layout = renderer.render(table, NAMES, default_style(name) | {"font": font})
            assert layout["font"] == font, (name, font)


def test_sampled_styles_render(renderer: TableRenderer) -> None:
    table = make_table()
    for index in range(6):
        style = sample_table_style(Streams(7, f"item-{index}"))
        png, layout = renderer.render(table, NAMES, style)
        check_layout(png, layout, table)


def test_same_input_same_bytes(renderer: TableRenderer) -> None:
    table = make_table()
    style = default_style("latex")
    first, layout1 = renderer.render(table, NAMES, style)
    second, layout2 = renderer.render(table, NAMES, style)
    assert first == second and layout1 == layout2
    renderer.render(table, NAMES, default_style("dark") | {"font_size_px": 20})
    renderer.render(
        make_table(unit=None), {**NAMES, "C093": "Another Name Ltd"}, default_style("excel")
    )
    third, layout3 = renderer.render(table, NAMES, style)
    assert third == first and layout3 == layout1


_CHILD = """
import hashlib, json, sys
from hopvista.render.table import TableRenderer
table, names, style = json.loads(sys.stdin.read())
with TableRenderer() as r:
    png, layout = r.render(table, names, style)
print(hashlib.sha256(png).hexdigest(), hashlib.sha256(json.dumps(layout).encode()).hexdigest())
"""


def test_same_bytes_in_another_process(renderer: TableRenderer) -> None:
    table = make_table()
    style = default_style("financial-report")
    png, layout = renderer.render(table, NAMES, style)
    result = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps([table, NAMES, style]),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    digest = hashlib.sha256(png).hexdigest()
    layout_digest = hashlib.sha256(json.dumps(layout).encode()).hexdigest()
    assert result.stdout.split() == [digest, layout_digest]


HOSTILE = [
    '<img src="http://example.com/x.png" onerror=alert(1)>',
    "<script>fetch('http://example.com/')</script>",
    '"><link rel=stylesheet href="https://example.com/a.css">',
    "</td></tr></table><iframe src=https://example.org/>",
    "{{ 7*7 }} &amp; &lt;",
]


def test_cell_text_is_escaped(renderer: TableRenderer) -> None:
    table = make_table()
    table["entity_label"] = HOSTILE[3]
    table["columns"][0]["label"] = HOSTILE[2]
    for i, text in enumerate(HOSTILE):
        table["rows"][i]["values"]["cogs"] = text
    names = {**NAMES, "C064": "<script>alert(1)</script> & Co."}
    html = render_html(table, names, default_style("web"))
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    before = len(renderer.blocked_requests)
    png, layout = renderer.render(table, names, default_style("web"))
    assert len(renderer.blocked_requests) == before  # nothing even tried to load
    texts = {(c["row"], c["col"]): c["text"] for c in layout["cells"]}
    assert texts[(0, 0)] == HOSTILE[3]
    assert texts[(0, 2)] == HOSTILE[2]
    for i, text in enumerate(HOSTILE):
        assert texts[(i + 1, 3)] == text
    assert texts[(6, 0)] == "<script>alert(1)</script> & Co."
    assert len(layout["cells"]) == 16 * 8  # the markup did not add or remove cells
    Image.open(io.BytesIO(png)).load()


# A template without the skeleton's Content-Security-Policy that loads things on purpose:
# the context's route must see and abort every one of them.
LEAKY_TEMPLATE = """<!doctype html><html><head><style>{{ css }}</style>
<link rel="stylesheet" href="https://example.com/theme.css"></head><body>
<div id="hv-root" class="hv-root"><img src="http://127.0.0.1:9/pixel.png">
<table class="hv-table"><tr>{% for c in header %}
<th data-row="{{ c.row }}" data-col="{{ c.col }}">{{ c.text }}</th>{% endfor %}</tr></table>
<iframe src="https://example.org/"></iframe></div></body></html>"""


def test_network_requests_are_blocked(renderer: TableRenderer) -> None:
    before = len(renderer.blocked_requests)
    png, layout = renderer.render(make_table(), NAMES, default_style("minimal"), LEAKY_TEMPLATE)
    attempted = renderer.blocked_requests[before:]
    assert sorted(attempted) == [
        "http://127.0.0.1:9/pixel.png",
        "https://example.com/theme.css",
        "https://example.org/",
    ]
    assert len(layout["cells"]) == 8
    Image.open(io.BytesIO(png)).load()


SCRIPTED_TEMPLATE = """<!doctype html><html><head><style>{{ css }}</style></head><body>
<div id="hv-root" class="hv-root"><table class="hv-table"><tr>{% for c in header %}
<th data-row="{{ c.row }}" data-col="{{ c.col }}">{{ c.text }}</th>{% endfor %}</tr></table>
<script>for (const c of document.querySelectorAll("[data-row]")) c.textContent = "ran";</script>
</div></body></html>"""


def test_no_script_runs_in_the_table_page_beside_a_scripted_page(
        renderer: TableRenderer) -> None:
    """The plotly page shares the table page's context (one renderer process), which allows
    scripts: the table page still runs none, before and after the plotly page runs its own."""
    import plotly.graph_objects as go

    from hopvista.render.plotly_page import PlotlyPage

    def shown() -> set[str]:
        _, layout = renderer.render(make_table(), NAMES, default_style("minimal"),
                                    SCRIPTED_TEMPLATE)
        return {c["text"] for c in layout["cells"]}

    assert "ran" not in shown()
    plotly = PlotlyPage(renderer.context)
    try:
        figure = go.Figure([go.Bar(x=[2021, 2022], y=[1, 2])]).to_plotly_json()
        png = plotly.export(figure, 320, 240, "png")  # its inline scripts run
        assert Image.open(io.BytesIO(png)).size == (320, 240)
        assert "ran" not in shown()
    finally:
        plotly.close()


def test_the_plotly_page_reads_its_scripts_and_nothing_else(renderer: TableRenderer) -> None:
    """The plotly page is a ``file:`` document whose two scripts Chromium reads from the
    installed packages; everything else it asks for (a file of the machine, a web image, its
    own script names once loaded) is aborted and listed."""
    import plotly.graph_objects as go

    from hopvista.render.plotly_page import PAGE_ROOT, PlotlyPage

    before = len(renderer.blocked_requests)
    plotly = PlotlyPage(renderer.context)
    try:
        assert renderer.blocked_requests[before:] == []  # its page and scripts were served
        image = {"xref": "paper", "yref": "paper", "x": 0, "y": 1, "sizex": 0.5, "sizey": 0.5}
        figure = go.Figure([go.Bar(x=[2021, 2022], y=[1, 2])], layout={"images": [
            image | {"source": "file:///etc/hostname"}]}).to_plotly_json()
        png = plotly.export(figure, 320, 240, "png")
        assert Image.open(io.BytesIO(png)).size == (320, 240)
        assert renderer.blocked_requests[before:] == ["file:///etc/hostname"]
        page = next(p for p in renderer.context.pages if p.url.startswith(PAGE_ROOT))
        fetched = page.evaluate("(url) => fetch(url).then(r => r.text(), e => 'failed')",
                                PAGE_ROOT + "plotly.min.js")
        assert fetched == "failed"
        assert renderer.blocked_requests[-1] == PAGE_ROOT + "plotly.min.js"
    finally:
        plotly.close()
        renderer.bring_to_front()


def test_collecting_garbage_shrinks_the_shared_heap(renderer: TableRenderer) -> None:
    """The plotly page's garbage lives in the renderer process the table page shares:
    :meth:`TableRenderer.collect_garbage` frees it, and both pages work on."""
    import plotly.graph_objects as go

    from hopvista.render.plotly_page import PlotlyPage

    plotly = PlotlyPage(renderer.context)
    try:
        probe = renderer.context.new_cdp_session(renderer.context.pages[0])  # the table page
        for k in range(12):
            figure = go.Figure([go.Bar(x=list(range(40)), y=[k + i for i in range(40)])])
            plotly.export(figure.to_plotly_json(), 640, 480, "png")
        used = probe.send("Runtime.getHeapUsage")["usedSize"]
        renderer.collect_garbage()
        assert probe.send("Runtime.getHeapUsage")["usedSize"] < used
        probe.detach()
        png = plotly.export(go.Figure([go.Bar(x=[1], y=[1])]).to_plotly_json(), 320, 240, "png")
        assert Image.open(io.BytesIO(png)).size == (320, 240)
    finally:
        plotly.close()
        renderer.bring_to_front()
    png, layout = renderer.render(make_table(), NAMES, default_style("minimal"))
    check_layout(png, layout, make_table())


def test_missing_font_is_an_error(renderer: TableRenderer) -> None:
    with pytest.raises(UserError, match="No Such Family"):
        renderer.render(make_table(), NAMES, default_style("web") | {"font": "No Such Family"})
    # fontconfig aliases are fallbacks too: ask for the real family (Liberation Sans)
    with pytest.raises(UserError, match="Liberation Sans"):
        renderer.render(make_table(), NAMES, default_style("web") | {"font": "Arial"})


def test_glyph_fallback_is_an_error(renderer: TableRenderer) -> None:
    names = {**NAMES, "C013": "Adams-Webster \u5317\u4eac"}  # CJK: not in CMU Serif
    with pytest.raises(UserError, match="fell back"):
        renderer.render(make_table(), names, default_style("latex"))
    renderer.render(make_table(), NAMES, default_style("latex"))  # and the page still works


def test_a_fallback_in_one_row_of_a_table_otherwise_verified_is_an_error(
        renderer: TableRenderer) -> None:
    # The first table verifies every character it shows in this theme; the second shows a
    # new one in its last row only, beside rows with other new characters: still checked.
    renderer.render(make_table(), NAMES, default_style("web"))
    table = make_table()
    table["rows"][0]["values"][COLUMNS[0][0]] = "Qz 12"
    table["rows"][-1]["values"][COLUMNS[-1][0]] = "7 \u5317"
    with pytest.raises(UserError, match="fell back"):
        renderer.render(table, NAMES, default_style("web"))
    table["rows"][-1]["values"][COLUMNS[-1][0]] = "7 Jx"
    renderer.render(table, NAMES, default_style("web"))  # and the new letters are fine


def test_few_rows_cover_every_new_character() -> None:
    from hopvista.render.table import _covering
    shown = {1: {"a", "b"}, 2: {"b", "c", "d"}, 3: {"d"}, 4: {"e"}, 5: set()}
    chosen = _covering(shown)
    assert set().union(*(shown[k] for k in chosen)) == {"a", "b", "c", "d", "e"}
    assert chosen == {1, 2, 4}
    assert _covering({}) == set() and _covering({7: set()}) == set()


def test_units_in_headers_when_they_differ(renderer: TableRenderer) -> None:
    table = make_table()
    table["columns"][1]["unit"] = "%"
    _, layout = renderer.render(table, NAMES, default_style("excel"))
    assert layout["caption"] is None
    texts = {(c["row"], c["col"]): c["text"] for c in layout["cells"]}
    assert texts[(0, 2)] == "Sales (USD millions)"
    assert texts[(0, 3)] == "Cost of Goods Sold (%)"


def test_device_scale_factor_scales_the_layout() -> None:
    if chromium_available() is not None:
        pytest.skip(f"no Chromium: {chromium_available()}")
    table = make_table()
    style = default_style("compact")
    with TableRenderer() as one, TableRenderer(device_scale_factor=2) as two:
        _, small = one.render(table, NAMES, style)
        png, large = two.render(table, NAMES, style)
    assert abs(large["width"] - 2 * small["width"]) <= 2
    assert Image.open(io.BytesIO(png)).size == (large["width"], large["height"])
    for a, b in zip(small["cells"], large["cells"], strict=True):
        assert all(abs(2 * u - v) <= 2 for u, v in zip(a["box"], b["box"], strict=True))


def test_the_browser_runs_only_the_pages_it_is_given(renderer: TableRenderer) -> None:
    """New headless is the full browser: left alone it starts two omnibox-popup WebUI
    renderers per context (~100 MB a browser). Every target is a page we opened."""
    renderer.render(make_table(), NAMES, default_style("latex"))
    session = renderer.context.browser.new_browser_cdp_session()
    try:
        targets = session.send("Target.getTargets")["targetInfos"]
    finally:
        session.detach()
    assert [t["type"] for t in targets] == ["page"], targets


def test_the_driver_gets_its_node_options_and_the_users_come_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NODE_OPTIONS", "--max-old-space-size=512")
    with browser._driver_options():
        assert os.environ["NODE_OPTIONS"] == (
            f"{browser.DRIVER_NODE_OPTIONS} --max-old-space-size=512")
    assert os.environ["NODE_OPTIONS"] == "--max-old-space-size=512"
    monkeypatch.delenv("NODE_OPTIONS")
    with pytest.raises(RuntimeError), browser._driver_options():
        assert os.environ["NODE_OPTIONS"] == browser.DRIVER_NODE_OPTIONS
        raise RuntimeError("the driver failed to start")
    assert "NODE_OPTIONS" not in os.environ


def test_a_chromium_that_crashes_while_starting_is_tried_once_more() -> None:
    from playwright.sync_api import Error as PlaywrightError

    crash = "BrowserType.launch: Target page, context or browser has been closed"

    class Chromium:
        def __init__(self, failures: int) -> None:
            self.failures, self.calls = failures, 0

        def launch(self, **options: object) -> str:
            self.calls += 1
            if self.calls <= self.failures:
                raise PlaywrightError(crash)
            return "browser"

    class Playwright:
        def __init__(self, failures: int) -> None:
            self.chromium = Chromium(failures)

    once = Playwright(1)
    assert browser.launch_browser(once) == "browser"  # type: ignore[arg-type]
    assert once.chromium.calls == 2
    always = Playwright(10**6)
    with pytest.raises(UserError, match="has been closed"):
        browser.launch_browser(always)  # type: ignore[arg-type]
    assert always.chromium.calls == 2 * len(browser.candidates())


def test_bogus_chromium_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPVISTA_CHROMIUM", "/nonexistent/chromium-for-test")
    with pytest.raises(UserError, match="HOPVISTA_CHROMIUM"):
        TableRenderer().open()
    with pytest.raises(UserError, match="HOPVISTA_CHROMIUM"):
        browser.chromium_version()
    with pytest.raises(UserError, match="HOPVISTA_CHROMIUM"):
        browser.find_chromium()


def test_env_var_pointing_at_a_non_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    false = shutil.which("false")
    if false is None:
        pytest.skip("no 'false' executable")
    monkeypatch.setenv("HOPVISTA_CHROMIUM", false)
    with pytest.raises(UserError, match="HOPVISTA_CHROMIUM"):
        TableRenderer(timeout_ms=20_000).open()


def test_env_var_override_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    found = next((c.executable for c in browser.candidates() if c.executable), None)
    if found is None:
        pytest.skip("no Chromium executable to point HOPVISTA_CHROMIUM at")
    monkeypatch.setenv("HOPVISTA_CHROMIUM", found)
    assert browser.candidates() == [browser.Candidate(found, f"HOPVISTA_CHROMIUM={found}")]
    assert browser.find_chromium() == found
    assert browser.chromium_version().split(".")[0].isdigit()


def test_renderer_refuses_a_forked_copy(renderer: TableRenderer) -> None:
    pid = renderer._pid
    renderer._pid = -1  # what a child process would see after fork
    try:
        with pytest.raises(RuntimeError, match="fork"):
            renderer.render(make_table(), NAMES, default_style("web"))
    finally:
        renderer._pid = pid


_INHERITED: list[TableRenderer] = []


def _render_in_child() -> tuple[str, str]:
    try:
        _INHERITED[0].render(make_table(), NAMES, default_style("web"))
        inherited = "used the parent's browser"
    except RuntimeError:
        inherited = "refused"
    with TableRenderer() as own:
        png, _ = own.render(make_table(), NAMES, default_style("web"))
    return inherited, hashlib.sha256(png).hexdigest()


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_forked_worker_makes_its_own_renderer(renderer: TableRenderer) -> None:
    import multiprocessing

    png, _ = renderer.render(make_table(), NAMES, default_style("web"))
    _INHERITED[:] = [renderer]  # reaches the child through fork, not pickling
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            inherited, digest = pool.apply(_render_in_child)
    finally:
        _INHERITED.clear()
    assert inherited == "refused"
    assert digest == hashlib.sha256(png).hexdigest()
    again, _ = renderer.render(make_table(), NAMES, default_style("web"))  # parent unharmed
    assert again == png


def test_sample_table_style_is_deterministic() -> None:
    draws = [sample_table_style(Streams(3, f"item-{i}")) for i in range(200)]
    again = [sample_table_style(Streams(3, f"item-{i}")) for i in range(200)]
    assert draws == again
    assert {d["theme"] for d in draws} == set(TABLE_THEMES.names())
    for style in draws:
        json.dumps(style)
        theme = TABLE_THEMES.get(style["theme"])
        assert style["font"] in theme.fonts
        assert theme.font_size_px[0] <= style["font_size_px"] <= theme.font_size_px[1]
        assert style["accent"] in theme.accents
        assert parse_style(style).theme is theme
        assert all(type(v) in (str, int) for v in style.values())
    assert sample_table_style(Streams(3, "x", "v")) != sample_table_style(Streams(3, "x"))


def test_at_least_ten_themes_with_css() -> None:
    assert len(TABLE_THEMES.names()) >= 10
    for _, theme in TABLE_THEMES.items():
        css = theme.stylesheet()
        assert "--hv-bg" in css and "font-family" not in css and "</" not in css
        assert theme.description and theme.fonts


@pytest.mark.parametrize(
    "bad",
    [
        {"theme": "nope"},
        {"theme": "web", "font": 'Arial"; } body { background: url(http://x/)'},
        {"theme": "web", "accent": "red; background: url(x)"},
        {"theme": "web", "font_size_px": "14px"},
        {"theme": "web", "padding_y_px": 1000},
    ],
)
def test_parse_style_rejects(bad: dict[str, Any]) -> None:
    with pytest.raises(UserError):
        parse_style(bad)


def test_no_fixed_machine_path() -> None:
    with open(browser.__file__, encoding="utf-8") as handle:
        source = handle.read()
    assert "/usr/bin" not in source
    assert os.environ.get("HOPVISTA_CHROMIUM") is None or browser.candidates()


def test_table_larger_than_the_viewport() -> None:
    if chromium_available() is not None:
        pytest.skip(f"no Chromium: {chromium_available()}")
    columns = [
        {"key": f"k{i}", "label": f"Column number {i}", "unit": "USD", "precision": 1}
        for i in range(12)
    ]
    names = {f"E{i}": f"Entity {i} Holdings International" for i in range(10)}
    rows = [
        {
            "entity": e,
            "year": y,
            "values": {c["key"]: f"{i * j:,}.5" for j, c in enumerate(columns)},
        }
        for i, e in enumerate(names)
        for y in range(2010, 2020)
    ]
    table = {"entity_label": "Company", "period_label": "Year", "columns": columns, "rows": rows}
    with TableRenderer(viewport=(640, 480)) as small:
        png, layout = small.render(table, names, default_style("excel"))
    assert layout["width"] > 640 and layout["height"] > 480
    assert Image.open(io.BytesIO(png)).size == (layout["width"], layout["height"])
    assert len(layout["cells"]) == 101 * 14
    last = layout["cells"][-1]["box"]
    assert last[0] + last[2] <= layout["width"] and last[1] + last[3] <= layout["height"]
    assert layout["width"] - (last[0] + last[2]) < 20  # the table reaches the right edge


def test_no_chromium_anywhere_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOPVISTA_CHROMIUM", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert browser.candidates() == [browser.Candidate(None, "Playwright-managed Chromium")]
    assert browser.find_chromium() is None
    try:
        version = browser.chromium_version()
    except UserError as exc:
        assert "HOPVISTA_CHROMIUM" in str(exc) and "playwright install" in str(exc)
    else:  # a Playwright-managed Chromium is installed: that is the last resort, and it works
        assert version.split(".")[0].isdigit()


def test_spreadsheet_decor_is_drawn_but_not_in_the_layout(renderer: TableRenderer) -> None:
    """excel draws column letters and row numbers around the cells; the layout lists the
    table's own cells only, and the caption (the sheet's title row) is still reported."""
    table = make_table()
    html = render_html(table, NAMES, default_style("excel"))
    n_cols = 2 + len(table["columns"])
    letters = [chr(ord("A") + i) for i in range(n_cols)]
    assert html.count('data-decor="column-letter"') == n_cols
    assert html.count('data-decor="row-number"') == 2 + len(table["rows"])  # title + header
    for letter in letters:
        assert f'data-decor="column-letter">{letter}</th>' in html
    png, layout = renderer.render(table, NAMES, default_style("excel"))
    check_layout(png, layout, table)
    caption = layout["caption"]
    assert caption["text"] == "USD millions"
    first = next(c for c in layout["cells"] if (c["row"], c["col"]) == (0, 0))
    # the letters band is above the title, the title above the header; row numbers to the left
    assert caption["box"][1] > 8 and caption["box"][1] + caption["box"][3] <= first["box"][1]
    assert first["box"][0] > 2 * style_margin("excel")
    # a theme without decor draws none
    assert "hv-decor" not in render_html(table, NAMES, default_style("web"))


def style_margin(theme: str) -> int:
    return int(default_style(theme)["margin_px"])


def test_glyph_fallback_in_a_header_label_or_a_decor_cell_is_an_error(
        renderer: TableRenderer) -> None:
    table = make_table()
    table["entity_label"] = "Company \u5317"  # inside the header's label span
    with pytest.raises(UserError, match="fell back"):
        renderer.render(table, NAMES, default_style("excel"))
    from hopvista.themes.tables.files import skeleton
    marked = skeleton().replace("{{ letter }}</th>", "{{ letter }}\u5317</th>")
    assert marked != skeleton()
    with pytest.raises(UserError, match="fell back"):
        renderer.render(make_table(), NAMES, default_style("excel"), template=marked)
    renderer.render(make_table(), NAMES, default_style("excel"))  # and the page still works


def test_column_letters() -> None:
    from hopvista.render.table import column_letter
    assert [column_letter(i) for i in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == [
        "A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]


class _FailingShots:
    """A CDP session whose first ``failures`` screenshots fail as Chromium's do when its
    compositor gives no frame; everything else goes to the real session."""

    def __init__(self, real: Any, failures: int) -> None:
        self.real, self.failures, self.shots = real, failures, 0

    def send(self, method: str, params: Any = None) -> Any:
        if method == "Page.captureScreenshot":
            self.shots += 1
            if self.shots <= self.failures:
                from playwright.sync_api import Error
                raise Error("Protocol error (Page.captureScreenshot): Unable to capture "
                            "screenshot")
        return self.real.send(method, params)


@pytest.mark.parametrize("failures", [1, 2])
def test_a_shot_the_compositor_drops_is_taken_again(
        renderer: TableRenderer, monkeypatch: pytest.MonkeyPatch, failures: int) -> None:
    expected = renderer.render(make_table(), NAMES, default_style("web"))
    failing = _FailingShots(renderer._cdp, failures)
    monkeypatch.setattr(renderer, "_cdp", failing)
    assert renderer.render(make_table(), NAMES, default_style("web")) == expected
    assert failing.shots == failures + 1


def test_a_shot_that_keeps_failing_is_an_error(
        renderer: TableRenderer, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import Error

    from hopvista.render.table import CAPTURE_ATTEMPTS
    failing = _FailingShots(renderer._cdp, CAPTURE_ATTEMPTS)
    monkeypatch.setattr(renderer, "_cdp", failing)
    with pytest.raises(Error, match="Unable to capture"):
        renderer.render(make_table(), NAMES, default_style("web"))
    assert failing.shots == CAPTURE_ATTEMPTS
    monkeypatch.undo()
    renderer.render(make_table(), NAMES, default_style("web"))  # and the page still works


def test_a_new_document_is_loaded_every_so_many_tables(
        renderer: TableRenderer, monkeypatch: pytest.MonkeyPatch) -> None:
    import hopvista.render.table as table_module

    monkeypatch.setattr(table_module, "PAGES_PER_DOCUMENT", 2)
    page = renderer.context.pages[0]
    blank: list[str] = []

    def navigated(frame: Any) -> None:
        if frame.url == "about:blank":
            blank.append(frame.url)

    page.on("framenavigated", navigated)
    try:
        shots = [renderer.render(make_table(), NAMES, default_style("web")) for _ in range(6)]
    finally:
        page.remove_listener("framenavigated", navigated)
    assert len(blank) >= 2
    assert all(shot == shots[0] for shot in shots)
