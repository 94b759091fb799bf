"""T2, constrained retrieval: values strictly inside a marked scope, none from outside it."""

from __future__ import annotations

from hopvista.markup_tasks.subtasks import (
    COLOUR,
    COLUMN,
    STYLE,
    Drawn,
    TaskTable,
    Unsuitable,
    Wording,
    colour_names,
    column_header,
    mark,
    one,
    pick,
    styled,
    subtask,
)
from hopvista.rng import Streams

COLUMN_SCOPE = Wording({"op": "values", "scope": {"style": "highlight", "column": COLUMN}},
                       lambda table, column: "List what the highlighted cells of the column "
                       f"\"{column_header(table, column)}\" show (only that column).",
                       '{"values": ["...", "..."]}')
COLOUR_GROUP = Wording({"op": "rows", "scope": {"style": "highlight", "colour": COLOUR}},
                       lambda table, colour: "Which rows have a cell "
                       f"{styled('highlight', colour)}? Give the rows' labels (their first "
                       "cells).",
                       '{"rows": ["...", "..."]}')
INTERSECTION = Wording({"op": "intersection", "row_scope": {"style": "highlight", "column": 0},
                        "column_scope": {"style": "highlight", "row": 0}},
                       lambda table: "A row label and a column header are highlighted. What "
                       "does the cell where that row and that column meet show?",
                       '{"value": "..."}')
ROW_LOOKUP = Wording({"op": "in_row", "anchor": {"style": STYLE}, "column": COLUMN},
                     lambda table, style, column: f"In the row of the cell that is "
                     f"{styled(style)}, what does the column \"{column_header(table, column)}\" "
                     "show?",
                     '{"value": "..."}')


@subtask("T2-column", "T2", "the highlighted values of one column, with highlights elsewhere",
         COLUMN_SCOPE)
def column_scope(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Two or three highlights in the asked column, two or three in other columns."""
    if table.cols < 3:
        raise Unsuitable("needs two value columns")
    column = one(streams, "task.column", range(1, table.cols))
    inside = pick(streams, "task.inside", [(r, column) for r in range(1, table.rows + 1)],
                  streams.integer("task.count", 2, 3))
    outside = pick(streams, "task.outside", [cell for cell in table.body() if cell[1] != column],
                   streams.integer("task.extra", 2, 3))
    colour = colour_names(streams, "task.colour", 1)[0]
    cells = sorted(inside + outside)
    return COLUMN_SCOPE.drawn(table, [mark(cell, "highlight", colour) for cell in cells],
                              {"values": [table.text(*cell) for cell in sorted(inside)]},
                              column=column)


@subtask("T2-colour-group", "T2", "the rows with a cell highlighted in one colour, among two",
         COLOUR_GROUP)
def colour_group(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Two colours, two or three cells each, each colour's cells in distinct rows."""
    asked, other = colour_names(streams, "task.colours", 2)
    rows = pick(streams, "task.rows", list(range(1, table.rows + 1)),
                streams.integer("task.count", 2, 3))
    mine = [(r, one(streams, f"task.col.{r}", range(1, table.cols))) for r in rows]
    rest = [cell for cell in table.body() if cell not in mine]
    theirs = pick(streams, "task.others", rest, streams.integer("task.extra", 2, 3))
    marks = sorted([mark(cell, "highlight", asked) for cell in mine] +
                   [mark(cell, "highlight", other) for cell in theirs],
                   key=lambda m: (m.row, m.col))
    return COLOUR_GROUP.drawn(table, marks, {"rows": [table.label(r) for r, _ in sorted(mine)]},
                              colour=asked)


@subtask("T2-intersection", "T2", "the value where a highlighted row label meets a highlighted "
         "header", INTERSECTION)
def intersection(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """A row label and a column header highlighted; the answer is their crossing."""
    r = one(streams, "task.row", range(1, table.rows + 1))
    c = one(streams, "task.column", range(1, table.cols))
    colour = colour_names(streams, "task.colour", 1)[0]
    return INTERSECTION.drawn(table, (mark((0, c), "highlight", colour),
                                      mark((r, 0), "highlight", colour)),
                              {"value": table.text(r, c)})


@subtask("T2-row-lookup", "T2", "another column's value in the row of a marked cell",
         ROW_LOOKUP)
def row_lookup(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """One marked cell; the question names another column of its row."""
    if table.cols < 3:
        raise Unsuitable("needs two value columns")
    style = one(streams, "task.style", table.styles)
    r, c = one(streams, "task.cell", table.body())
    other = one(streams, "task.column", [k for k in range(1, table.cols) if k != c])
    colour = colour_names(streams, "task.colour", 1)[0]
    return ROW_LOOKUP.drawn(table, (mark((r, c), style, colour),),
                            {"value": table.text(r, other)}, style=style, column=other)
