"""Screenshot pages: an item's table (and question and chart) inside a realistic window.

:func:`page_html` renders one of the page templates of :mod:`hopvista.themes.pages` (their
contract is in that module's docstring) with autoescaping on: the question and the title are
escaped, the table panels (:func:`hopvista.render.table.render_panel`) and the theme's CSS are
trusted markup. Load the result into a sealed context (``hopvista.render.browser.new_context``)
and screenshot the element ``#hv-root``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup

from hopvista.themes.pages import page_template

__all__ = ["page_html"]

_ENV = Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)
_TEMPLATES: dict[str, Template] = {}
_DATA_PNG = re.compile(r"data:image/png;base64,[A-Za-z0-9+/]*={0,2}")


def _template(source: str) -> Template:
    compiled = _TEMPLATES.get(source)
    if compiled is None:
        compiled = _TEMPLATES[source] = _ENV.from_string(source)
    return compiled


def page_html(
    name: str,
    *,
    css: str,
    tables: Markup | Sequence[Markup],
    question: str,
    title: str,
    chart_src: str | None = None,
    width_px: int = 1100,
    texts: Sequence[dict[str, str]] = (),
) -> str:
    """The HTML of page template ``name`` showing ``tables`` (trusted panels), the passages
    ``texts`` (``{"name", "text"}``, escaped), the ``question`` (escaped) and the chart (a
    ``data:image/png;base64,`` URL, or ``None``).

    Raises ``UserError`` on an unknown template, ``ValueError`` on a chart URL that is not an
    inline PNG, a width out of [320, 4000], or CSS that could close its ``<style>``.
    """
    if chart_src is not None and not _DATA_PNG.fullmatch(chart_src):
        raise ValueError("chart_src must be a data:image/png;base64 URL")
    if not 320 <= width_px <= 4000:
        raise ValueError(f"width_px {width_px} is not in [320, 4000]")
    if "</" in css:
        raise ValueError("page CSS must not contain '</'")
    panels = tables if isinstance(tables, Markup) else Markup("\n").join(tables)
    return _template(page_template(name)).render(
        css=Markup(css), tables=panels, question=question, title=title, chart_src=chart_src,
        width_px=int(width_px), texts=list(texts),
    )
