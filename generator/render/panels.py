"""HTML of a variant's table layout (:class:`hopvista.augment.grid.Layout`).

Three documents: the panels themselves (a fragment, ``panels.html.j2``), a page showing just
them (``document.html.j2``, what every variant but ``screenshot`` shoots), and a page template
from :mod:`hopvista.themes.pages` wrapping them in an application window. Pictures in cells
(:class:`CellPictures`, by logical cell) are shown in each cell's own showing, never in a
repeated header, wherever the layout puts the cell. Cell text, captions
and the question are untrusted: every template renders with autoescaping on, and the page runs
no script and loads nothing (see :mod:`hopvista.render.table`).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from string import ascii_uppercase
from typing import Any

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup

from hopvista.augment.grid import Layout, Panel, Shown
from hopvista.model.task import COLOURS
from hopvista.render.page import page_html
from hopvista.render.table import TableStyle
from hopvista.themes.marks import MARK_KINDS, MarkKind, ink_look, ordered_kinds, rgba
from hopvista.themes.tables.files import PACKAGE, read_file

_ENV = Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)

PANELS_CSS = """
.hv-panels { display: flex; flex-direction: column; align-items: flex-start;
  gap: var(--hv-panel-gap, 18px); }
.hv-arrange-side { flex-direction: row; align-items: flex-start; }
"""


MAX_INDENT = 8
"""Deepest level of a row hierarchy shown by its own indentation (deeper ones show as it)."""


def indent_css(layout: Layout) -> str:
    """CSS indenting each row label by its level in the row hierarchy (``data-indent``), for
    a layout that has such labels; empty otherwise (a flat table's page is unchanged)."""
    levels = sorted({min(c.indent, MAX_INDENT) for p in layout.panels for r in p.rows
                     for c in r if c.indent > 0})
    return "".join(f'.hv-table [data-indent="{n}"] {{ text-indent: {1.2 * n:.1f}em; }}\n'
                   for n in levels)


@cache
def _template(name: str) -> Template:
    return _ENV.from_string(read_file(PACKAGE, name))




@dataclass(frozen=True)
class CellPictures:
    """Pictures shown inside table cells: PNG bytes by logical ``(row, col)``, each drawn
    ``size_px`` square and shown at exactly that size (one image pixel per CSS pixel)."""

    size_px: int
    png: Mapping[tuple[int, int], bytes] = field(default_factory=dict)

    def css(self) -> str:
        """Rules that show every picture whole, at its size, whatever the theme: a theme's
        rules cannot use ``!important``, so none of them can hide, shrink or cover one."""
        size = f"{self.size_px}px"
        return (
            ".hv-table img.hv-visual { display: inline-block !important; "
            f"width: {size} !important; height: {size} !important; "
            f"min-width: {size} !important; min-height: {size} !important; "
            "max-width: none !important; max-height: none !important; "
            "box-sizing: content-box !important; margin: 0 !important; padding: 0 !important; "
            "border: 0 !important; background: transparent !important; opacity: 1 !important; "
            "visibility: visible !important; vertical-align: middle !important; "
            "object-fit: fill !important; filter: none !important; transform: none !important; "
            "mix-blend-mode: normal !important; }\n"
            # A row grows to hold its pictures; its text sits beside them, not below.
            ".hv-table td, .hv-table th { vertical-align: middle; }\n")

    def markup(self, at: tuple[int, int] | None) -> Markup:
        """The ``<img>`` of the picture at ``at`` (a ``data:`` URI: the page loads nothing),
        or nothing."""
        png = self.png.get(at) if at is not None else None
        if png is None or at is None:
            return Markup("")
        source = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        return Markup('<img class="hv-visual" data-visual="{},{}" src="{}" width="{}" '
                      'height="{}" alt="">').format(at[0], at[1], source, self.size_px,
                                                    self.size_px)


def mark_css(look: dict[str, Any]) -> str:
    """CSS drawing markup in ``look`` (``colour`` #rrggbb, ``opacity``, ``thickness`` px,
    ``stroke`` px) for every mark kind of :data:`hopvista.themes.marks.MARK_KINDS`, without
    moving anything (a background inside the cell, an underline, bold drawn as a stroke
    around the glyphs, shapes laid over the table). A highlight whose cell names a colour
    (``data-colour``) is drawn in that colour of :data:`hopvista.model.task.COLOURS`, at least
    80% opaque and with dark text, so that it reads as that colour on any theme."""
    bounded = ink_look(look)
    return "".join(kind.css(bounded) for kind in ordered_kinds()) + "".join(
        f".hv-table [data-mark=\"highlight\"][data-colour=\"{name}\"] {{ "
        f"background-color: {_rgba(hexa, max(bounded['opacity'], 0.8))} !important; "
        f"color: #111111 !important; }}\n"
        for name, hexa in COLOURS.items())


def scope_css(layout: Layout, look: dict[str, Any]) -> str:
    """CSS of the marks that cover a whole row (its cells shaded) or a whole column (its
    cells boxed by an inset outline, closed above its first and below its last showing), in
    every panel; nothing when the layout has none."""
    bounded = ink_look(look)
    rules = []
    for at, kind in _marked_cells(layout):
        row, col = at
        if kind.scope == "row":
            shade = rgba(bounded, min(bounded["opacity"], kind.most_opacity))
            rules.append(f".hv-table [data-row=\"{row}\"]:not([data-copy]) {{ "
                         f"background-color: {shade} !important; }}\n")
        elif kind.scope == "column":
            width = f"{bounded['thickness'] + 0.5:.1f}px"
            ink = bounded["ink"]
            sides = f"inset {width} 0 0 {ink}, inset -{width} 0 0 {ink}"
            shown = [c.at for panel in layout.panels for r in panel.rows for c in r
                     if c.at is not None and c.at[1] == col and not c.copy]
            rules.append(f".hv-table [data-col=\"{col}\"]:not([data-copy]) {{ "
                         f"box-shadow: {sides} !important; }}\n")
            for end, edge in ((shown[0], f"inset 0 {width} 0 {ink}"),
                              (shown[-1], f"inset 0 -{width} 0 {ink}")):
                rules.append(f".hv-table [data-row=\"{end[0]}\"][data-col=\"{col}\"]"
                             f":not([data-copy]) {{ box-shadow: {sides}, {edge} !important; }}\n")
            if shown[0] == shown[-1]:
                rules.append(f".hv-table [data-row=\"{shown[0][0]}\"][data-col=\"{col}\"]"
                             f":not([data-copy]) {{ box-shadow: {sides}, inset 0 {width} 0 "
                             f"{ink}, inset 0 -{width} 0 {ink} !important; }}\n")
    return "".join(rules)


def _marked_cells(layout: Layout) -> list[tuple[tuple[int, int], MarkKind]]:
    """The marked cells' own showings and their kinds, in display order."""
    return [(cell.at, MARK_KINDS.get(cell.mark)) for panel in layout.panels
            for row in panel.rows for cell in row
            if cell.mark is not None and cell.at is not None and not cell.copy]


def _rgba(colour: str, opacity: float) -> str:
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {opacity:.2f})"


