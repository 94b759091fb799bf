"""10-K filings: the document flattened into text blocks (block elements, table rows, printed
lines of a text filing)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

from bs4 import BeautifulSoup
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from hopvista.sources.sec.filings.lines import figure_line, parse_heading

#: Shortest text (characters, whitespace normalised) kept as a paragraph.
MIN_PARAGRAPH = 40


@dataclass
class Block:
    """A block element's text (or a table row's), whitespace normalised."""

    text: str
    table: bool = False   # a data-table row (never a paragraph)
    blank: bool = False   # an empty block element (``<p><br></p>``): a paragraph separator


_BLOCK_TAGS = frozenset(
    ["p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
     "blockquote", "center", "pre", "section", "article", "header", "footer", "address", "form",
     "body", "html", "hr", "caption"])
_SKIP_TAGS = frozenset(["head", "title", "script", "style", "noscript", "ix:header", "template"])
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_SPACES = re.compile(r"[\s\u200b\ufeff]+")
_BR_BREAK = re.compile(r"\n *\n")
_INVISIBLE = str.maketrans("", "", "\u200b\u00ad\ufeff")


def normalise(text: str) -> str:
    """``text`` without invisible characters, its whitespace runs read as one space."""
    return " ".join(text.translate(_INVISIBLE).split())


def _hidden(tag: Tag) -> bool:
    style = tag.get("style")
    return isinstance(style, str) and "none" in style and bool(_HIDDEN.search(style))


def html_blocks(soup: BeautifulSoup) -> list[Block]:
    """Block-level text in document order; a ``<br><br>`` also separates blocks."""
    blocks: list[Block] = []
    buffer: list[str] = []

    def flush() -> None:
        if not buffer:
            return
        joined = "".join(buffer)
        buffer.clear()
        parts = [normalise(part) for part in _BR_BREAK.split(joined.replace("\x00", " "))]
        if not any(parts):
            # an empty paragraph (<p><br></p>, <p>&nbsp;</p>) separates paragraphs;
            # whitespace between tags does not
            if "\n" in joined or "\x00" in joined:
                blocks.append(Block("", blank=True))
            return
        for text in parts:
            if text:
                blocks.append(Block(text))

    stack: list[tuple[Iterator[PageElement], bool]] = [(iter(list(soup.contents)), True)]
    while stack:
        children, is_block = stack[-1]
        node = next(children, None)
        if node is None:
            stack.pop()
            if is_block:
                flush()
            continue
        if isinstance(node, Tag):
            name = node.name
            if name in _SKIP_TAGS or _hidden(node):
                continue
            if name == "table":
                flush()
                blocks.extend(_table_blocks(node))
                continue
            if name == "br":
                buffer.append("\n")
                continue
            block = name in _BLOCK_TAGS
            if block:
                flush()
            stack.append((iter(node.contents), block))
        elif isinstance(node, NavigableString) and not isinstance(node, PreformattedString):
            text = _SPACES.sub(" ", str(node))
            if text == " " and str(node).strip(" \t\r\n\f"):
                text = "\x00"   # only non-breaking spaces: marks an empty paragraph
            buffer.append(text)
    flush()
    return blocks


def _cell_text(cell: Tag) -> str:
    """A table cell's visible text (``<br>`` as a space, hidden content skipped)."""
    parts: list[str] = []
    stack: list[Iterator[PageElement]] = [iter(cell.contents)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif isinstance(node, Tag):
            if node.name == "br":
                parts.append(" ")
            elif node.name not in _SKIP_TAGS and not _hidden(node):
                stack.append(iter(node.contents))
        elif isinstance(node, NavigableString) and not isinstance(node, PreformattedString):
            parts.append(str(node))
    return normalise("".join(parts))


def _table_blocks(table: Tag) -> list[Block]:
    """One block per row of ``table`` (rows of nested tables belong to those tables)."""
    out: list[Block] = []
    for row in table.find_all("tr"):
        if row.find_parent("table") is not table:
            continue
        cells = [_cell_text(c) for c in row.find_all(["td", "th"], recursive=False)]
        cells = [c for c in cells if c]
        if not cells:
            continue
        text = " ".join(cells)
        long_cells = [c for c in cells if len(c) >= MIN_PARAGRAPH]
        prose = (len(long_cells) == 1 and all(len(c) <= 3 or c is long_cells[0] for c in cells)
                 and _is_sentence(long_cells[0]))
        out.append(Block(long_cells[0] if prose else text, table=not prose))
    return out


def _is_sentence(text: str) -> bool:
    """Running prose in a table cell: several words, mostly letters, ending like a sentence or a
    list entry (a row label ending in ":" is not prose)."""
    letters = sum(ch.isalpha() for ch in text)
    words = text.split()
    return (len(words) >= 8 and letters >= 0.6 * len(text)
            and (text.rstrip("”’\"') ")[-1:] in ".;!?" or words[-1] in ("and", "or")))


_PAGE_MARK = re.compile(r"^\s*<PAGE>\s*\d*\s*$", re.I | re.M)
_TABULAR_LINE = re.compile(r"\S {3,}\S.*\d|\d.* {3,}\S|\.{4,}|-{5,}|={5,}")


def text_blocks(body: str) -> list[Block]:
    """Blocks of a plain-text document: paragraphs separated by blank lines."""
    body = html.unescape(_PAGE_MARK.sub("\n", body.replace("\r\n", "\n")))
    blocks: list[Block] = []
    for chunk in re.split(r"\n[ \t]*\n", body):
        lines = [ln for ln in chunk.split("\n") if ln.strip()]
        if not lines:
            continue
        if len(lines) > 1 and parse_heading(lines[0].strip()) is not None:
            # a heading line (wrapped over upper-case lines) directly above its text
            size = 1
            while size < len(lines) and not re.search(r"[a-z]", lines[size]):
                size += 1
            blocks.append(Block(normalise(" ".join(lines[:size]))))
            lines = lines[size:]
            if not lines:
                continue
        tabular = sum(bool(_TABULAR_LINE.search(ln)) or figure_line(ln) for ln in lines) * 2 \
            >= len(lines) > 1
        text = normalise(" ".join(lines))
        if text:
            blocks.append(Block(text, table=tabular))
    return blocks
