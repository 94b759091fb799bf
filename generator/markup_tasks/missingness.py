"""T5, consistency and missingness: blank, dashed and N/A cells are evidence of absence, not
values to fill in."""

from __future__ import annotations

from decimal import Decimal

from hopvista.markup_tasks.subtasks import (
    MISSING_SHOWN,
    Drawn,
    TaskTable,
    Unsuitable,
    Wording,
    colour_names,
    json_number,
    mark,
    numeric_column,
    one,
    pick,
    subtask,
)
from hopvista.rng import Streams


def _tokens(streams: Streams, n: int) -> list[str]:
    return [one(streams, f"task.token.{k}", MISSING_SHOWN) for k in range(n)]


def _present(table: TaskTable, column: int) -> list[tuple[int, int]]:
    return [(r, column) for r in range(1, table.rows + 1) if not table.missing(r, column)]


COUNT_MISSING = Wording({"op": "count_missing",
                         "scope": {"marked": False, "column_of": {"style": "highlight"},
                                   "body": True}},
                        lambda table: "How many cells of the highlighted column show no value "
                        "(empty, a dash or N/A)?",
                        '{"count": 2}')
MARKED_VALUE = Wording({"op": "value_or_missing", "scope": {"style": "highlight"}},
                       lambda table: "What does the highlighted cell show? If it shows no value "
                       "(empty, a dash or N/A), answer null.",
                       '{"value": "..."} or {"value": null}')
SUM_AVAILABLE = Wording({"op": "sum_available", "scope": {"style": "highlight"}},
                        lambda table: "Add up the numbers in the highlighted cells that show "
                        "one, and count the highlighted cells that show no value (empty, a dash "
                        "or N/A).",
                        '{"value": 12.5, "missing": 1}')
MAX_AVAILABLE = Wording({"op": "max_available", "scope": {"style": "highlight"}},
                        lambda table: "Among the highlighted cells that show a number, which "
                        "holds the largest? Give its row's label (the row's first cell) and the "
                        "number as shown.",
                        '{"row": "...", "value": "..."}')


@subtask("T5-count-missing", "T5", "how many cells of a column show no value", COUNT_MISSING)
def count_missing(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """One to three cells of a column blanked (dash, N/A or empty); the column's header is
    highlighted."""
    column = one(streams, "task.column", range(1, table.cols))
    present = _present(table, column)
    n = streams.integer("task.count", 1, 3)
    if len(present) <= n:
        raise Unsuitable("too few values in the column to blank")
    blank = sorted(pick(streams, "task.cells", present, n))
    shown = table.blanked(blank, _tokens(streams, n))
    count = sum(shown.missing(r, column) for r in range(1, shown.rows + 1))
    colour = colour_names(streams, "task.colour", 1)[0]
    return COUNT_MISSING.drawn(shown, (mark((0, column), "highlight", colour),),
                               {"count": count})


@subtask("T5-marked-value", "T5", "the value of a marked cell, or null when it shows none",
         MARKED_VALUE)
def marked_value(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """One highlighted cell; blanked when the planned answer is "missing" (``yes``), and
    another cell of its row blanked otherwise, so blanks are always in sight."""
    r, c = one(streams, "task.cell", [cell for cell in table.body()
                                      if not table.missing(*cell)])
    neighbours = [(r, k) for k in range(1, table.cols) if k != c and not table.missing(r, k)]
    token = _tokens(streams, 1)
    if yes:
        shown = table.blanked([(r, c)], token)
    elif neighbours:
        shown = table.blanked([one(streams, "task.other", neighbours)], token)
    else:
        shown = table
    colour = colour_names(streams, "task.colour", 1)[0]
    return MARKED_VALUE.drawn(shown, (mark((r, c), "highlight", colour),),
                              {"value": None if yes else table.text(r, c)})


def _with_blanks(table: TaskTable, streams: Streams
                 ) -> tuple[TaskTable, list[tuple[int, int]], list[tuple[int, int]]]:
    """A numeric column's three to five cells highlighted, one or two of them blanked."""
    column = numeric_column(table, streams, 3)
    present = _present(table, column)
    cells = sorted(pick(streams, "task.cells", present,
                        min(len(present), streams.integer("task.count", 3, 5))))
    n = streams.integer("task.blanks", 1, 2)
    blank = sorted(pick(streams, "task.blank", cells, n))
    kept = [cell for cell in cells if cell not in blank]
    if len(kept) < 2:
        raise Unsuitable("too few values left")
    return table.blanked(blank, _tokens(streams, n)), cells, kept


@subtask("T5-sum-available", "T5", "the sum of the highlighted values that are present, and "
         "how many are missing", SUM_AVAILABLE)
def sum_available(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Highlighted numbers, some blanked: add the rest, count the blanks."""
    shown, cells, kept = _with_blanks(table, streams)
    value = sum((table.number(*cell) or Decimal(0) for cell in kept), Decimal(0))
    colour = colour_names(streams, "task.colour", 1)[0]
    return SUM_AVAILABLE.drawn(shown, [mark(cell, "highlight", colour) for cell in cells],
                               {"value": json_number(value), "missing": len(cells) - len(kept)})


@subtask("T5-max-available", "T5", "the largest highlighted value among those present",
         MAX_AVAILABLE)
def max_available(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Highlighted numbers, some blanked: the largest of the rest (never a guessed blank)."""
    shown, cells, kept = _with_blanks(table, streams)
    values = [table.number(*cell) for cell in kept]
    if len(set(values)) != len(values):
        raise Unsuitable("two highlighted numbers tie")
    best = max(kept, key=lambda cell: table.number(*cell) or 0)
    colour = colour_names(streams, "task.colour", 1)[0]
    return MAX_AVAILABLE.drawn(shown, [mark(cell, "highlight", colour) for cell in cells],
                               {"row": table.label(best[0]), "value": table.text(*best)})
