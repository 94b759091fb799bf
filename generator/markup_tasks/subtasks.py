"""What a markup subtask is, the registry of them, and the table view they draw from.

A subtask (``T4-argmax``) takes a table and the item's random streams and returns a
:class:`Drawn`: the marks to draw, the question, the answer it decided, and the program that
``gen verify`` executes to re-derive that answer. It raises :class:`Unsuitable` when the
table cannot carry it (too few numbers, ties); the build then draws another table.
A third-party package registers its own subtasks under the entry-point group
``hopvista.markup_tasks``.

A subtask's :class:`Wording` says how it asks: the shape of its programs, with a
:class:`Slot` where the draw fills in a value (a style, a colour, a column, a direction of
sorting), and the question those values give. The build words every question through it, and
``gen verify`` words the question again from the item's recorded program and table, so a
question that does not say what its program asks is found.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from hopvista.model.task import COLOURS, MARK_STYLES, Mark
from hopvista.program.numbers import read_number
from hopvista.registry import Registry
from hopvista.rng import Streams
from hopvista.themes.marks import MARK_KINDS

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
    styles: tuple[str, ...] = MARK_STYLES
    """The mark kinds a subtask that names a style draws from (``gen markup --marks``)."""

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


class WordingError(ValueError):
    """A program that is not one a subtask's wording makes (another shape, or a value its
    slot does not take)."""


@dataclass(frozen=True)
class Slot:
    """A place in a subtask's program that the draw fills in: its ``name`` (the keyword the
    question's wording takes) and what it may hold: one of a tuple of values, or any value of
    a type (compared by type exactly, so ``1`` is no ``True``)."""

    name: str
    allowed: tuple[Any, ...] | type

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` may fill this slot."""
        if isinstance(self.allowed, type):
            return type(value) is self.allowed
        return any(type(value) is type(option) and value == option for option in self.allowed)


@dataclass(frozen=True)
class Wording:
    """How a subtask asks: ``program`` is the shape of its programs (JSON values, with a
    :class:`Slot` where the draw fills one in), ``ask`` words the question's sentence from
    the table and the slots' values (as keywords), ``answer`` is the example of the answer's
    form the question ends with, and ``ordered`` the answer's list fields compared in order."""

    program: Mapping[str, Any]
    ask: Callable[..., str]
    answer: str
    ordered: tuple[str, ...] = ()

    def fill(self, **values: Any) -> dict[str, Any]:
        """The program with its slots filled by ``values`` (each checked)."""
        filled = _fill(self.program, values)
        assert isinstance(filled, dict)
        return filled

    def question(self, table: TaskTable, **values: Any) -> str:
        """The question the program with ``values`` asks about ``table``."""
        return f"{self.ask(table, **values)} {answer_format(self.answer)}"

    def drawn(self, table: TaskTable, marks: Sequence[Mark], answer: dict[str, Any],
              **values: Any) -> Drawn:
        """The task drawn on ``table`` with ``marks`` and ``answer``: its question and
        program both from ``values``."""
        return Drawn(table, tuple(marks), self.question(table, **values), answer,
                     self.fill(**values), self.ordered)

    def read(self, program: Any) -> dict[str, Any]:
        """The slots' values of a recorded ``program``; :class:`WordingError` when it is not
        of this wording's shape."""
        values: dict[str, Any] = {}
        _match(self.program, program, "", values)
        return values

    def asks(self, table: TaskTable, program: Any) -> str:
        """The question a recorded ``program`` asks about ``table``."""
        values = self.read(program)
        try:
            return self.question(table, **values)
        except (IndexError, KeyError, TypeError) as exc:
            raise WordingError(f"the program's values {values} cannot be worded on its "
                               f"table ({type(exc).__name__}: {exc})") from None


