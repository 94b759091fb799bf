"""The language of markup-task programs, executed on a table and its marks (docs/format.md,
section 11). ``gen verify`` re-derives every markup task's answer with :func:`execute`; the
generator (:mod:`hopvista.markup_tasks`) decides answers its own way and never calls this.

A table is read as a grid: row 0 is the header, column 0 the row labels. A cell is *missing*
when it shows nothing, a dash or N/A (:data:`hopvista.program.executor.MISSING_TOKENS`); a
number is read as :func:`hopvista.program.numbers.read_number` reads it.

A **scope** picks cells: ``{"marked": true}`` (the default) keeps marked cells only,
``"style"`` and ``"colour"`` a style or highlight colour, ``"row"`` / ``"column"`` one row or
column, ``"body": true`` body cells only (rows ≥ 1, columns ≥ 1); ``"row_of"`` / ``"column_of"`` (a
scope picking one cell) the row or column of that cell. Cells come in reading
order (row by row). The operations, and the answer each gives:

=================  ==========================================  ==============================
op                 arguments                                   answer
=================  ==========================================  ==============================
``exists``         ``scope``                                   ``{"marked": bool}``
``count``          ``scope``                                   ``{"count": n}``
``value``          ``scope`` (one cell)                        ``{"value": text}``
``locate``         ``scope`` (one cell)                        ``{"row": label, "column": header}``
``values``         ``scope``                                   ``{"values": [text, …]}``
``rows``           ``scope``                                   ``{"rows": [label, …]}``
``intersection``   ``row_scope``, ``column_scope`` (one each)  ``{"value": text}``
``in_row``         ``anchor`` (one cell), ``column``           ``{"value": text}``
``neighbour``      ``anchor`` (one cell), ``direction``        ``{"value": text}``
``sum`` / ``mean`` ``scope`` (all numbers)                     ``{"value": number}``
``argmax`` / ``argmin`` ``scope`` (all numbers, one extreme)   ``{"row": label, "value": text}``
``compare``        ``a``, ``b`` (one cell each, numbers)       ``{"greater": bool}`` (a > b)
``sort``           ``scope``, ``descending``                   ``{"rows": [label, …]}`` (ordered)
``count_missing``  ``scope``                                   ``{"count": n}``
``value_or_missing`` ``scope`` (one cell)                      ``{"value": text or null}``
``sum_available``  ``scope``                                   ``{"value": number, "missing": n}``
``max_available``  ``scope``                                   ``{"row": label, "value": text}``
=================  ==========================================  ==============================

``mean`` is rounded half-up to two decimals. A program that cannot be executed (a scope that
must hold one cell holds several, a number that does not read, a tie for an extreme) raises
:class:`ProgramError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hopvista.program.executor import MISSING_TOKENS
from hopvista.program.numbers import read_number

DIRECTIONS = {"above": (-1, 0), "below": (1, 0), "left": (0, -1), "right": (0, 1)}


class ProgramError(ValueError):
    """A markup-task program that cannot be executed on its table."""


Grid = Sequence[Sequence[str]]
Marks = Mapping[tuple[int, int], Mapping[str, Any]]


def is_missing(text: str) -> bool:
    """Whether a cell shows no value (blank, a dash, N/A)."""
    return text.strip().lower() in MISSING_TOKENS


def _number(grid: Grid, cell: tuple[int, int]) -> Decimal:
    text = grid[cell[0]][cell[1]]
    value = read_number(text)
    if value is None:
        raise ProgramError(f"cell {cell} shows {text!r}, not a number")
    return value


def _json_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def select(grid: Grid, marks: Marks, scope: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The cells ``scope`` picks, in reading order."""
    scope = dict(scope)
    for key, axis in (("row_of", 0), ("column_of", 1)):
        if key in scope:
            scope["row" if axis == 0 else "column"] = _one(grid, marks, scope.pop(key))[axis]
    found = []
    for r, row in enumerate(grid):
        for c in range(len(row)):
            mark = marks.get((r, c))
            if scope.get("marked", True) and mark is None:
                continue
            if "style" in scope and (mark is None or mark["style"] != scope["style"]):
                continue
            if "colour" in scope and (mark is None or mark.get("colour") != scope["colour"]):
                continue
            if "row" in scope and r != scope["row"]:
                continue
            if "column" in scope and c != scope["column"]:
                continue
            if scope.get("body") and (r == 0 or c == 0):
                continue
            found.append((r, c))
    return found


def _one(grid: Grid, marks: Marks, scope: Mapping[str, Any]) -> tuple[int, int]:
    cells = select(grid, marks, scope)
    if len(cells) != 1:
        raise ProgramError(f"scope {dict(scope)} picks {len(cells)} cells, not one")
    return cells[0]


