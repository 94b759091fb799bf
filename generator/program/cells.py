"""The language of multimodal-table questions, executed on a grid table and its cell visuals
(docs/format.md, section 12). ``gen verify`` re-derives every ``mmtable`` item's answer with
:func:`execute` and checks with :func:`visual_witness` that the question needs its visuals.

A table is read as a grid: row 0 is the header, rows 1 and on are the body; a column is
named by its header text (or its index). A cell holding a picture shows no text; its
*visual* is ``{"kind", "colors", "attributes", ...}`` (:class:`hopvista.model.mmtable.Visual`).

A **reading** gives one value of a row:

``{"column": C}``
    the row's cell text in column ``C`` (a number when it reads as one:
    :func:`hopvista.program.numbers.read_number`);
``{"visual": C, "attribute": A}``
    attribute ``A`` of the visual in the row's cell of column ``C`` (``A`` is a key of its
    ``attributes``, or ``kind`` or ``colors``); with ``"of"`` a list attribute is reduced:
    ``first``, ``last``, ``min``, ``max``, ``sum``, ``change`` (last minus first) of a list of
    numbers, ``count`` of any list;
``{"cell": C}``
    the location ``"row_i_col_j"`` of the row's cell in column ``C``, which must hold a
    visual (where the picture of the row's entity is).

A **condition** is a reading with one comparison: ``eq``, ``ne`` (numbers compared as
numbers, texts case-insensitively), ``gt``, ``ge``, ``lt``, ``le`` (numbers), ``has``,
``lacks`` (a list holds, or does not hold, a value); the value compared with is a literal or
another reading of the same row. ``where`` is a list of conditions, all of which a row must
meet (a row without the visual a condition reads does not meet it). The operations, and
the answer each gives:

==============  =====================================  =========================================
op              arguments                              answer
==============  =====================================  =========================================
``value``       ``where`` (one row), ``read``          the reading
``values``      ``where`` (some rows), ``read``        the readings, rows in table order
``fields``      ``where`` (one row), ``read`` (list)   the readings, in the order asked
``count``       ``where``                              the number of rows
``sum``         ``where`` (some rows), ``read``        the sum of the readings
``mean``        ``where`` (some rows), ``read``        their mean
``difference``  ``a``, ``b`` (one row each), ``read``  reading of ``a`` minus reading of ``b``
``ratio``       ``a``, ``b`` (one row each), ``read``  reading of ``a`` divided by that of ``b``
``argmax``      ``where``, ``by``, ``read``            ``read`` of the row with the largest ``by``
``argmin``      ``where``, ``by``, ``read``            ``read`` of the row with the smallest ``by``
``check``       ``where`` (one row), ``test``          whether the row meets ``test`` (a condition
                                                       or a list of them)
``locate``      ``where``, ``column`` (optional)       ``"row_i_col_j"`` of the one visual among
                                                       the rows (in ``column``)
==============  =====================================  =========================================

The ``read`` of ``argmax``, ``argmin``, ``sum``, ``mean``, ``difference`` and ``ratio`` may
also be a list of readings: the answer is then the list of what the op gives of each reading,
in the order asked (``sum`` of ``[points, wins]``: the total points and the total wins).

Answers are written by MMTabReal's rules (its Appendix E): a whole number without decimals, any
other rounded half-up to two decimals with trailing zeros dropped (``23.4``); a text as the
cell shows it with runs of white space made one space; a list as a JSON array; a yes/no as
``true``/``false``; a location as ``row_i_col_j``, ``i`` the grid row (the header is row 0, so
the first body row is 1) and ``j`` the column counted from 1. A program that cannot be
executed (a ``where`` that must pick one row picks several or none, a reading of a missing
cell or visual, a number that does not read, a tie for an extreme, a division by zero)
raises :class:`ProgramError`.

**Visual necessity.** A question needs its visuals when the answer is not decided by the rest
of the table: with the visuals' attributes withheld, more than one outcome (an answer, or no
answer) is consistent with some assignment of them. :func:`visual_witness` proves it by a
witness: one visual whose attributes the program reads, given other values from their
vocabulary, changes the outcome. An attribute's vocabulary is the one given for its kind
(``vocabulary[kind][attribute]``), else the values visuals of the same kind take in the item,
together with, for a text or a number, one value none of them takes (``"other"``, one less than
the least and one more than the greatest). Only one visual is changed at a time: a question
whose answer only changes when two visuals change together is counted as not needing its
visuals.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from hopvista.program.numbers import read_number

Grid = Sequence[Sequence[str]]
Visuals = Mapping[tuple[int, int], Mapping[str, Any]]
Vocabulary = Mapping[str, Mapping[str, Sequence[Any]]]

OPS = ("value", "values", "fields", "count", "sum", "mean", "difference", "ratio", "argmax",
       "argmin", "check", "locate")
COMPARISONS = ("eq", "ne", "gt", "ge", "lt", "le", "has", "lacks")
REDUCTIONS = ("first", "last", "min", "max", "sum", "change", "count")
HUNDREDTH = Decimal("0.01")
OTHER = "other"
"""The value a withheld text attribute is given that no visual of the item takes."""
MAX_ASSIGNMENTS = 4096
"""Assignments of one visual's read attributes tried, at most, by :func:`visual_witness`."""