def _fill(shape: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(shape, Slot):
        value = values[shape.name]
        if not shape.accepts(value):
            raise WordingError(f"slot {shape.name!r} does not take {value!r}")
        return value
    if isinstance(shape, Mapping):
        return {key: _fill(child, values) for key, child in shape.items()}
    if isinstance(shape, (list, tuple)):
        return [_fill(child, values) for child in shape]
    return shape


def _match(shape: Any, value: Any, where: str, values: dict[str, Any]) -> None:
    """Match ``value`` against ``shape``, collecting the slots' values into ``values``."""
    at = where or "the program"
    if isinstance(shape, Slot):
        if not shape.accepts(value):
            raise WordingError(f"{at} is {_shown(value)}, which the subtask never asks")
        if shape.name in values and values[shape.name] != value:
            raise WordingError(f"{at} is {_shown(value)}, not {_shown(values[shape.name])}")
        values[shape.name] = value
        return
    if isinstance(shape, Mapping):
        if not isinstance(value, Mapping):
            raise WordingError(f"{at} is {_shown(value)}, not an object")
        unknown = sorted(set(value) - set(shape))
        if unknown:
            raise WordingError(f"{at} has a field {unknown[0][:40]!r} the subtask never sets")
        for key, child in shape.items():
            inner = f"{where}.{key}" if where else key
            if key not in value:
                raise WordingError(f"{inner} is missing")
            _match(child, value[key], inner, values)
        return
    if isinstance(shape, (list, tuple)):
        if not isinstance(value, list) or len(value) != len(shape):
            raise WordingError(f"{at} is {_shown(value)}, not a list of {len(shape)}")
        for k, (child, item) in enumerate(zip(shape, value, strict=True)):
            _match(child, item, f"{where}[{k}]", values)
        return
    if type(value) is not type(shape) or value != shape:
        raise WordingError(f"{at} is {_shown(value)}, not {_shown(shape)}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Subtask:
    """A registered subtask: its ``family`` (``T1`` … ``T5``), a one-line summary, how it
    is drawn, and how it words its questions (``None`` for a subtask registered without a
    wording: ``gen verify`` then says it did not check their questions)."""

    name: str
    family: str
    summary: str
    make: Make
    wording: Wording | None = None


MARKUP_TASKS: Registry[Subtask] = Registry(
    "markup task", "markup_tasks",
    builtins=("hopvista.markup_tasks.grounding", "hopvista.markup_tasks.retrieval",
              "hopvista.markup_tasks.relations", "hopvista.markup_tasks.aggregation",
              "hopvista.markup_tasks.missingness"))
"""Every markup subtask, by name."""


def subtask(name: str, family: str, summary: str,
            wording: Wording | None = None) -> Callable[[Make], Make]:
    """Register the decorated drawing function as subtask ``name`` of ``family``; its
    questions are worded by ``wording`` (which ``gen verify`` words again)."""
    def register(make: Make) -> Make:
        MARKUP_TASKS.register(name, Subtask(name, family, summary, make, wording))
        return make
    return register


# -- helpers the families share ---------------------------------------------------------------

STYLE_WORDS = {"highlight": "highlighted", "underline": "underlined", "bold": "in bold"}


STYLE = Slot("style", str)
"""The slot of a mark style a question names (a mark kind that marks a cell: :func:`styled`
words it, and refuses any other)."""
COLOUR = Slot("colour", tuple(sorted(COLOURS)))
"""The slot of a highlight colour a question names."""
COLUMN = Slot("column", int)
"""The slot of a column (its index) a question names by its header."""


def styled(style: str, colour: str | None = None) -> str:
    """How a question names a style: ``highlighted in green``, ``underlined``, ``in bold``,
    or another mark kind's words (``pointed at by an arrow``); a ``KeyError`` for a style that
    is no installed kind marking one cell."""
    if style == "highlight" and colour:
        return f"highlighted in {colour}"
    if style in STYLE_WORDS:
        return STYLE_WORDS[style]
    if style in MARK_KINDS and MARK_KINDS.get(style).scope == "cell":
        return MARK_KINDS.get(style).words
    raise KeyError(style)


def column_header(table: TaskTable, column: int) -> str:
    """The header of value column ``column`` (a :class:`WordingError` for a column the table
    does not have, or its label column)."""
    if not 1 <= column < table.cols:
        raise WordingError(f"column {column} is no value column of the table")
    return table.header(column)


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
    return Mark(row=cell[0], col=cell[1], style=style,
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
