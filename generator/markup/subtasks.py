"""What a markup subtask is, the registry of them, and the table view they draw from.

A subtask (``T4-argmax``) takes a table and the item's random streams and returns a
:class:`Drawn`: the marks to draw, the question, the answer it decided, and the program that
``gen verify`` executes to re-derive that answer. It raises :class:`Unsuitable` when the
table cannot carry it (too few numbers, ties); the build then draws another table.
A third-party package registers its own subtasks under the entry-point group
``hopvista.markup_tasks``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from hopvista.model.answers import read_number
from hopvista.model.task import COLOURS, Mark
from hopvista.registry import Registry
from hopvista.rng import Streams

MISSING_SHOWN = ("", "\u2014", "N/A", "-", "n/a")
"""How a task table shows a cell without a value (each read as missing by the format)."""

_MISSING = frozenset(t.lower() for t in MISSING_SHOWN) | {"\u2013", "na", "--"}


class Unsuitable(Exception):
    """The table cannot carry this subtask; the message says why."""


@dataclass(frozen=True)
class TaskTable:
    """A table a task is drawn on: ``cells[0]`` is the header row, column 0 the row labels
    (unique, as are the headers); every cell is the text the image shows."""

    cells: tuple[tuple[str, ...], ...]
    caption: str | None
    source: str

    @property
    def rows(self) -> int:
        """Body rows."""
        return len(self.cells) - 1

    @property
    def cols(self) -> int:
        """Columns, the label column included."""
        return len(self.cells[0])

    def text(self, r: int, c: int) -> str:
        """The text of cell ``(r, c)``."""
        return self.cells[r][c]

    def label(self, r: int) -> str:
        """The label of body row ``r``."""
        return self.cells[r][0]

    def header(self, c: int) -> str:
        """The header of column ``c``."""
        return self.cells[0][c]

    def missing(self, r: int, c: int) -> bool:
        """Whether the cell shows no value."""
        return self.cells[r][c].strip().lower() in _MISSING

    def number(self, r: int, c: int) -> Decimal | None:
        """The cell's number, or ``None``."""
        return None if self.missing(r, c) else read_number(self.cells[r][c])

    def body(self) -> list[tuple[int, int]]:
        """Every body value cell (not a header, not a row label), row by row."""
        return [(r, c) for r in range(1, len(self.cells)) for c in range(1, self.cols)]

    def numeric_columns(self, least: int = 3) -> list[int]:
        """Value columns whose every present cell is a number, with at least ``least``
        distinct numbers."""
        found = []
        for c in range(1, self.cols):
            present = [r for r in range(1, len(self.cells)) if not self.missing(r, c)]
            numbers = [self.number(r, c) for r in present]
            if all(n is not None for n in numbers) and len(set(numbers)) >= least:
                found.append(c)
        return found

    def blanked(self, cells: Sequence[tuple[int, int]], tokens: Sequence[str]) -> TaskTable:
        """A copy with ``cells`` showing ``tokens`` (one each) instead of their values."""
        rows = [list(row) for row in self.cells]
        for (r, c), token in zip(cells, tokens, strict=True):
            rows[r][c] = token
        return replace(self, cells=tuple(tuple(row) for row in rows))


@dataclass(frozen=True)
class Drawn:
    """One task as a subtask drew it: the (possibly blanked) table, its marks, the question
    (answer format included), the answer, the program and the ordered answer fields."""

    table: TaskTable
    marks: tuple[Mark, ...]
    question: str
    answer: dict[str, Any]
    program: dict[str, Any]
    ordered: tuple[str, ...] = ()


Make = Callable[[TaskTable, Streams, bool], Drawn]
"""A subtask's drawing function: (table, streams, the planned boolean) → :class:`Drawn`. The
boolean alternates between a subtask's items so yes/no answers are balanced; subtasks
without a yes/no answer ignore it."""


@dataclass(frozen=True)
class Subtask:
    """A registered subtask: its ``family`` (``T1`` … ``T5``), a one-line summary and how it
    is drawn."""

    name: str
    family: str
    summary: str
    make: Make


MARKUP_TASKS: Registry[Subtask] = Registry(
    "markup task", "markup_tasks",
    builtins=("hopvista.markup.grounding", "hopvista.markup.retrieval",
              "hopvista.markup.relations", "hopvista.markup.aggregation",
              "hopvista.markup.missingness"))
"""Every markup subtask, by name."""


def subtask(name: str, family: str, summary: str) -> Callable[[Make], Make]:
    """Register the decorated drawing function as subtask ``name`` of ``family``."""
    def register(make: Make) -> Make:
        MARKUP_TASKS.register(name, Subtask(name, family, summary, make))
        return make
    return register


# -- helpers the families share ---------------------------------------------------------------

STYLE_WORDS = {"highlight": "highlighted", "underline": "underlined", "bold": "in bold"}


def styled(style: str, colour: str | None = None) -> str:
    """How a question names a style: ``highlighted in green``, ``underlined``, ``in bold``."""
    return f"highlighted in {colour}" if style == "highlight" and colour else STYLE_WORDS[style]


def answer_format(example: str) -> str:
    """The answer-format sentence every question ends with."""
    return f"Answer with a JSON object only, in the form {example}."


def pick(streams: Streams, name: str, options: Sequence[Any], k: int) -> list[Any]:
    """``k`` distinct options drawn from ``streams`` (in their drawn order)."""
    if k > len(options):
        raise Unsuitable(f"needs {k} cells or columns, the table has {len(options)}")
    order = streams.stream(name).permutation(len(options))
    return [options[int(i)] for i in order[:k]]


def one(streams: Streams, name: str, options: Sequence[Any]) -> Any:
    """One option drawn from ``streams``."""
    return pick(streams, name, options, 1)[0]


def colour_names(streams: Streams, name: str, k: int) -> list[str]:
    """``k`` distinct highlight colour names."""
    return pick(streams, name, sorted(COLOURS), k)


def mark(cell: tuple[int, int], style: str, colour: str | None = None) -> Mark:
    """A mark on ``cell`` (a highlight takes a colour name; others none)."""
    return Mark(row=cell[0], col=cell[1], style=style,  # type: ignore[arg-type]
                colour=colour if style == "highlight" else None)


def json_number(value: Decimal) -> int | float:
    """A decimal as a JSON number (an integer when it is whole)."""
    return int(value) if value == value.to_integral_value() else float(value)


def numeric_column(table: TaskTable, streams: Streams, least: int = 3) -> int:
    """A numeric value column with at least ``least`` distinct numbers."""
    columns = table.numeric_columns(least)
    if not columns:
        raise Unsuitable(f"no column of at least {least} distinct numbers")
    return int(one(streams, "task.column", columns))