class ProgramError(ValueError):
    """A multimodal-table program that cannot be executed on its table and visuals."""


# -- reading cells and visuals ----------------------------------------------------------------


def column_index(grid: Grid, column: Any) -> int:
    """The index of the column named ``column`` (its header text, or an index)."""
    if type(column) is int:
        if 0 <= column < len(grid[0]):
            return column
        raise ProgramError(f"column {column} lies outside the table")
    found = [c for c, text in enumerate(grid[0]) if text == column]
    if len(found) != 1:
        raise ProgramError(f"{len(found)} columns are headed {str(column)[:40]!r}, not one")
    return found[0]


def canonical_number(number: Decimal) -> int | float:
    """``number`` written by MMTabReal's rules: whole numbers without decimals, others rounded
    half-up to two decimals without trailing zeros."""
    rounded = number.quantize(HUNDREDTH, rounding=ROUND_HALF_UP)
    if rounded == rounded.to_integral_value():
        return int(rounded)
    return float(rounded.normalize())


def canonical(value: Any) -> Any:
    """A reading written as an answer: numbers by :func:`canonical_number`, texts with white
    space collapsed, lists element by element."""
    if isinstance(value, bool):
        return value
    if isinstance(value, Decimal):
        return canonical_number(value)
    if isinstance(value, int | float):
        return canonical_number(Decimal(str(value)))
    if isinstance(value, str):
        number = read_number(value)
        return canonical_number(number) if number is not None else " ".join(value.split())
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    raise ProgramError(f"{str(value)[:40]!r} cannot be written as an answer")


def _reduce(values: Any, how: str) -> Any:
    if not isinstance(values, list | tuple):
        raise ProgramError(f"{how!r} of {str(values)[:40]!r}, which is not a list")
    if how == "count":
        return len(values)
    numbers = [_as_number(v) for v in values]
    if not numbers:
        raise ProgramError(f"{how!r} of an empty list")
    reduced = {"first": lambda: numbers[0], "last": lambda: numbers[-1],
               "min": lambda: min(numbers), "max": lambda: max(numbers),
               "sum": lambda: sum(numbers, Decimal(0)),
               "change": lambda: numbers[-1] - numbers[0]}
    if how not in reduced:
        raise ProgramError(f"unknown reduction {how!r} (one of {list(REDUCTIONS)})")
    return reduced[how]()


def read(grid: Grid, visuals: Visuals, row: int, reading: Mapping[str, Any]) -> Any:
    """The value ``reading`` gives of body row ``row``."""
    if "visual" in reading:
        col = column_index(grid, reading["visual"])
        visual = visuals.get((row, col))
        if visual is None:
            raise ProgramError(f"row {row} has no visual in column {col}")
        name = str(reading.get("attribute"))
        attributes = visual.get("attributes") or {}
        if name in ("kind", "colors"):
            value = visual.get(name)
        elif name in attributes:
            value = attributes[name]
        else:
            raise ProgramError(f"the visual at row {row}, column {col} has no attribute "
                               f"{name[:40]!r}")
        return _reduce(value, str(reading["of"])) if "of" in reading else value
    if "cell" in reading:
        col = column_index(grid, reading["cell"])
        if (row, col) not in visuals:
            raise ProgramError(f"row {row} has no visual in column {col}")
        return location(row, col)
    if "column" in reading:
        col = column_index(grid, reading["column"])
        text = grid[row][col]
        if not text.strip():
            raise ProgramError(f"the cell at row {row}, column {col} shows no text")
        number = read_number(text)
        return number if number is not None else " ".join(text.split())
    raise ProgramError(f"a reading names no column, visual or cell: {dict(reading)}")