def column_letters(count: int) -> list[str]:
    """Spreadsheet column names: A … Z, AA, AB, …"""
    names = []
    for n in range(count):
        name, k = "", n + 1
        while k:
            k, rest = divmod(k - 1, 26)
            name = ascii_uppercase[rest] + name
        names.append(name)
    return names


def _attrs(cell: Shown) -> Markup:
    parts = []
    if cell.at is not None:
        parts.append(f' data-row="{cell.at[0]}" data-col="{cell.at[1]}"')
    if cell.covers:
        covers = ";".join(f"{r},{c}" for r, c in cell.covers)
        parts.append(f' data-covers="{covers}"')
    if cell.copy:
        parts.append(' data-copy="1"')
    if cell.mark is not None:
        if cell.mark not in MARK_KINDS:
            raise ValueError(f"unknown markup style {cell.mark!r}")
        parts.append(f' data-mark="{cell.mark}"')
        scope = MARK_KINDS.get(cell.mark).scope
        if scope != "cell":
            parts.append(f' data-mark-scope="{scope}"')
        if cell.colour is not None:
            if cell.colour not in COLOURS:
                raise ValueError(f"unknown highlight colour {cell.colour!r}")
            parts.append(f' data-colour="{cell.colour}"')
    if cell.indent > 0:
        parts.append(f' data-indent="{min(cell.indent, MAX_INDENT)}"')
    if cell.rowspan > 1:
        parts.append(f' rowspan="{cell.rowspan}"')
    if cell.colspan > 1:
        parts.append(f' colspan="{cell.colspan}"')
    return Markup("".join(parts))  # integers and fixed names only


def _shape(cell: Shown, look: dict[str, Any] | None) -> Markup:
    """The SVG a marked cell's kind lays over it (an arrow, a ring), carrying the cell's
    logical coordinates in ``data-mark-shape``; nothing for any other cell."""
    if cell.mark is None or cell.at is None or cell.copy:
        return Markup("")
    kind = MARK_KINDS.get(cell.mark)
    if kind.shape is None:
        return Markup("")
    svg = kind.shape(ink_look(look or {}), cell.kind == "num")
    if not svg.startswith("<svg "):
        raise ValueError(f"mark kind {kind.name!r}: its shape is not an <svg> element")
    tag = Markup(' data-mark-shape="{},{}"').format(cell.at[0], cell.at[1])
    return Markup("<svg") + tag + Markup(svg[4:])  # the kind's trusted markup


