"""Screenshot page templates: discovery, the contract, and each window drawn in a sealed
Chromium (non-blank, the question escaped and shown, the table in it, nothing loaded, no font
fallback)."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from typing import Any

import pytest
from markupsafe import Markup
from PIL import Image

from hopvista.errors import UserError
from hopvista.render.page import page_html
from hopvista.render.table import parse_style, render_panel
from hopvista.themes.fonts import is_system_face
from hopvista.themes.pages import PAGE_TEMPLATES, page_names, page_template, read_page
from tests.conftest import default_style

QUESTION = ('Did Adams-Webster report a higher Net Income in 2021 than in 2020? '
            '<img src="https://example.com/x.png"> <b>bold</b> & {{ 7*7 }}')
TABLE = {
    "entity_label": "Company", "period_label": "Year",
    "columns": [{"key": "ni", "label": "Net Income", "unit": "USD millions", "precision": 1},
                {"key": "sale", "label": "Sales", "unit": "USD millions", "precision": 1}],
    "rows": [{"entity": "C1", "year": y, "values": {"ni": f"{y - 1900}.5", "sale": f"1,{y}.0"}}
             for y in (2020, 2021, 2022)],
}
NAMES = {"C1": "Adams-Webster"}


def _chart() -> str:
    image = Image.new("RGB", (120, 80), (255, 255, 255))
    for x in range(20, 100):
        for y in range(30, 70):
            image.putpixel((x, y), (31, 119, 180))
    data = io.BytesIO()
    image.save(data, format="PNG")
    return "data:image/png;base64," + base64.b64encode(data.getvalue()).decode("ascii")


def _html(name: str, theme: str = "excel", chart: bool = True) -> str:
    style = default_style(theme)
    return page_html(name, css=parse_style(style).css(), tables=render_panel(TABLE, NAMES, style),
                     question=QUESTION, title="Company figures", width_px=900,
                     chart_src=_chart() if chart else None)


def test_there_are_the_four_windows() -> None:
    assert {"browser", "spreadsheet", "pdf", "chat"} <= set(page_names())
    for name in page_names():
        page = PAGE_TEMPLATES.get(name)
        assert page_template(name) == page.source and page.origin.endswith(".html.j2")
        assert page.fonts and page.description
    with pytest.raises(UserError, match="unknown page template"):
        page_template("no-such-window")


@pytest.mark.parametrize("name", page_names())
def test_a_page_escapes_the_question_and_holds_the_table(name: str) -> None:
    html = _html(name)
    assert "&lt;img src=&#34;https://example.com/x.png&#34;&gt;" in html
    assert "<img src=\"https://example.com" not in html and "<b>bold" not in html
    assert "{{ 7*7 }}" in html  # the question is data, never a template
    assert html.count("data-row=") == 4 * (1 + 3)  # 4 columns x (header + 3 rows)
    assert 'id="hv-root"' in html and html.count('id="hv-root"') == 1
    assert "http-equiv=\"Content-Security-Policy\"" in html
    assert "<script" not in page_template(name) and "url(http" not in page_template(name)
    assert "data:image/png;base64," in html
    assert "data:image/png" not in _html(name, chart=False)


def test_page_html_refuses_what_the_contract_forbids() -> None:
    panel = render_panel(TABLE, NAMES, default_style("web"))
    with pytest.raises(ValueError, match="chart_src"):
        page_html("browser", css="", tables=panel, question="q", title="t",
                  chart_src="https://example.com/chart.png")
    with pytest.raises(ValueError, match="</"):
        page_html("browser", css="a{}</style><script>", tables=panel, question="q", title="t")
    many = page_html("pdf", css="", tables=[panel, Markup("<div class='x'></div>")],
                     question="q", title="t")
    assert "<div class='x'></div>" in many


@pytest.mark.parametrize(("text", "field"), [
    ("<html></html>", "hopvista-page"),
    ("{#- hopvista-page\nname: Bad Name\ndescription: d\nfonts: [Noto Sans]\n-#}", "name"),
    ("{#- hopvista-page\nname: ok\ndescription: d\nfonts: []\n-#}", "fonts"),
    ("{#- hopvista-page\nname: ok\ndescription: d\nfonts: [Noto Sans]\nicons: yes\n-#}",
     "icons"),
])
def test_a_malformed_page_front_matter_is_one_line(text: str, field: str) -> None:
    with pytest.raises(UserError) as error:
        read_page(text, "pages/x.html.j2")
    message = str(error.value)
    assert "\n" not in message and "pages/x.html.j2" in message and field in message


# --- drawn in Chromium ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def sealed(chromium: Any) -> Iterator[tuple[Any, list[str]]]:
    from hopvista.render.browser import new_context

    requests: list[str] = []
    context = new_context(chromium, viewport=(1400, 900), on_request=requests.append)
    page = context.new_page()
    yield page, requests
    context.close()


def _texts_and_fonts(page: Any) -> tuple[list[str], dict[str, int], set[str]]:
    """Every text node under #hv-root, the families Chromium drew with (glyph counts) and
    the faces' PostScript names."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]
        texts: list[str] = []

        def walk(node: dict[str, Any]) -> None:
            if node.get("nodeType") == 3:
                texts.append(node.get("nodeValue", ""))
            for child in node.get("children", []):
                walk(child)

        walk(root)
        ids = cdp.send("DOM.querySelectorAll",
                       {"nodeId": root["nodeId"], "selector": "#hv-root, #hv-root *"})["nodeIds"]
        families: dict[str, int] = {}
        faces: set[str] = set()
        for node_id in ids:
            for usage in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node_id})["fonts"]:
                family = str(usage["familyName"])
                families[family] = families.get(family, 0) + int(usage["glyphCount"])
                faces.add(str(usage.get("postScriptName") or ""))
        return texts, families, faces
    finally:
        cdp.detach()


@pytest.mark.slow
@pytest.mark.parametrize("name", page_names())
def test_each_window_draws_sealed_and_without_font_fallback(
        sealed: tuple[Any, list[str]], name: str) -> None:
    page, requests = sealed
    requests.clear()
    theme = "latex" if name == "pdf" else "excel"
    style = default_style(theme)
    page.goto("about:blank")
    page.set_content(_html(name, theme), wait_until="load")
    png = page.locator("#hv-root").screenshot()
    image = Image.open(io.BytesIO(png)).convert("L")
    assert image.width >= 900 and image.height >= 300
    low, high = image.getextrema()
    assert high - low > 150  # not blank
    assert len(image.resize((64, 32)).getcolors(4096) or []) > 8  # not a flat fill
    texts, families, faces = _texts_and_fonts(page)
    assert QUESTION in texts  # one text node: shown as text, never parsed as markup
    assert "Adams-Webster" in texts and "Net Income" in texts and "1,2021.0" in texts
    assert requests == [], requests  # the hostile <img> stayed text; the chart is inline
    allowed = {f.casefold() for f in (*PAGE_TEMPLATES.get(name).fonts, style["font"])}
    fallback = {f: n for f, n in families.items() if f.casefold() not in allowed}
    assert not fallback, f"{name}: Chromium fell back to {fallback}"
    assert all(is_system_face(face) for face in faces if face), faces
