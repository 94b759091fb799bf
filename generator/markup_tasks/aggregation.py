"""T4, aggregation and comparison over the marked cells only."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from hopvista.markup_tasks.subtasks import (
    Drawn,
    Slot,
    TaskTable,
    Unsuitable,
    Wording,
    colour_names,
    json_number,
    mark,
    numeric_column,
    pick,
    subtask,
)
from hopvista.model.task import Mark
from hopvista.rng import Streams


def _marked_numbers(table: TaskTable, streams: Streams, least: int, most: int
                    ) -> tuple[int, list[tuple[int, int]]]:
    """A numeric column and ``least``..``most`` of its cells with distinct values; the
    column's largest and smallest value stay outside when the column allows (so the answer
    inside the marks differs from the column's)."""
    column = numeric_column(table, streams, least)
    rows = [r for r in range(1, table.rows + 1) if table.number(r, column) is not None]
    values = {r: table.number(r, column) for r in rows}
    top, bottom = max(values.values()), min(values.values())  # type: ignore[type-var]
    inner = [r for r in rows if values[r] not in (top, bottom)]
    pool = inner if len({values[r] for r in inner}) >= least else rows
    distinct: dict[Decimal | None, int] = {}
    for r in pick(streams, "task.rows", pool, len(pool)):
        distinct.setdefault(values[r], r)
    chosen = list(distinct.values())
    n = streams.integer("task.count", least, most)
    if len(chosen) < n:
        raise Unsuitable(f"needs {n} distinct numbers in a column")
    return column, sorted((r, column) for r in chosen[:n])


def _highlighted(streams: Streams, cells: list[tuple[int, int]]) -> tuple[Mark, ...]:
    colour = colour_names(streams, "task.colour", 1)[0]
    return tuple(mark(cell, "highlight", colour) for cell in cells)


TOTAL = Wording({"op": "sum", "scope": {"style": "highlight"}},
                lambda table: "What is the sum of the numbers in the highlighted cells?",
                '{"value": 12.5}')
MEAN = Wording({"op": "mean", "scope": {"style": "highlight"}},
               lambda table: "What is the mean of the numbers in the highlighted cells, rounded "
               "to two decimals?",
               '{"value": 12.5}')
COMPARE = Wording({"op": "compare", "a": {"style": "bold"}, "b": {"style": "underline"}},
                  lambda table: "Is the number in the bold cell greater than the number in the "
                  "underlined cell?",
                  '{"greater": true} or {"greater": false}')


def _ordering(table: TaskTable, descending: bool) -> str:
    way = "from the largest number to the smallest" if descending else \
        "from the smallest number to the largest"
    return f"Order the rows of the highlighted cells {way}. Give the rows' labels (their " \
        "first cells), in that order."


SORT = Wording({"op": "sort", "scope": {"style": "highlight"},
                "descending": Slot("descending", bool)},
               _ordering, '{"rows": ["...", "..."]}', ordered=("rows",))


@subtask("T4-sum", "T4", "the sum of the highlighted cells", TOTAL)
def total(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Two to four highlighted numbers of one column."""
    _, cells = _marked_numbers(table, streams, 2, 4)
    value = sum((table.number(*cell) or Decimal(0) for cell in cells), Decimal(0))
    return TOTAL.drawn(table, _highlighted(streams, cells), {"value": json_number(value)})


@subtask("T4-mean", "T4", "the mean of the highlighted cells, to two decimals", MEAN)
def mean(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Two to four highlighted numbers of one column."""
    _, cells = _marked_numbers(table, streams, 2, 4)
    value = sum((table.number(*cell) or Decimal(0) for cell in cells), Decimal(0)) / len(cells)
    return MEAN.drawn(table, _highlighted(streams, cells),
                      {"value": json_number(value.quantize(Decimal("0.01"), ROUND_HALF_UP))})


def _extreme(largest: bool) -> None:
    word = "largest" if largest else "smallest"
    wording = Wording({"op": "argmax" if largest else "argmin", "scope": {"style": "highlight"}},
                      lambda table: f"Among the highlighted cells, which holds the {word} "
                      "number? Give its row's label (the row's first cell) and the number as "
                      "shown.",
                      '{"row": "...", "value": "..."}')

    def draw(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
        _, cells = _marked_numbers(table, streams, 3, 5)
        best = (max if largest else min)(cells, key=lambda cell: table.number(*cell) or 0)
        return wording.drawn(table, _highlighted(streams, cells),
                             {"row": table.label(best[0]), "value": table.text(*best)})

    draw.__doc__ = f"Three to five highlighted numbers of one column; the {word} of them."
    subtask(f"T4-{'argmax' if largest else 'argmin'}", "T4",
            f"the row and value of the {word} highlighted number", wording)(draw)


_extreme(True)
_extreme(False)


@subtask("T4-compare", "T4", "whether the bold number exceeds the underlined one", COMPARE)
def compare(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Two numbers of one column, one bold and one underlined; the planned answer decides
    which is which."""
    _, (a, b) = _marked_numbers(table, streams, 2, 2)
    high, low = (a, b) if (table.number(*a) or 0) > (table.number(*b) or 0) else (b, a)
    bold, under = (high, low) if yes else (low, high)
    return COMPARE.drawn(table, sorted((mark(bold, "bold"), mark(under, "underline")),
                                       key=lambda m: (m.row, m.col)),
                         {"greater": yes})


@subtask("T4-sort", "T4", "the rows of the highlighted cells sorted by their numbers", SORT)
def sort(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Three or four highlighted numbers of one column, sorted up or down."""
    _, cells = _marked_numbers(table, streams, 3, 4)
    descending = streams.uniform("task.descending") < 0.5
    ordered = sorted(cells, key=lambda cell: table.number(*cell) or 0, reverse=descending)
    return SORT.drawn(table, _highlighted(streams, cells),
                      {"rows": [table.label(r) for r, _ in ordered]}, descending=descending)
