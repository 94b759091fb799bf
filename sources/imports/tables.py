"""Tables of imported records as :class:`~hopvista.model.inputs.GridTable`: from rows, a
Markdown pipe table, CSV text or an HTML ``<table>``.

Every cell and the caption pass through :func:`~hopvista.sources.imports.html.plain_text`, so
no markup from an input reaches a grid. The first row is the header. A row shorter than the
header is padded with empty cells; a row longer than the header widens the table (the header
gets empty names for the extra columns), so no cell is lost.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from typing import Any

from hopvista.model.inputs import GridTable
from hopvista.sources.imports.html import plain_text, table_grid


class TableError(ValueError):
    """A table that cannot be read (its record is skipped with this message)."""


def cell_text(value: Any) -> str:
    """A cell value as its text: strings as they are (markup reduced to text), ``None`` as
    ``""``, numbers and booleans as JSON writes them."""
    if value is None:
        return ""
    if isinstance(value, str):
        return plain_text(value)
    if isinstance(value, (bool, int, float)):
        return json.dumps(value)
    raise TableError(f"a cell is a {type(value).__name__}, not a text or a number")


def grid(rows: Sequence[Sequence[Any]], header: Sequence[Any] | None = None,
         caption: str | None = None) -> GridTable:
    """A grid from ``rows`` (the first is the header unless ``header`` is given)."""
    texts = [[cell_text(cell) for cell in row] for row in rows]
    head = [cell_text(cell) for cell in header] if header is not None else None
    if head is None:
        if not texts:
            raise TableError("the table has no rows")
        head, texts = texts[0], texts[1:]
    width = max([len(head), *(len(row) for row in texts)])
    if width == 0:
        raise TableError("the table has no columns")
    head = head + [""] * (width - len(head))
    body = tuple(tuple(row + [""] * (width - len(row))) for row in texts)
    title = plain_text(caption).strip() if caption else None
    return GridTable(caption=title or None, header=tuple(head), rows=body)


def from_rows(rows: Any, header: Any = None, caption: str | None = None) -> GridTable:
    """A grid from JSON rows (a list of lists), checking their shape."""
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise TableError("rows is not a list of lists")
    if header is not None and not isinstance(header, list):
        raise TableError("header is not a list")
    return grid(rows, header, caption)


def from_csv(text: str, caption: str | None = None, delimiter: str = ",") -> GridTable:
    """A grid from CSV text (standard quoting; blank lines ignored)."""
    try:
        rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if row]
    except csv.Error as exc:
        raise TableError(f"CSV: {exc}") from None
    return grid(rows, caption=caption)


_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_PIPE = re.compile(r"(?<!\\)\|")


def _pipe_cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _PIPE.split(line)]


def from_markdown(text: str, caption: str | None = None) -> GridTable:
    """A grid from a Markdown pipe table: a header line, a ``---`` separator line, body lines
    (``\\|`` is a literal pipe)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or not _SEPARATOR.match(lines[1]) or "|" not in lines[0]:
        raise TableError("not a Markdown pipe table (a header line, then a |---| line)")
    return grid([_pipe_cells(line) for line in [lines[0], *lines[2:]]], caption=caption)


def from_html(text: str, caption: str | None = None) -> GridTable:
    """A grid from the first HTML ``<table>`` in ``text`` (its ``<caption>`` unless
    ``caption`` is given)."""
    try:
        rows, found = table_grid(text)
    except ValueError as exc:
        raise TableError(f"HTML: {exc}") from None
    return grid(rows, caption=caption or found)