def _extreme(grid: Grid, cells: list[tuple[int, int]], largest: bool) -> dict[str, Any]:
    if not cells:
        raise ProgramError("no cell to compare")
    values = [(_number(grid, cell), cell) for cell in cells]
    best = max(v for v, _ in values) if largest else min(v for v, _ in values)
    winners = [cell for v, cell in values if v == best]
    if len(winners) != 1:
        raise ProgramError(f"{len(winners)} cells tie for the extreme")
    r, c = winners[0]
    return {"row": grid[r][0], "value": grid[r][c]}


def execute(grid: Grid, marks: Marks, program: Mapping[str, Any]) -> dict[str, Any]:
    """The answer of ``program`` on the table ``grid`` (header row first) with ``marks``
    (logical cell → ``{"style", "colour"}``)."""
    op = program.get("op")
    scope = program.get("scope", {})
    if op == "exists":
        return {"marked": bool(select(grid, marks, scope))}
    if op in ("count", "count_missing"):
        cells = select(grid, marks, scope)
        if op == "count_missing":
            cells = [(r, c) for r, c in cells if is_missing(grid[r][c])]
        return {"count": len(cells)}
    if op == "value":
        r, c = _one(grid, marks, scope)
        return {"value": grid[r][c]}
    if op == "value_or_missing":
        r, c = _one(grid, marks, scope)
        return {"value": None if is_missing(grid[r][c]) else grid[r][c]}
    if op == "locate":
        r, c = _one(grid, marks, scope)
        return {"row": grid[r][0], "column": grid[0][c]}
    if op == "values":
        return {"values": [grid[r][c] for r, c in select(grid, marks, scope)]}
    if op == "rows":
        return {"rows": [grid[r][0] for r, _ in select(grid, marks, scope)]}
    if op == "intersection":
        row, _ = _one(grid, marks, program["row_scope"])
        _, col = _one(grid, marks, program["column_scope"])
        return {"value": grid[row][col]}
    if op == "in_row":
        row, _ = _one(grid, marks, program["anchor"])
        return {"value": grid[row][int(program["column"])]}
    if op == "neighbour":
        r, c = _one(grid, marks, program["anchor"])
        dr, dc = DIRECTIONS[str(program["direction"])]
        r, c = r + dr, c + dc
        if not (0 <= r < len(grid) and 0 <= c < len(grid[r])):
            raise ProgramError("the neighbour lies outside the table")
        return {"value": grid[r][c]}
    if op in ("sum", "mean"):
        cells = select(grid, marks, scope)
        if not cells:
            raise ProgramError("no cell to add")
        total = sum((_number(grid, cell) for cell in cells), Decimal(0))
        if op == "mean":
            total = (total / len(cells)).quantize(Decimal("0.01"), ROUND_HALF_UP)
        return {"value": _json_number(total)}
    if op in ("argmax", "argmin"):
        return _extreme(grid, select(grid, marks, scope), op == "argmax")
    if op == "max_available":
        cells = [(r, c) for r, c in select(grid, marks, scope) if not is_missing(grid[r][c])]
        return _extreme(grid, cells, True)
    if op == "compare":
        a = _number(grid, _one(grid, marks, program["a"]))
        b = _number(grid, _one(grid, marks, program["b"]))
        if a == b:
            raise ProgramError("the two cells are equal")
        return {"greater": a > b}
    if op == "sort":
        cells = select(grid, marks, scope)
        values = [(_number(grid, cell), cell) for cell in cells]
        if len({v for v, _ in values}) != len(values):
            raise ProgramError("two cells tie")
        ordered = sorted(values, reverse=bool(program.get("descending", True)))
        return {"rows": [grid[r][0] for _, (r, _c) in ordered]}
    if op == "sum_available":
        cells = select(grid, marks, scope)
        shown = [cell for cell in cells if not is_missing(grid[cell[0]][cell[1]])]
        total = sum((_number(grid, cell) for cell in shown), Decimal(0))
        return {"value": _json_number(total), "missing": len(cells) - len(shown)}
    raise ProgramError(f"unknown op {op!r}")


def grid_and_marks(item: Any) -> tuple[list[list[str]], dict[tuple[int, int], dict[str, Any]]]:
    """A markup-task item's table as a grid of texts (header row first) and its marks."""
    table = item.inputs.table
    if table is None or not hasattr(table, "header"):
        raise ProgramError("a markup task needs a grid table (header and rows of texts)")
    grid = [list(table.header), *(list(row) for row in table.rows)]
    marks = {(m.row, m.col): {"style": m.style, "colour": m.colour} for m in item.task.marks}
    return grid, marks
