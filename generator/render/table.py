"""Tables to PNG: Jinja2 HTML + theme CSS, rendered by headless Chromium through Playwright.

:class:`TableRenderer` owns one Playwright instance, one browser, one context and one page and
reuses them for every image (a fresh browser per image costs about six times as much). Each
worker process owns one renderer, created *after* any ``fork`` and used from one thread.

The input is the item's ``inputs.table`` object (docs/format.md, section 2.2), the display
names of its entities and a style (``hopvista.themes.tables.sample_table_style``). Cell text
is untrusted: the skeleton is rendered with autoescaping on, the page runs no JavaScript, a
Content-Security-Policy forbids every load, and the browser context aborts every request.

Determinism: the same table, names, style and template give the same PNG bytes, in any order
and in any process, for a given Chromium build, font set and fontconfig configuration. A
change of any of these may change pixels; record :attr:`TableRenderer.chromium_version`.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, cast

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page, Playwright
from playwright.sync_api import Error as PlaywrightError

from hopvista.errors import UserError
from hopvista.render.browser import (
    acquire_playwright,
    candidates,
    chromium_version,
    launch_browser,
    new_context,
    no_scripts,
    release_playwright,
)
from hopvista.render.png import png_size
from hopvista.themes.fonts import fontconfig_file, is_system_face
from hopvista.themes.tables import Theme, get_theme
from hopvista.themes.tables.files import skeleton

__all__ = ["TableRenderer", "TableStyle", "column_letter", "parse_style", "render_html",
           "render_panel"]

_FONT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}")
_COLOUR = re.compile(r"#[0-9A-Fa-f]{6}")
#: How many times a shot is tried when Chromium's compositor gives it no frame.
CAPTURE_ATTEMPTS = 3
#: Tables shown in one document before a new one is loaded: a renderer process whose document
#: was reused for every table grew by ~12 MB over 1,200 items; with a new document every 100
#: tables it stayed within its noise (±5 MB).
PAGES_PER_DOCUMENT = 100

# Integer style keys: (default, lowest, highest).
_INT_KEYS: dict[str, tuple[int, int, int]] = {
    "font_size_px": (14, 6, 72),
    "padding_y_px": (5, 0, 48),
    "padding_x_px": (10, 0, 64),
    "margin_px": (14, 0, 128),
    "header_max_em": (12, 3, 100),
}

_BASE_CSS = """
html, body { margin: 0; padding: 0; background: var(--hv-bg, #ffffff); }
body { padding: 0 2px 2px 0; }
.hv-root {
  display: block; width: fit-content; box-sizing: border-box;
  padding: var(--hv-margin); background: var(--hv-bg, #ffffff); color: #000000;
  font-size: var(--hv-size); line-height: 1.3;
}
.hv-root * { font-family: inherit; }
.hv-table { border-collapse: collapse; border-spacing: 0; font-size: inherit; }
.hv-caption { caption-side: top; padding: 0 0 0.4em 0; font-size: 0.95em; white-space: nowrap; }
.hv-table th, .hv-table td {
  padding: var(--hv-pad-y) var(--hv-pad-x); white-space: nowrap; vertical-align: bottom;
}
/* A cell spanning rows or columns is set as documents set it: centred on its span (a label
   at the bottom of its rows would read as the last row's). */
.hv-table td[rowspan], .hv-table th[rowspan] { vertical-align: middle; }
.hv-table th[colspan] { text-align: center; }
.hv-head .hv-label { display: inline-block; max-width: var(--hv-head-max); white-space: normal; }
.hv-entity { text-align: left; }
.hv-period { text-align: center; }
.hv-num { text-align: right; font-variant-numeric: tabular-nums lining-nums; }
"""


@dataclass(frozen=True)
class TableStyle:
    """A validated table style: the theme and the values its CSS custom properties get."""

    theme: Theme
    font: str
    font_size_px: int
    padding_y_px: int
    padding_x_px: int
    margin_px: int
    header_max_em: int
    accent: str

    def css(self) -> str:
        """The page's CSS: base rules, the style's custom properties, the theme, the font."""
        variables = (
            f':root {{ --hv-font: "{self.font}"; --hv-size: {self.font_size_px}px; '
            f"--hv-pad-y: {self.padding_y_px}px; --hv-pad-x: {self.padding_x_px}px; "
            f"--hv-margin: {self.margin_px}px; --hv-head-max: {self.header_max_em}em; "
            f"--hv-accent: {self.accent}; }}"
        )
        font = f'.hv-root {{ font-family: "{self.font}"; }}'
        text = "\n".join([variables, _BASE_CSS, self.theme.stylesheet(), font])
        if "</" in text:  # the CSS is inlined in <style>; it must not be able to close it
            raise ValueError(f"theme {self.theme.name!r}: CSS must not contain '</'")
        return text


def parse_style(style: Mapping[str, Any]) -> TableStyle:
    """Validate a style dict (``sample_table_style``'s keys) and fill in defaults.

    ``theme`` is required; ``font`` defaults to the theme's first font. Unknown keys are
    ignored. Raises ``UserError`` on an unknown theme or a malformed value.
    """
    name = style.get("theme")
    if not isinstance(name, str):
        raise UserError(f"table style: theme {name!r} is not a name")
    theme = get_theme(name)
    font = style.get("font", theme.fonts[0])
    if not isinstance(font, str) or not _FONT_NAME.fullmatch(font):
        raise UserError(f"table style: font {font!r} is not a plain font family name")
    accent = style.get("accent", theme.accents[0])
    if not isinstance(accent, str) or not _COLOUR.fullmatch(accent):
        raise UserError(f"table style: accent {accent!r} is not a #rrggbb colour")
    numbers: dict[str, int] = {}
    for key, (default, low, high) in _INT_KEYS.items():
        value = style.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise UserError(f"table style: {key} must be an integer in [{low}, {high}]: {value!r}")
        numbers[key] = value
    return TableStyle(theme=theme, font=font, accent=accent, **numbers)


# --- HTML -----------------------------------------------------------------------------------

_ENV = Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)
_TEMPLATES: dict[str, Template] = {}


def _template(source: str | None) -> Template:
    text = skeleton() if source is None else source
    compiled = _TEMPLATES.get(text)
    if compiled is None:
        if len(_TEMPLATES) > 64:
            _TEMPLATES.clear()
        compiled = _TEMPLATES[text] = _ENV.from_string(text)
    return compiled


def _context(table: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """The skeleton's variables: caption, header cells and body rows (each cell with row/col)."""
    try:
        columns: Sequence[Mapping[str, Any]] = table["columns"]
        rows: Sequence[Mapping[str, Any]] = table["rows"]
        entity_label = str(table["entity_label"])
        period_label = table["period_label"]
    except KeyError as exc:
        raise ValueError(f"table is missing {exc.args[0]!r}") from None
    units = {str(c.get("unit") or "") for c in columns}
    shared = units.pop() if len(units) == 1 else None
    caption = shared or None

    def label(column: Mapping[str, Any]) -> str:
        text = str(column["label"])
        unit = str(column.get("unit") or "")
        return text if shared is not None or not unit else f"{text} ({unit})"

    # A domain without a period axis has no period column (its one period is never shown).
    first = 1 if period_label is None else 2
    period_format = str(table.get("period_format") or "{}")
    header = [{"row": 0, "col": 0, "kind": "entity", "text": entity_label}]
    if period_label is not None:
        header.append({"row": 0, "col": 1, "kind": "period", "text": str(period_label)})
    header += [{"row": 0, "col": first + i, "kind": "num", "text": label(c)}
               for i, c in enumerate(columns)]
    body: list[dict[str, Any]] = []
    for r, row in enumerate(rows, start=1):
        entity = row["entity"]
        if entity not in names:
            raise ValueError(f"no display name for entity {entity!r}")
        values: Mapping[str, Any] = row["values"]
        cells = [{"row": r, "col": 0, "kind": "entity", "text": str(names[entity])}]
        if period_label is not None:
            cells.append({"row": r, "col": 1, "kind": "period",
                          "text": period_format.replace("{}", str(row["year"]))})
        for i, column in enumerate(columns):
            key = column["key"]
            if key not in values:
                raise ValueError(f"row {r} ({entity}, {row['year']}) has no value for {key!r}")
            value = values[key]
            text = "" if value is None else str(value)
            cells.append({"row": r, "col": first + i, "kind": "num", "text": text})
        previous = rows[r - 2]["entity"] if r > 1 else None
        following = rows[r]["entity"] if r < len(rows) else None
        body.append(
            {"cells": cells, "group_start": previous != entity, "group_end": following != entity}
        )
    letters = [column_letter(i) for i in range(len(header))]
    return {"caption": caption, "header": header, "rows": body, "column_letters": letters}


def column_letter(index: int) -> str:
    """The spreadsheet name of column ``index`` (0 = ``A``, 25 = ``Z``, 26 = ``AA``, ...)."""
    if index < 0:
        raise ValueError(f"column index {index} < 0")
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def render_html(
    table: Mapping[str, Any],
    names: Mapping[str, str],
    style: Mapping[str, Any] | TableStyle,
    template: str | None = None,
) -> str:
    """The HTML page of a table (what :meth:`TableRenderer.render` loads into Chromium).

    ``template`` is Jinja2 source replacing the default skeleton; it is rendered with
    autoescaping on and gets ``css`` (trusted markup), ``theme``, ``font``, ``caption``,
    ``header`` (cells) and ``rows`` (each with ``cells``, ``group_start``, ``group_end``); a cell
    has ``row``, ``col``, ``kind`` (``entity`` / ``period`` / ``num``) and ``text``. It also gets
    ``decor`` (the theme's :attr:`~hopvista.themes.tables.Theme.decor` list: ``column-letters``,
    ``row-numbers``), ``column_letters`` (``A``, ``B``, ... for each column) and ``panel``
    (false here; :func:`render_panel` sets it to get the table alone). It must put the
    table inside an element with ``id="hv-root"`` (what the screenshot shows) and give every
    table cell ``data-row`` / ``data-col`` attributes, and no other element: decor (column
    letters, row numbers) has none, so the layout lists the table's cells only. The caption is
    a ``<caption>`` or any element with a ``data-caption`` attribute (a sheet's title row).
    """
    parsed = style if isinstance(style, TableStyle) else parse_style(style)
    variables = _context(table, names)
    return _template(template).render(
        css=Markup(parsed.css()), theme=parsed.theme.name, font=parsed.font,
        decor=list(parsed.theme.decor), panel=False, **variables
    )


def render_panel(
    table: Mapping[str, Any], names: Mapping[str, str], style: Mapping[str, Any] | TableStyle
) -> Markup:
    """The table alone, for a page template (``hopvista.themes.pages``): the default
    skeleton's ``div.hv-root`` (without its ``id``) as trusted markup. The page needs the
    style's CSS too: ``parse_style(style).css()``."""
    parsed = style if isinstance(style, TableStyle) else parse_style(style)
    variables = _context(table, names)
    return Markup(_template(None).render(
        css="", theme=parsed.theme.name, font=parsed.font, decor=list(parsed.theme.decor),
        panel=True, **variables
    ).strip())


# --- Layout from a DOM snapshot -------------------------------------------------------------


@dataclass
class _Element:
    name: str
    attrs: dict[str, str]
    bounds: tuple[float, float, float, float] | None
    text: list[str]
    font_top: int = -1
    """The snapshot node whose fonts Chromium reports with this element's: its table row
    (``TR``), or the element itself outside any row (a caption)."""


def _font_probes(snapshot: Mapping[str, Any], tops: set[int]) -> list[int]:
    """The backend ids of the nodes to ask ``CSS.getPlatformFontsForNode`` about for every
    glyph shown under ``tops`` (elements' ``font_top``): Chromium reports the fonts of text at
    most two levels below the node asked about, so each top and every element two or more
    levels below it."""
    nodes = snapshot["documents"][0]["nodes"]
    parents: list[int] = nodes["parentIndex"]
    types: list[int] = nodes["nodeType"]
    backend: list[int] = nodes["backendNodeId"]
    depth = dict.fromkeys(tops, 0)  # node index -> levels below its top
    probes = []
    for index, parent in enumerate(parents):  # pre-order: a parent comes before its children
        if index not in depth:
            if parent < 0 or parent not in depth:
                continue
            depth[index] = depth[parent] + 1
        if types[index] == 1 and depth[index] != 1:
            probes.append(backend[index])
    return probes


def _covering(shown: Mapping[int, set[Any]]) -> set[int]:
    """Few keys of ``shown`` whose sets together hold all of its values (greedy set cover:
    the one adding the most first, ties to the earliest)."""
    left: set[Any] = set().union(*shown.values())
    chosen: set[int] = set()
    while left:
        best = max(shown, key=lambda top: len(shown[top] & left))
        chosen.add(best)
        left -= shown[best]
    return chosen


def _snapshot_elements(snapshot: Mapping[str, Any]) -> list[_Element]:
    """The snapshot's cells, decor cells, marks' shapes, caption and root, each with its bounds
    and text."""
    strings: list[str] = snapshot["strings"]
    document = snapshot["documents"][0]
    nodes = document["nodes"]
    parents: list[int] = nodes["parentIndex"]
    types: list[int] = nodes["nodeType"]
    node_names: list[int] = nodes["nodeName"]
    node_values: list[int] = nodes["nodeValue"]
    attributes: list[list[int]] = nodes["attributes"]
    bounds: dict[int, tuple[float, float, float, float]] = {}
    layout = document["layout"]
    for index, box in zip(layout["nodeIndex"], layout["bounds"], strict=True):
        bounds.setdefault(index, (box[0], box[1], box[2], box[3]))

    wanted: dict[int, _Element] = {}
    owner: list[int] = [-1] * len(parents)  # nearest wanted ancestor-or-self, by node index
    row: list[int] = [-1] * len(parents)  # nearest TR ancestor-or-self, by node index
    for index, parent in enumerate(parents):  # pre-order: a parent comes before its children
        owner[index] = owner[parent] if parent >= 0 else -1
        row[index] = row[parent] if parent >= 0 else -1
        if types[index] == 1:
            flat = attributes[index]
            attrs = {strings[flat[i]]: strings[flat[i + 1]] for i in range(0, len(flat), 2)}
            name = strings[node_names[index]]
            if name == "TR":
                row[index] = index
            if ("data-row" in attrs or "data-decor" in attrs or "data-visual" in attrs
                    or "data-viewport" in attrs or "data-chart" in attrs
                    or "data-mark-shape" in attrs
                    or _is_caption(name, attrs) or attrs.get("id") == "hv-root"
                    or _is_group(attrs)):
                wanted[index] = _Element(name, attrs, bounds.get(index), [],
                                         row[index] if row[index] >= 0 else index)
                owner[index] = index
        elif types[index] == 3 and owner[index] >= 0 and node_values[index] >= 0:
            wanted[owner[index]].text.append(strings[node_values[index]])
    return list(wanted.values())


def _is_caption(name: str, attrs: Mapping[str, str]) -> bool:
    """A ``<caption>``, or the element a template marks ``data-caption`` (a sheet's title)."""
    return name == "CAPTION" or "data-caption" in attrs


def _is_group(attrs: Mapping[str, str]) -> bool:
    """A header cell over a group of columns (class ``hv-group``): it stands for no logical
    cell of the table."""
    return "hv-group" in attrs.get("class", "").split()


def _clean(parts: list[str]) -> str:
    return " ".join("".join(parts).split())


# --- The renderer ---------------------------------------------------------------------------

_BLANK = object()  # the page shows about:blank
_DIRTY = object()  # a render failed half-way: the document is in an unknown state


class TableRenderer:
    """Renders tables to PNG with one warm Chromium page (use as a context manager).

    Not thread-safe and not fork-safe: create it in the process and thread that use it
    (after ``fork``). Renderers in one thread share that thread's Playwright driver (the sync
    API allows one per thread) but each has its own browser; it cannot be used inside a running
    asyncio event loop. ``blocked_requests`` lists every URL a page tried to load (all aborted).
    """

    def __init__(
        self,
        viewport: tuple[int, int] = (1280, 1024),
        device_scale_factor: float = 1.0,
        timeout_ms: float = 30_000,
    ) -> None:
        self.viewport = viewport
        self.device_scale_factor = device_scale_factor
        self.timeout_ms = timeout_ms
        self.blocked_requests: list[str] = []
        self._pid: int | None = None
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._cdp: CDPSession | None = None
        # (theme, font, template digest, cell class) -> characters already shown in the font
        self._fonts_ok: dict[tuple[str, str, str, str], set[str]] = {}
        self._font_names: dict[str, str] = {}  # requested family -> the name Chromium reports
        # The template of the document now loaded (None: the default skeleton).
        self._loaded: str | None | object = _BLANK
        self._pages_shown = 0  # tables shown in the document now loaded

    # lifecycle

    @property
    def context(self) -> Any:
        """The open context, for a page that needs JavaScript (plotly's) in the same
        renderer process: the context allows scripts, the table page runs none, every
        request of every page is aborted (and listed in :attr:`blocked_requests`)."""
        if self._context is None:
            raise RuntimeError("TableRenderer is not open")
        return self._context

    def bring_to_front(self) -> None:
        """Give the table page the focus again after another page was opened in its context
        (:attr:`context`): Chromium serves an unfocused page's frames late, and shots took
        ~40% longer."""
        if self._page is None:
            raise RuntimeError("TableRenderer is not open")
        self._page.bring_to_front()

    def open(self) -> TableRenderer:
        """Start Playwright, the browser, the context and the page (idempotent)."""
        if self._page is not None:
            self._check_process()
            return self
        candidates()  # a bad HOPVISTA_CHROMIUM fails here, before anything starts
        self._pid = os.getpid()
        self._playwright = acquire_playwright()
        try:
            self._browser = launch_browser(self._playwright)
            self._open_context()
        except BaseException:
            self.close()
            raise
        return self

    def _open_context(self) -> None:
        browser = cast(Browser, self._browser)
        self._context = new_context(
            browser,
            viewport=self.viewport,
            device_scale_factor=self.device_scale_factor,
            on_request=self.blocked_requests.append,
            scripts=True,  # for pages of other kinds (:attr:`context`); not the table's
        )
        self._context.set_default_timeout(self.timeout_ms)
        self._page = self._context.new_page()
        self._cdp = self._context.new_cdp_session(self._page)
        no_scripts(self._cdp)
        self._cdp.send("DOM.enable")
        self._cdp.send("CSS.enable")
        self._loaded, self._pages_shown = _BLANK, 0

    def renew(self) -> None:
        """Close the context (with every page in it) and open a new one in the same browser.

        Chromium then ends the renderer process the pages shared and starts another: what the
        old one had gathered over thousands of pages (caches, freed but unreturned memory) goes
        with it. Pages opened in :attr:`context` must be opened again. The pixels stay the
        same: they depend on the page, not on the renderer's history.
        """
        if self._context is None:
            raise RuntimeError("TableRenderer is not open")
        self._check_process()
        context, self._context, self._page, self._cdp = self._context, None, None, None
        try:
            context.close()
            self._open_context()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close the page, context, browser and Playwright; safe to call twice."""
        if self._pid is not None and self._pid != os.getpid():
            # A forked copy: the browser belongs to the parent. Drop references only.
            self._page = self._cdp = self._context = self._browser = self._playwright = None
            return
        for closer in (self._context, self._browser):
            if closer is not None:
                # closing a crashed browser must not mask the error that crashed it
                with contextlib.suppress(Exception):
                    closer.close()
        if self._playwright is not None:
            release_playwright()
        self._page = self._cdp = self._context = self._browser = self._playwright = None

    def __enter__(self) -> TableRenderer:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _check_process(self) -> None:
        if self._pid is not None and self._pid != os.getpid():
            raise RuntimeError(
                "TableRenderer was created in another process (fork): create one per worker, "
                "after the fork"
            )

    def collect_garbage(self) -> None:
        """Collect the garbage of the renderer process (the JavaScript heap and the DOM's),
        which the pages of :attr:`context` share. Chromium collects it late: a build's
        renderer, whose plotly page leaves a few MB of garbage per chart and whose table
        pages leave their documents, grew by ~90 MB over 400 items without this."""
        if self._cdp is None:
            raise RuntimeError("TableRenderer is not open")
        self._check_process()
        self._cdp.send("HeapProfiler.collectGarbage")

    @property
    def chromium_version(self) -> str:
        """The running Chromium's version string, e.g. ``"156.0.8078.108"``."""
        self.open()
        return chromium_version(self._browser)

    # rendering

    def render(
        self,
        table: dict[str, Any],
        names: dict[str, str],
        style: dict[str, Any],
        template: str | None = None,
    ) -> tuple[bytes, dict[str, Any]]:
        """Render ``table`` to PNG bytes and its layout.

        ``table`` is ``inputs.table`` (format.md 2.2), ``names`` maps entity ids to display
        names, ``style`` is a ``sample_table_style`` dict, ``template`` optional Jinja2 source
        (see :func:`render_html`).

        The image is the ``#hv-root`` element: the table, its caption and the theme's margin.
        The layout is ``{"width", "height", "font", "font_file", "caption", "cells"}``:
        ``width`` and ``height`` are the PNG's size in pixels; ``font`` is the family Chromium
        actually used (checked with ``CSS.getPlatformFontsForNode``) and ``font_file`` the full
        path of the file fontconfig gives for it; ``caption`` is ``{"text", "box"}`` or
        ``None``; ``cells`` lists every header and body cell, sorted by row then column, as
        ``{"row", "col", "text", "box"}``. Row 0 is the header row, body rows count from 1;
        column 0 is the entity, 1 the period, 2… the table's columns in order. ``text`` is the
        text the page shows (whitespace collapsed). A ``box`` is ``[x, y, w, h]`` in integer
        pixels of the PNG: origin at its top-left corner, x to the right, y down; edges are
        rounded to the nearest pixel, so neighbouring cells share an edge and never overlap.

        Raises ``UserError`` when the font is missing or Chromium fell back to another family
        for any glyph, or when no Chromium can be launched.
        """
        parsed = parse_style(style)
        return self.shoot(render_html(table, names, parsed, template), parsed, template)

    def shoot(self, html: str, style: TableStyle,
              template: str | None = None) -> tuple[bytes, dict[str, Any]]:
        """Load a table page ``html`` (drawn in ``style``) and shoot its ``#hv-root``; the
        layout is :meth:`render`'s.

        ``template`` says which skeleton made the page (pages from the same skeleton reuse the
        document). Cells are the elements with ``data-row`` / ``data-col``: a merged cell's
        ``data-covers`` (``"r,c;r,c"``) adds the cells it stands for, with its box; a cell with
        ``data-copy`` (a header repeated for the reader) goes to ``layout["copies"]`` instead.
        A picture in a cell (an element with ``data-visual="row,col"``) goes to
        ``layout["visuals"]`` as ``{"row", "col", "box"}``: where the picture itself is drawn.
        A page's scrolling region (the element with ``data-viewport``) goes to
        ``layout["viewport"]`` and its chart (``data-chart``) to ``layout["chart"]``, their
        boxes. A header over a group of columns (class ``hv-group``) goes to
        ``layout["groups"]`` as ``{"text", "box"}``, in document order.
        """
        self.open()
        self._check_process()
        parsed = style
        page, cdp = cast(Page, self._page), cast(CDPSession, self._cdp)
        if self._loaded is not _BLANK and (self._loaded is _DIRTY or self._loaded != template
                                           or self._pages_shown >= PAGES_PER_DOCUMENT):
            # set_content reuses the document (document.open), which keeps e.g. its
            # Content-Security-Policy: start from a new one when the skeleton changes, and
            # now and then, since a reused document's renderer memory grows with its pages.
            page.goto("about:blank")
            self._pages_shown = 0
        self._loaded = _DIRTY
        self._pages_shown += 1
        page.set_content(html, wait_until="load")

        snapshot = cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
        elements = _snapshot_elements(snapshot)
        roots = [e for e in elements if e.attrs.get("id") == "hv-root"]
        cells = [e for e in elements if "data-row" in e.attrs]
        if not roots or roots[0].bounds is None or not cells:
            raise ValueError(
                "the table template must render an element with id 'hv-root' containing cells "
                "with data-row and data-col attributes"
            )
        rx, ry, rw, rh = roots[0].bounds
        x0, y0 = math.floor(rx + 1e-3), math.floor(ry + 1e-3)
        x1, y1 = math.ceil(rx + rw - 1e-3), math.ceil(ry + rh - 1e-3)

        font = self._verify_font(parsed, template, elements, snapshot)

        # Straight through CDP: Playwright's screenshot has no optimizeForSpeed, which makes
        # Chromium encode the PNG about twice as fast (a larger, equally lossless file). A
        # table larger than the viewport is shot beyond it, which costs Chromium a layout of
        # the page at its full size; one inside it is shot as shown (the same pixels, ~7 ms
        # sooner).
        beyond = x1 > self.viewport[0] or y1 > self.viewport[1] or x0 < 0 or y0 < 0
        png = self._capture({
            "format": "png", "optimizeForSpeed": True, "captureBeyondViewport": beyond,
            "clip": {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0,
                     "scale": self.device_scale_factor}})
        width, height = png_size(png)
        scale = self.device_scale_factor

        def box(bounds: tuple[float, float, float, float] | None) -> list[int]:
            if bounds is None:
                return [0, 0, 0, 0]
            bx, by, bw, bh = bounds
            left = min(max(round((bx - x0) * scale), 0), width)
            top = min(max(round((by - y0) * scale), 0), height)
            right = min(max(round((bx + bw - x0) * scale), 0), width)
            bottom = min(max(round((by + bh - y0) * scale), 0), height)
            return [left, top, right - left, bottom - top]

        layout_cells: list[dict[str, Any]] = []
        copies: list[dict[str, Any]] = []
        for e in cells:
            shown = {"row": int(e.attrs["data-row"]), "col": int(e.attrs.get("data-col", "0")),
                     "text": _clean(e.text), "box": box(e.bounds)}
            if "data-mark" in e.attrs:
                shown["mark"] = e.attrs["data-mark"]
                if "data-colour" in e.attrs:
                    shown["colour"] = e.attrs["data-colour"]
            if "data-copy" in e.attrs:
                copies.append(shown)
                continue
            layout_cells.append(shown)
            for pair in filter(None, e.attrs.get("data-covers", "").split(";")):
                row, col = (int(n) for n in pair.split(","))
                layout_cells.append(shown | {"row": row, "col": col})
        layout_cells.sort(key=lambda c: (c["row"], c["col"]))
        copies.sort(key=lambda c: (c["row"], c["col"], c["box"]))
        def outer(bounds: tuple[float, float, float, float] | None) -> list[int]:
            # a shape's box holds every pixel it touches: its edges rounded outwards
            if bounds is None:
                return [0, 0, 0, 0]
            bx, by, bw, bh = bounds
            left = min(max(math.floor((bx - x0) * scale), 0), width)
            top = min(max(math.floor((by - y0) * scale), 0), height)
            right = min(max(math.ceil((bx + bw - x0) * scale), 0), width)
            bottom = min(max(math.ceil((by + bh - y0) * scale), 0), height)
            return [left, top, right - left, bottom - top]

        _record_mark_boxes(layout_cells, cells, elements, box, outer)
        def snapped(bounds: tuple[float, float, float, float] | None) -> list[int]:
            # Chromium draws an image on whole pixels: its corner rounded half up, its size kept.
            if bounds is None:
                return [0, 0, 0, 0]
            bx, by, bw, bh = bounds
            return [math.floor((bx - x0) * scale + 0.5), math.floor((by - y0) * scale + 0.5),
                    round(bw * scale), round(bh * scale)]

        pictures = sorted(({"row": int(row), "col": int(col), "box": snapped(e.bounds)}
                           for e in elements if "data-visual" in e.attrs
                           for row, col in [e.attrs["data-visual"].split(",")]),
                          key=lambda p: (p["row"], p["col"]))
        groups = [{"text": _clean(e.text), "box": box(e.bounds)}
                  for e in elements if _is_group(e.attrs)]
        captions = [e for e in elements if _is_caption(e.name, e.attrs)]
        caption = (
            {"text": _clean(captions[0].text), "box": box(captions[0].bounds)} if captions else None
        )
        self._loaded = template
        layout = {
            "width": width,
            "height": height,
            "font": font,
            "font_file": str(fontconfig_file(font)),
            "caption": caption,
            "cells": layout_cells,
        }
        viewports = [e for e in elements if "data-viewport" in e.attrs]
        if viewports:
            layout["viewport"] = box(viewports[0].bounds)
        charts = [e for e in elements if "data-chart" in e.attrs]
        if charts:
            layout["chart"] = box(charts[0].bounds)
        if copies:
            layout["copies"] = copies
        if pictures:
            layout["visuals"] = pictures
        if groups:
            layout["groups"] = groups
        return png, layout

    def _capture(self, params: dict[str, Any]) -> bytes:
        """``Page.captureScreenshot`` with ``params``, as PNG bytes.

        Chromium answers "Unable to capture screenshot" when the compositor gave it no frame
        (seen once in thousands of shots, on a loaded machine, for a page that had just been
        given the focus back): the page is brought to the front and the shot taken again, up
        to :data:`CAPTURE_ATTEMPTS` times; the page has not changed, so neither do its pixels.
        """
        cdp = cast(CDPSession, self._cdp)
        for _ in range(CAPTURE_ATTEMPTS - 1):
            try:
                return base64.b64decode(cdp.send("Page.captureScreenshot", params)["data"])
            except PlaywrightError as error:
                if "Unable to capture screenshot" not in str(error):
                    raise
                cast(Page, self._page).bring_to_front()
        return base64.b64decode(cdp.send("Page.captureScreenshot", params)["data"])

    def _verify_font(
        self, style: TableStyle, template: str | None, elements: list[_Element],
        snapshot: Mapping[str, Any]
    ) -> str:
        """Check that every glyph of the table came from ``style.font``, drawn from a system
        font file (not one under the user's home); return that family.

        Font fallback is decided per character and face, so characters already verified for
        the same theme, font, template and cell class are not checked again, and only a few rows
        (or the caption) showing every new one are asked about (the CDP calls cost about 1 ms
        each).
        """
        digest = hashlib.sha256((template or "").encode("utf-8")).hexdigest()[:16]
        # (key, character) pairs not verified yet, by the node whose fonts report them
        by_top: dict[int, set[tuple[tuple[str, str, str, str], str]]] = {}
        for element in elements:
            if _is_caption(element.name, element.attrs):
                klass = "caption"
            elif "data-row" in element.attrs:
                head = element.attrs["data-row"] == "0"
                klass = ("head:" if head else "body:") + element.attrs.get("class", "")
            elif _is_group(element.attrs):  # a header over a group of columns
                klass = "head:" + element.attrs.get("class", "")
            elif "data-decor" in element.attrs:  # column letters, row numbers
                klass = "decor:" + element.attrs.get("class", "")
            else:
                continue
            key = (style.theme.name, style.font, digest, klass)
            chars = set("".join(element.text)) - set(" \t\n\r") - self._fonts_ok.get(key, set())
            by_top.setdefault(element.font_top, set()).update((key, char) for char in chars)
        new = set().union(*by_top.values())
        if not new and style.font in self._font_names:
            return self._font_names[style.font]

        cdp = cast(CDPSession, self._cdp)
        cdp.send("DOM.getDocument", {"depth": 0})  # nodes are sent for this document only
        # Rows showing every new character between them are enough: one occurrence of a
        # character in a face verifies it (that is what the cache above holds too).
        node_ids = cdp.send("DOM.pushNodesByBackendIdsToFrontend",
                            {"backendNodeIds": _font_probes(snapshot, _covering(by_top))})
        glyphs: dict[str, int] = {}
        faces: set[str] = set()  # the PostScript name of every face drawn
        for node_id in node_ids["nodeIds"]:
            found = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node_id})
            for usage in found["fonts"]:
                family = str(usage["familyName"])
                glyphs[family] = glyphs.get(family, 0) + int(usage["glyphCount"])
                faces.add(str(usage.get("postScriptName") or ""))
        wanted = style.font.casefold()
        others = {f: n for f, n in glyphs.items() if f.casefold() != wanted}
        if others or not glyphs:
            used = ", ".join(f"{f} ({n} glyphs)" for f, n in sorted(others.items())) or "nothing"
            raise UserError(
                f"table font {style.font!r} (theme {style.theme.name!r}) is not installed or "
                f"lacks glyphs for this text: Chromium fell back to {used}. Install the font "
                "(see scripts/install.sh) or choose another one"
            )
        foreign = sorted(name for name in faces if name and not is_system_face(name))
        if foreign:
            raise UserError(
                f"table font {style.font!r}: Chromium drew faces that are not among the "
                f"system's fonts ({', '.join(foreign)}); it must be started with the "
                "environment hopvista.themes.fonts.fontconfig_env() gives"
            )
        for key, char in new:
            self._fonts_ok.setdefault(key, set()).add(char)
        reported = str(max(glyphs, key=lambda f: glyphs[f]))
        self._font_names[style.font] = reported
        return reported


def _record_mark_boxes(layout_cells: list[dict[str, Any]], cells: list[Any], elements: list[Any],
                       box: Any, outer: Any) -> None:
    """Add ``mark_box`` to each marked cell whose mark reaches beyond it: the union of its
    own box with its shape's (``data-mark-shape``, measured by ``outer``: every pixel it
    touches) or with the boxes of every cell of its row or column (``data-mark-scope``)."""
    shapes: dict[tuple[int, int], list[list[int]]] = {}
    for e in elements:
        if "data-mark-shape" in e.attrs:
            row, col = (int(n) for n in e.attrs["data-mark-shape"].split(","))
            shapes.setdefault((row, col), []).append(outer(e.bounds))
    scopes = {(int(e.attrs["data-row"]), int(e.attrs.get("data-col", "0"))):
              e.attrs["data-mark-scope"] for e in cells if "data-mark-scope" in e.attrs
              and "data-copy" not in e.attrs}
    if not shapes and not scopes:
        return
    shown = [(int(e.attrs["data-row"]), int(e.attrs.get("data-col", "0")), box(e.bounds))
             for e in cells if "data-copy" not in e.attrs]
    for cell in layout_cells:
        at = (cell["row"], cell["col"])
        if "mark" not in cell or (at not in shapes and at not in scopes):
            continue
        boxes = [cell["box"], *shapes.get(at, [])]
        scope = scopes.get(at)
        if scope == "row":
            boxes += [b for r, _, b in shown if r == at[0]]
        elif scope == "column":
            boxes += [b for _, c, b in shown if c == at[1]]
        cell["mark_box"] = _union(boxes)


def _union(boxes: list[list[int]]) -> list[int]:
    """The smallest ``[x, y, w, h]`` box holding every box of ``boxes``."""
    left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
    right, bottom = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
    return [left, top, right - left, bottom - top]