def _panel(panel: Panel, number: int, pictures: CellPictures | None = None,
           look: dict[str, Any] | None = None) -> dict[str, Any]:
    def row(cells: tuple[Shown, ...], at: int) -> dict[str, Any]:
        return {"number": at, "cells": [
            {"text": c.text, "kind": c.kind, "head": c.head, "attrs": _attrs(c),
             "picture": pictures.markup(c.at) if pictures is not None and not c.copy
             else Markup(""), "shape": _shape(c, look)} for c in cells]}

    head = [row(r, number + i) for i, r in enumerate(panel.rows[:panel.head_rows])]
    body_rows = panel.rows[panel.head_rows:]
    firsts = [r[0].text if r else "" for r in body_rows]
    body = []
    for i, cells in enumerate(body_rows):
        shown = row(cells, number + panel.head_rows + i)
        shown["group_start"] = i == 0 or firsts[i - 1] != firsts[i]
        shown["group_end"] = i == len(body_rows) - 1 or firsts[i + 1] != firsts[i]
        body.append(shown)
    width = max((sum(c.colspan for c in r) for r in panel.rows), default=0)
    return {"caption": panel.caption, "head": head, "body": body,
            "letters": column_letters(width)}


def panels_fragment(layout: Layout, decor: tuple[str, ...] = (),
                    pictures: CellPictures | None = None,
                    look: dict[str, Any] | None = None) -> Markup:
    """The panels' HTML (a ``<div class="hv-panels">``), escaped; a cell with a picture in
    ``pictures`` shows it before its text; a marked cell's shape is drawn in ``look``."""
    panels = [_panel(p, 1, pictures, look) for p in layout.panels]
    return Markup(_template("panels.html.j2").render(
        panels=panels, arrange=layout.arrange, decor=list(decor)))


def layout_document(layout: Layout, style: TableStyle,
                    mark_look: dict[str, Any] | None = None,
                    pictures: CellPictures | None = None) -> str:
    """A page showing the layout's panels in ``style`` (its ``#hv-root`` is shot), with the
    markup look ``mark_look`` for marked cells and ``pictures`` inside their cells."""
    marks = "" if mark_look is None else mark_css(mark_look) + scope_css(layout, mark_look)
    css = style.css() + PANELS_CSS + marks + (pictures.css() if pictures is not None else "") \
        + indent_css(layout)
    return _template("document.html.j2").render(
        css=Markup(css), theme=style.theme.name,
        tables=panels_fragment(layout, style.theme.decor, pictures, mark_look))


def page_document(layout: Layout, style: TableStyle, page: str, *, question: str, title: str,
                  width_px: int, chart_png: bytes | None = None,
                  texts: list[dict[str, str]] | None = None,
                  pictures: CellPictures | None = None,
                  window: tuple[int, int] | None = None) -> str:
    """The layout inside the page template ``page`` (a window with the passages ``texts``, the
    question, and the chart when ``chart_png`` is given), with ``pictures`` inside their
    cells as :func:`layout_document` shows them; its ``#hv-root`` is the whole window
    (:func:`hopvista.render.page.page_html`). ``window`` is ``(height, scroll)`` in CSS
    pixels: the page's scrolling region (``data-viewport``) shows ``height`` pixels of its
    content, scrolled down by ``scroll`` (:func:`scrolled_css`)."""
    chart_src = None if chart_png is None else \
        "data:image/png;base64," + base64.b64encode(chart_png).decode("ascii")
    tables = Markup('<div class="hv-root hv-theme-{}">{}</div>').format(
        style.theme.name, panels_fragment(layout, style.theme.decor, pictures))
    css = style.css() + PANELS_CSS + (pictures.css() if pictures is not None else "") \
        + indent_css(layout) + (scrolled_css(*window) if window is not None else "")
    return page_html(page, css=css, tables=tables, question=question,
                     title=title, chart_src=chart_src, width_px=width_px, texts=texts or [])


def scrolled_css(height: int, scroll: int) -> str:
    """CSS showing ``height`` pixels of a page's scrolling region (``data-viewport``), its
    content scrolled down by ``scroll`` pixels, as a window shows a long page (the page runs
    no script: the content is moved up by a margin, the region clips it)."""
    return (f"#hv-root [data-viewport] {{ height: {int(height)}px !important; "
            "overflow: hidden !important; flex: none !important; }\n"
            f"#hv-root [data-viewport] > * {{ margin-top: {-int(scroll)}px !important; }}\n")