def _as_number(value: Any) -> Decimal:
    if isinstance(value, Decimal):
        return value
    number = read_number(value) if not isinstance(value, bool) else None
    if number is None:
        raise ProgramError(f"{str(value)[:40]!r} is not a number")
    return number


def _same(a: Any, b: Any) -> bool:
    x = None if isinstance(a, bool) else read_number(a) if not isinstance(a, Decimal) else a
    y = None if isinstance(b, bool) else read_number(b) if not isinstance(b, Decimal) else b
    if x is not None and y is not None:
        return x == y
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold().strip() == b.casefold().strip()
    return bool(a == b)


def meets(grid: Grid, visuals: Visuals, row: int, condition: Mapping[str, Any]) -> bool:
    """Whether body row ``row`` meets ``condition``."""
    compared = [key for key in COMPARISONS if key in condition]
    if len(compared) != 1:
        raise ProgramError(f"a condition has {len(compared)} comparisons, not one: "
                           f"{str(dict(condition))[:80]}")
    how = compared[0]
    if "visual" in condition and not _shows(visuals, row, column_index(grid, condition["visual"]),
                                            str(condition.get("attribute"))):
        return False
    value = read(grid, visuals, row, condition)
    other = condition[how]
    if isinstance(other, Mapping):
        other = read(grid, visuals, row, other)
    if how in ("eq", "ne"):
        return _same(value, other) == (how == "eq")
    if how in ("has", "lacks"):
        if not isinstance(value, list | tuple):
            raise ProgramError(f"{how!r} on {str(value)[:40]!r}, which is not a list")
        return any(_same(v, other) for v in value) == (how == "has")
    x, y = _as_number(value), _as_number(other)
    return {"gt": x > y, "ge": x >= y, "lt": x < y, "le": x <= y}[how]


def _shows(visuals: Visuals, row: int, col: int, attribute: str) -> bool:
    """Whether the cell holds a visual that has ``attribute``."""
    visual = visuals.get((row, col))
    return visual is not None and (attribute in ("kind", "colors") or
                                   attribute in (visual.get("attributes") or {}))


def rows_where(grid: Grid, visuals: Visuals, where: Sequence[Mapping[str, Any]]) -> list[int]:
    """The body rows meeting every condition of ``where``, in table order."""
    if not isinstance(where, list | tuple):
        raise ProgramError("where is not a list of conditions")
    return [r for r in range(1, len(grid))
            if all(meets(grid, visuals, r, condition) for condition in where)]


def _one_row(grid: Grid, visuals: Visuals, where: Sequence[Mapping[str, Any]]) -> int:
    rows = rows_where(grid, visuals, where)
    if len(rows) != 1:
        raise ProgramError(f"where picks {len(rows)} rows, not one")
    return rows[0]


def _some_rows(grid: Grid, visuals: Visuals, where: Sequence[Mapping[str, Any]]) -> list[int]:
    rows = rows_where(grid, visuals, where)
    if not rows:
        raise ProgramError("where picks no row")
    return rows


# -- executing --------------------------------------------------------------------------------


def execute(grid: Grid, visuals: Visuals, program: Mapping[str, Any]) -> Any:
    """The answer of ``program`` on the table ``grid`` (header row first) and its ``visuals``
    (grid cell → visual), written by MMTabReal's rules."""
    op = program.get("op")
    where = program.get("where", [])
    if op == "value":
        return canonical(read(grid, visuals, _one_row(grid, visuals, where), program["read"]))
    if op == "values":
        return [canonical(read(grid, visuals, r, program["read"]))
                for r in _some_rows(grid, visuals, where)]
    if op == "fields":
        row = _one_row(grid, visuals, where)
        return [canonical(read(grid, visuals, row, reading)) for reading in program["read"]]
    if op == "count":
        return len(rows_where(grid, visuals, where))
    if op in ("sum", "mean"):
        rows = _some_rows(grid, visuals, where)
        return _each(program["read"], lambda reading: _total(grid, visuals, rows, reading, op))
    if op in ("difference", "ratio"):
        a = _one_row(grid, visuals, program["a"])
        b = _one_row(grid, visuals, program["b"])
        return _each(program["read"],
                     lambda reading: _compare(grid, visuals, a, b, reading, op))
    if op in ("argmax", "argmin"):
        row = _extreme_row(grid, visuals, program, op)
        return _each(program["read"],
                     lambda reading: canonical(read(grid, visuals, row, reading)))
    if op == "check":
        row = _one_row(grid, visuals, where)
        test = program["test"]
        tests = test if isinstance(test, list | tuple) else [test]
        return all(meets(grid, visuals, row, condition) for condition in tests)
    if op == "locate":
        return _locate(grid, visuals, program)
    raise ProgramError(f"unknown op {str(op)[:40]!r} (one of {list(OPS)})")


