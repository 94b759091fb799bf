"""HTML in imported data, reduced to plain text: cells, captions and whole ``<table>`` elements.

Markup is parsed with lxml's HTML parser, never with regular expressions: scripts, styles and
other non-text elements are dropped with their content, ``<br>`` becomes a space, and only the
text remains (entities decoded, whitespace collapsed). :func:`plain_text` repeats this until
nothing markup-like is left, so escaped markup (``&lt;script&gt;``) cannot come back as a tag.
:func:`table_grid` turns a ``<table>`` into a rectangular grid of cell texts, with ``rowspan``
and ``colspan`` expanded (the spanned text repeated in every cell it covers).
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

DROPPED = ("script", "style", "noscript", "template", "iframe", "object", "embed", "head",
           "title", "meta", "link", "svg", "math")
"""Elements whose content is never text a table shows."""

_MARKUP = re.compile(r"<[A-Za-z][^<>]*>|</[A-Za-z]|<[!?]|&(?:#[0-9]+|#[xX][0-9a-fA-F]+|"
                     r"[A-Za-z][A-Za-z0-9]*);")
_TAG = re.compile(r"<[A-Za-z!/?][^<>]*>")
_SPACE = re.compile(r"\s+")
MAX_PASSES = 5
MAX_SPAN = 1000
"""Largest rowspan/colspan honoured (a larger one is cut to this)."""


def looks_like_markup(text: str) -> bool:
    """Whether ``text`` holds a tag, a comment or a character entity."""
    return bool(_MARKUP.search(text))


def _strip(element: lxml.html.HtmlElement) -> None:
    """Drop non-text elements, comments and processing instructions; ``<br>`` becomes a
    space."""
    for node in list(element.iter(lxml.etree.Comment, lxml.etree.ProcessingInstruction,
                                  *DROPPED)):
        if node is not element:
            node.drop_tree()
    for node in list(element.iter("br")):
        node.tail = " " + (node.tail or "")


def _text(element: lxml.html.HtmlElement) -> str:
    return _SPACE.sub(" ", str(element.text_content())).strip()


def plain_text(text: str) -> str:
    """``text`` with any markup reduced to its visible text; text without markup is returned
    unchanged (a lone ``a < b`` is not markup)."""
    for _ in range(MAX_PASSES):
        if not looks_like_markup(text):
            return text
        try:
            fragment = lxml.html.fragment_fromstring(text, create_parent="div")
        except (lxml.etree.ParserError, ValueError):
            return _SPACE.sub(" ", _TAG.sub(" ", text)).strip()
        _strip(fragment)
        text = _text(fragment)
    return _SPACE.sub(" ", _TAG.sub(" ", text)).strip()


def _rows(table: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The ``<tr>`` of ``table`` itself (not of tables nested in its cells), in order."""
    rows = []
    for child in table:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "tr":
            rows.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            rows.extend(row for row in child if row.tag == "tr")
    return rows


def _span(cell: lxml.html.HtmlElement, name: str) -> int:
    try:
        value = int(str(cell.get(name, "1")).strip() or "1")
    except ValueError:
        return 1
    return min(max(value, 1), MAX_SPAN)


def table_grid(html: str) -> tuple[list[list[str]], str | None]:
    """The first ``<table>`` in ``html`` as rows of cell texts (spans expanded, rows padded to
    the widest), and its ``<caption>`` text; ``ValueError`` when there is no table."""
    try:
        document = lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise ValueError(f"not parseable as HTML ({exc})") from None
    tables = document.xpath("//table[not(ancestor::table)]")
    if not tables:
        raise ValueError("no <table> element")
    table = tables[0]
    _strip(table)
    captions = [child for child in table if child.tag == "caption"]
    caption = _text(captions[0]) if captions else None
    grid: dict[tuple[int, int], str] = {}
    rows = _rows(table)
    for r, row in enumerate(rows):
        c = 0
        for cell in row:
            if cell.tag not in ("td", "th"):
                continue
            while (r, c) in grid:
                c += 1
            text = plain_text(_text(cell))
            for dr in range(min(_span(cell, "rowspan"), len(rows) - r)):
                for dc in range(_span(cell, "colspan")):
                    grid.setdefault((r + dr, c + dc), text)
            c += _span(cell, "colspan")
    if not grid:
        return [], caption
    height = max(r for r, _ in grid) + 1
    width = max(c for _, c in grid) + 1
    return [[grid.get((r, c), "") for c in range(width)] for r in range(height)], caption or None
