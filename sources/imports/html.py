"""HTML in imported data, reduced to plain text: cells, captions and whole ``<table>`` elements.

Markup is parsed with lxml's HTML parser, never with regular expressions, and only the text a
browser shows is kept (entities decoded, whitespace collapsed, ``<br>`` a space):

* elements whose content is never shown are dropped with it (:data:`DROPPED`: scripts,
  styles, templates, ``<iframe>``, ``<noscript>``, the head, MathML annotations), and so are
  comments, CDATA sections and processing instructions; the text after them stays;
* an ``<object>``, ``<embed>`` or ``<applet>`` shows its fallback content, so its text is kept
  (the HTML parser nests what follows an ``<embed>`` inside it: that text is kept too);
* an ``<svg>`` shows only the text of its ``<text>`` (and ``<foreignObject>``) elements;
* a whole document (``<html><body>…</body></html>after``) keeps the text around it, and
  nesting deeper than the parser's default (256) loses nothing.

:func:`plain_text` repeats this until nothing markup-like is left, so escaped markup
(``&lt;script&gt;``) cannot come back as a tag.
:func:`table_grid` turns a ``<table>`` into a rectangular grid of cell texts, with ``rowspan``
and ``colspan`` expanded (the spanned text repeated in every cell it covers).
"""

from __future__ import annotations

import re
from itertools import takewhile

import lxml.etree
import lxml.html

DROPPED = ("script", "style", "noscript", "template", "iframe", "noembed", "noframes", "head",
           "title", "meta", "link", "param", "annotation", "annotation-xml")
"""Elements whose content is never text a browser shows."""
SVG_TEXT = ("text", "foreignobject")
"""The elements of an ``<svg>`` whose text is shown."""
_DOCUMENT_END = re.compile(r"</(?:html|body)\b[^>]*>", re.IGNORECASE)
"""End tags a browser ignores (what follows them is shown) but lxml's parser stops at."""

_MARKUP = re.compile(r"<[A-Za-z][^<>]*>|</[A-Za-z]|<[!?]|&(?:#[0-9]+|#[xX][0-9a-fA-F]+|"
                     r"[A-Za-z][A-Za-z0-9]*);")
_TAG = re.compile(r"<[A-Za-z!/?][^<>]*>")
_SPACE = re.compile(r"\s+")
MAX_PASSES = 5
MAX_SPAN = 1000
"""Largest rowspan/colspan honoured (a larger one is cut to this)."""
MAX_ROWS = 5_000
"""Most rows of a table, the header included."""
MAX_COLUMNS = 200
"""Most columns of a table."""


def looks_like_markup(text: str) -> bool:
    """Whether ``text`` holds a tag, a comment or a character entity."""
    return bool(_MARKUP.search(text))


def parse(text: str) -> lxml.html.HtmlElement | None:
    """``text`` parsed as an HTML document (its ``<html>`` element), or ``None`` when it holds
    nothing but comments and blanks. ``ValueError`` when it cannot be parsed."""
    parser = lxml.html.HTMLParser(encoding="utf-8", huge_tree=True, remove_comments=True,
                                  remove_pis=True)
    try:
        document = lxml.html.document_fromstring(
            _DOCUMENT_END.sub("", text).encode("utf-8"), parser=parser)
    except lxml.etree.ParserError:
        return None
    except (lxml.etree.LxmlError, UnicodeError) as exc:
        raise ValueError(f"not parseable as HTML ({' '.join(str(exc).split())})") from None
    if any("Excessive depth" in str(error.message) for error in parser.error_log):
        raise ValueError("markup nested too deeply to read")
    return document


def _svg_text(svg: lxml.html.HtmlElement) -> str:
    """The text an ``<svg>`` shows: its outermost :data:`SVG_TEXT` elements', space-separated."""
    shown = []
    for node in svg.iter(*SVG_TEXT):
        inside = takewhile(lambda up: up is not svg, node.iterancestors())
        if not any(up.tag in SVG_TEXT for up in inside):
            shown.append(_text(node))
    return " ".join(text for text in shown if text)


def _strip(element: lxml.html.HtmlElement) -> None:
    """Drop what a browser does not show (see the module's docstring); ``<br>`` becomes a
    space."""
    for node in list(element.iter(lxml.etree.Comment, lxml.etree.ProcessingInstruction,
                                  *DROPPED)):
        if node is not element:
            node.drop_tree()
    for svg in list(element.iter("svg")):
        if svg is not element and not any(up.tag == "svg" for up in svg.iterancestors()):
            shown = _svg_text(svg)
            for child in list(svg):
                svg.remove(child)
            svg.text = shown
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
            document = parse(text)
        except ValueError:
            return _SPACE.sub(" ", _TAG.sub(" ", text)).strip()
        if document is None:
            return ""
        _strip(document)
        text = _text(document)
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
    document = parse(html)
    if document is None:
        raise ValueError("no <table> element")
    tables = document.xpath("//table[not(ancestor::table)]")
    if not tables:
        raise ValueError("no <table> element")
    table = tables[0]
    _strip(table)
    captions = [child for child in table if child.tag == "caption"]
    caption = _text(captions[0]) if captions else None
    grid: dict[tuple[int, int], str] = {}
    rows = _rows(table)
    if len(rows) > MAX_ROWS:
        raise ValueError(f"the table has {len(rows):,} rows (at most {MAX_ROWS:,})")
    for r, row in enumerate(rows):
        c = 0
        for cell in row:
            if cell.tag not in ("td", "th"):
                continue
            while (r, c) in grid:
                c += 1
            if c + _span(cell, "colspan") > MAX_COLUMNS:
                raise ValueError(f"row {r + 1} is wider than {MAX_COLUMNS} columns")
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