def _each(asked: Any, answer: Callable[[Mapping[str, Any]], Any]) -> Any:
    """``answer`` of the reading ``asked``, or of each reading when ``asked`` is a list."""
    if isinstance(asked, list | tuple):
        if not asked:
            raise ProgramError("read is an empty list")
        return [answer(reading) for reading in asked]
    return answer(asked)


def _total(grid: Grid, visuals: Visuals, rows: Sequence[int], reading: Mapping[str, Any],
           op: str) -> int | float:
    numbers = [_as_number(read(grid, visuals, r, reading)) for r in rows]
    total = sum(numbers, Decimal(0))
    return canonical_number(total / len(numbers) if op == "mean" else total)


def _compare(grid: Grid, visuals: Visuals, a: int, b: int, reading: Mapping[str, Any],
             op: str) -> int | float:
    x = _as_number(read(grid, visuals, a, reading))
    y = _as_number(read(grid, visuals, b, reading))
    if op == "difference":
        return canonical_number(x - y)
    if y == 0:
        raise ProgramError("a ratio to zero")
    return canonical_number(x / y)


def _extreme_row(grid: Grid, visuals: Visuals, program: Mapping[str, Any], op: str) -> int:
    rows = _some_rows(grid, visuals, program.get("where", []))
    keyed = [(_as_number(read(grid, visuals, r, program["by"])), r) for r in rows]
    best = max(k for k, _ in keyed) if op == "argmax" else min(k for k, _ in keyed)
    winners = [r for k, r in keyed if k == best]
    if len(winners) != 1:
        raise ProgramError(f"{len(winners)} rows tie for the extreme")
    return winners[0]


def location(row: int, col: int) -> str:
    """The answer naming grid cell (``row``, ``col``): ``row_{row}_col_{col + 1}``."""
    return f"row_{row}_col_{col + 1}"


def _locate(grid: Grid, visuals: Visuals, program: Mapping[str, Any]) -> str:
    rows = set(rows_where(grid, visuals, program.get("where", [])))
    col = column_index(grid, program["column"]) if "column" in program else None
    cells = sorted(cell for cell in visuals
                   if cell[0] in rows and (col is None or cell[1] == col))
    if len(cells) != 1:
        raise ProgramError(f"the rows picked hold {len(cells)} visuals, not one")
    return location(*cells[0])


# -- what a program reads ---------------------------------------------------------------------


