"""Which cells of an imported table an answer may depend on (conservative inference).

Imported records have no programs, so the cells a variant must keep are guessed from the
words: a cell is protected when

* its normalised text equals or contains an answer value (each element of a list answer), or
  a number in it equals a numeric answer (``"1,234"`` and ``1234`` are one number);
* it is in a row whose label (first column) the question names, or in a column whose header
  the question names (the header cell, row 0, included);
* (TAT-QA) a number in it occurs in the answer's derivation;
* (TabFact) its text occurs in the statement; its whole row is protected with it.

Text is compared after :func:`hopvista.model.answers.normalise_text`, as whole words (``"3"``
is not found in ``"2013"``). A header cell of a column holding an answer cell is protected too.
When nothing can be tied to the answer, the whole table is protected: a variant may then hide
nothing rather than something the answer needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from hopvista.model.answers import normalise_text
from hopvista.model.inputs import GridTable
from hopvista.program.numbers import read_number
from hopvista.sources.imports import Protected

_NUMBER = re.compile(r"(?<![\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
QUOTE_LIMIT = 40
"""Longest text quoted in a ``why``."""


def cells(table: GridTable) -> Iterator[tuple[int, int, str]]:
    """Every cell as ``(row, col, text)``; row 0 is the header."""
    for r, row in enumerate((table.header, *table.rows)):
        for c, text in enumerate(row):
            yield r, c, text


def numbers_in(text: str) -> set[Decimal]:
    """The absolute values of the numbers written in ``text`` (thousands separators allowed)."""
    found = set()
    for match in _NUMBER.finditer(text):
        try:
            found.add(abs(Decimal(match.group().replace(",", ""))))
        except InvalidOperation:  # pragma: no cover - the pattern only matches numbers
            continue
    return found


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT - 1] + "…")


def _names(haystack: str, needle: str) -> bool:
    """Whether the normalised ``needle`` occurs in the normalised ``haystack`` as whole
    words (an empty needle never does)."""
    return bool(needle) and f" {needle} " in f" {haystack} "


def _answer_values(answer: Any) -> list[Any]:
    if isinstance(answer, bool) or answer is None:
        return []
    if isinstance(answer, list):
        return [value for value in answer if not isinstance(value, (bool, list, dict))]
    return [answer]


def answer_cells(table: GridTable, answer: Any) -> list[Protected]:
    """Cells matching the answer (or any element of a list answer), and the header cells of
    their columns."""
    found: list[Protected] = []
    for value in _answer_values(answer):
        text = normalise_text(str(value))
        number = read_number(value)
        for r, c, cell in cells(table):
            numeric = number is not None and abs(number) in numbers_in(cell)
            if numeric or _names(normalise_text(cell), text):
                found.append(Protected(r, c, f"matches the answer ({_quote(str(value))})"))
                if r > 0:
                    found.append(Protected(0, c, "header of a column holding the answer"))
    return found


def named_rows(table: GridTable, text: str, what: str = "question") -> list[Protected]:
    """Every cell of each row whose label (first column) ``text`` names."""
    said = normalise_text(text)
    found: list[Protected] = []
    for r, row in enumerate(table.rows, start=1):
        if row and _names(said, normalise_text(row[0])):
            why = f"in the row the {what} names ({_quote(row[0])})"
            found.extend(Protected(r, c, why) for c in range(len(row)))
    return found


def named_columns(table: GridTable, text: str, what: str = "question") -> list[Protected]:
    """Every cell of each column whose header ``text`` names, the header cell included."""
    said = normalise_text(text)
    found: list[Protected] = []
    for c, name in enumerate(table.header):
        if _names(said, normalise_text(name)):
            why = f"in the column the {what} names ({_quote(name)})"
            found.extend(Protected(r, c, why) for r in range(len(table.rows) + 1))
    return found


def derivation_cells(table: GridTable, derivation: str) -> list[Protected]:
    """Cells holding a number that occurs in ``derivation`` (TAT-QA's arithmetic)."""
    wanted = numbers_in(derivation)
    found: list[Protected] = []
    for r, c, cell in cells(table):
        shared = sorted(wanted & numbers_in(cell))
        if shared:
            found.append(Protected(r, c, f"holds a number of the derivation ({shared[0]})"))
    return found


def mentioned_cells(table: GridTable, text: str, what: str = "statement") -> list[Protected]:
    """Body cells whose text occurs in ``text``, with every cell of their rows (TabFact)."""
    said = normalise_text(text)
    found: list[Protected] = []
    for r, row in enumerate(table.rows, start=1):
        hits = [c for c, cell in enumerate(row) if _names(said, normalise_text(cell))]
        for c in hits:
            found.append(Protected(r, c, f"its text appears in the {what} ({_quote(row[c])})"))
        if hits:
            why = f"in the row of a cell the {what} names ({_quote(row[hits[0]])})"
            found.extend(Protected(r, c, why) for c in range(len(row)))
    return found


def whole_table(table: GridTable) -> list[Protected]:
    """Every cell, for a record whose answer nothing in the table can be tied to."""
    why = "nothing in the table could be tied to the answer: the whole table is protected"
    return [Protected(r, c, why) for r, c, _ in cells(table)]


def merge(table: GridTable, groups: Iterable[Sequence[Protected]]) -> tuple[Protected, ...]:
    """The groups' cells in grid order, each once (with the first reason found for it); the
    whole table when the groups hold none."""
    chosen: dict[tuple[int, int], Protected] = {}
    for group in groups:
        for cell in group:
            chosen.setdefault((cell.row, cell.col), cell)
    if not chosen:
        return tuple(whole_table(table))
    return tuple(chosen[key] for key in sorted(chosen))


def protect_answer(table: GridTable, question: str, answer: Any,
                   derivation: str = "") -> tuple[Protected, ...]:
    """The protected cells of a short-answer question: answer cells, named rows and columns,
    and (when given) the cells of a derivation's numbers."""
    return merge(table, [answer_cells(table, answer), named_rows(table, question),
                         named_columns(table, question),
                         derivation_cells(table, derivation) if derivation else []])


def protect_claim(table: GridTable, statement: str) -> tuple[Protected, ...]:
    """The protected cells of a statement to verify (TabFact): cells it mentions with their
    rows, and the rows and columns it names."""
    return merge(table, [mentioned_cells(table, statement),
                         named_rows(table, statement, "statement"),
                         named_columns(table, statement, "statement")])


def protect_statements(table: GridTable, statements: Sequence[str]) -> tuple[Protected, ...]:
    """The protected cells of three statements (FCMR): the rows and columns any of them
    names."""
    groups: list[Sequence[Protected]] = []
    for text in statements:
        groups += [named_rows(table, text, "statement"), named_columns(table, text, "statement")]
    return merge(table, groups)
