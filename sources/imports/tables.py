"""Tables of imported records as :class:`~hopvista.model.inputs.GridTable`: from rows, a
Markdown pipe table, CSV text or an HTML ``<table>``.

Every cell and the caption pass through :func:`~hopvista.sources.imports.html.plain_text`, so
no markup from an input reaches a grid. The first row is the header. A row shorter than the
header is padded with empty cells; a row longer than the header widens the table (the header
gets empty names for the extra columns), so no cell is lost. A table beyond what can be shown
(:data:`MAX_CELL_CHARS`, :data:`MAX_CELLS`, ``MAX_ROWS`` and ``MAX_COLUMNS`` of
:mod:`~hopvista.sources.imports.html`) or holding a refused number
(``NaN``, ``Infinity``, 400 digits) is a :class:`TableError`. Rows are split at line breaks
(``\n``, ``\r\n``, ``\r``) only: a Unicode line separator stays inside its cell.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from typing import Any

from hopvista.errors import excerpt
from hopvista.model.inputs import GridTable
from hopvista.sources.imports.common import (
    MAX_NUMBER_DIGITS,
    BadNumber,
    number_problem,
)
from hopvista.sources.imports.html import MAX_COLUMNS, MAX_ROWS, plain_text, table_grid

MAX_CELL_CHARS = 2_000
"""Longest text of a cell or caption (after markup is reduced to text)."""
MAX_CELLS = 100_000
"""Most cells of a table."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class TableError(ValueError):
    """A table that cannot be read (its record is skipped with this message)."""


def cell_text(value: Any) -> str:
    """A cell value as its text: strings as they are (markup reduced to text), ``None`` as
    ``""``, numbers and booleans as JSON writes them. A :class:`TableError` for a refused
    number or a text longer than :data:`MAX_CELL_CHARS`."""
    if value is None:
        return ""
    if isinstance(value, BadNumber):
        raise TableError(f"a cell holds {value.why}")
    if isinstance(value, str):
        text = plain_text(value)
        if len(text) > MAX_CELL_CHARS:
            raise TableError(f"a cell of {len(text):,} characters (at most {MAX_CELL_CHARS:,}): "
                             f"{excerpt(text, length=False)}")
        return text
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int) and abs(value) >= 10 ** MAX_NUMBER_DIGITS:
        raise TableError(f"a cell holds a number of more than {MAX_NUMBER_DIGITS} digits")
    if isinstance(value, float) and (problem := number_problem(repr(value))):
        raise TableError(f"a cell holds {problem}")
    if isinstance(value, (int, float)):
        return json.dumps(value)
    raise TableError(f"a cell is a {type(value).__name__}, not a text or a number")


def _texts(row: Sequence[Any], r: int) -> list[str]:
    """The texts of row ``r`` (0 the header), a :class:`TableError` naming the cell."""
    texts = []
    for c, cell in enumerate(row):
        try:
            texts.append(cell_text(cell))
        except TableError as exc:
            raise TableError(f"{'header' if r == 0 else f'row {r}'}, column {c + 1}: "
                             f"{exc}") from None
    return texts


def _check_shape(rows: Sequence[Sequence[Any]]) -> None:
    if len(rows) > MAX_ROWS:
        raise TableError(f"the table has {len(rows):,} rows (at most {MAX_ROWS:,})")
    widest = max((len(row) for row in rows), default=0)
    if widest > MAX_COLUMNS:
        raise TableError(f"the table has {widest:,} columns (at most {MAX_COLUMNS:,})")
    if widest * len(rows) > MAX_CELLS:
        raise TableError(f"the table has {len(rows):,} rows of up to {widest:,} cells (at most "
                         f"{MAX_CELLS:,} cells)")


def grid(rows: Sequence[Sequence[Any]], header: Sequence[Any] | None = None,
         caption: str | None = None) -> GridTable:
    """A grid from ``rows`` (the first is the header unless ``header`` is given)."""
    _check_shape([*rows, header or []])
    first = 0 if header is None else 1
    texts = [_texts(row, r) for r, row in enumerate(rows, start=first)]
    head = _texts(header, 0) if header is not None else None
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
    if title and len(title) > MAX_CELL_CHARS:
        raise TableError(f"the caption has {len(title):,} characters "
                         f"(at most {MAX_CELL_CHARS:,}): {excerpt(title, length=False)}")
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
    lines = [line for line in _LINE_BREAK.split(text) if line.strip()]
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