def readings(node: Any) -> Iterator[Mapping[str, Any]]:
    """Every reading and condition in a program (or part of one), depth first."""
    if isinstance(node, Mapping):
        if "column" in node or "visual" in node or "cell" in node:
            yield node
        for value in node.values():
            yield from readings(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from readings(value)


def visual_attributes(program: Mapping[str, Any]) -> set[str]:
    """The attributes of visuals ``program`` reads (``kind``, ``colors`` or the kinds' own)."""
    return {str(r.get("attribute")) for r in readings(program) if "visual" in r}


def answer_readings(program: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The readings an answer is made of (``by`` and ``where`` excluded)."""
    op = program.get("op")
    if op == "check":
        test = program.get("test")
        return list(readings(test))
    got = program.get("read")
    if isinstance(got, list | tuple):
        return [r for r in got if isinstance(r, Mapping)]
    return [got] if isinstance(got, Mapping) else []


def read_columns(grid: Grid, program: Mapping[str, Any]) -> set[int]:
    """The columns whose cell text ``program`` reads. A condition is tested on every body
    row, so the answer may depend on each body cell of these columns; a reading naming no
    column of ``grid`` is left out (executing the program fails on it)."""
    found: set[int] = set()
    for reading in readings(program):
        if "column" not in reading:
            continue
        try:
            found.add(column_index(grid, reading["column"]))
        except ProgramError:
            continue
    return found


PLACE, ORDER = "place", "order"
"""What of a table's layout an answer may name: a cell's place (``locate``, or a reading of a
cell's location: ``row_i_col_j``, the row and column as the table was built) or the order of
its rows (``values``: rows in table order)."""


def layout_dependence(program: Mapping[str, Any]) -> str | None:
    """What of the table's layout the answer of ``program`` names: :data:`PLACE`,
    :data:`ORDER`, or ``None`` when any layout showing every cell keeps the answer."""
    op = program.get("op")
    if op == "locate" or _reads_a_location(program.get("read")):
        return PLACE
    if op == "values":
        return ORDER
    return None


def _reads_a_location(node: Any) -> bool:
    """Whether a ``read`` (a reading or a list of them) reads a cell's location
    (``{"cell": C}``)."""
    if isinstance(node, Mapping):
        return "cell" in node
    if isinstance(node, list | tuple):
        return any(_reads_a_location(value) for value in node)
    return False


def answered_rows(grid: Grid, visuals: Visuals, program: Mapping[str, Any]) -> list[int]:
    """The body rows the answer is read from (``[]`` for ops that answer no row's reading)."""
    op = program.get("op")
    if op in ("value", "fields", "check"):
        return [_one_row(grid, visuals, program.get("where", []))]
    if op == "values":
        return _some_rows(grid, visuals, program.get("where", []))
    if op in ("argmax", "argmin"):
        return [_extreme_row(grid, visuals, program, op)]
    return []


# -- visual necessity -------------------------------------------------------------------------


def _outcome(grid: Grid, visuals: Visuals, program: Mapping[str, Any]) -> str:
    try:
        return json.dumps(execute(grid, visuals, program), sort_keys=True)
    except (ProgramError, KeyError, TypeError, ValueError, ArithmeticError, InvalidOperation):
        return "no answer"


def vocabulary_of(visuals: Visuals, kind: str, attribute: str,
                  vocabulary: Vocabulary | None = None) -> list[Any]:
    """The values ``attribute`` of a visual of ``kind`` may take (see the module docstring)."""
    given = (vocabulary or {}).get(kind, {}).get(attribute)
    if given is not None:
        return list(given)
    seen: list[Any] = []
    for visual in visuals.values():
        if visual.get("kind") != kind:
            continue
        value = visual.get(attribute) if attribute in ("kind", "colors") else \
            (visual.get("attributes") or {}).get(attribute)
        if value is not None and value not in seen:
            seen.append(value)
    numbers = [v for v in seen if isinstance(v, int | float) and not isinstance(v, bool)]
    if numbers and len(numbers) == len(seen):
        return [*seen, min(numbers) - 1, max(numbers) + 1]
    if seen and all(isinstance(v, str) for v in seen):
        return [*seen, OTHER]
    return seen


def _with(visual: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    changed = dict(visual)
    attributes = dict(visual.get("attributes") or {})
    for name, value in changes.items():
        if name in ("kind", "colors"):
            changed[name] = value
        else:
            attributes[name] = value
    changed["attributes"] = attributes
    return changed


def visual_witness(grid: Grid, visuals: Visuals, program: Mapping[str, Any],
                   vocabulary: Vocabulary | None = None
                   ) -> tuple[tuple[int, int], dict[str, Any]] | None:
    """A visual and other values of the attributes the program reads of it that change the
    program's outcome (proof that the question needs its visuals), or ``None``."""
    recorded = _outcome(grid, visuals, program)
    read_names = sorted(visual_attributes(program))
    for cell in sorted(visuals):
        visual = visuals[cell]
        kind = str(visual.get("kind"))
        names = [n for n in read_names if n in ("kind", "colors") or
                 n in (visual.get("attributes") or {})]
        choices = [vocabulary_of(visuals, kind, name, vocabulary) for name in names]
        for values in itertools.islice(itertools.product(*choices), MAX_ASSIGNMENTS):
            changes = dict(zip(names, values, strict=True))
            if not names or _with(visual, changes) == _with(visual, {}):
                continue
            changed = {**visuals, cell: _with(visual, changes)}
            if _outcome(grid, changed, program) != recorded:
                return cell, changes
    return None
