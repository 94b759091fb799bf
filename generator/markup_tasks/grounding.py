"""T1, markup grounding: does the model see which cells are marked, and how?"""

from __future__ import annotations

from hopvista.markup_tasks.subtasks import (
    COLOUR,
    STYLE,
    Drawn,
    TaskTable,
    Wording,
    colour_names,
    mark,
    one,
    pick,
    styled,
    subtask,
)
from hopvista.rng import Streams

EXISTS = Wording({"op": "exists", "scope": {"style": STYLE}},
                 lambda table, style: f"Is any cell of the table {styled(style)}?",
                 '{"marked": true} or {"marked": false}')
COUNT = Wording({"op": "count", "scope": {"style": STYLE}},
                lambda table, style: f"How many cells of the table are {styled(style)}?",
                '{"count": 2}')
BY_STYLE = Wording({"op": "value", "scope": {"style": STYLE}},
                   lambda table, style: f"What does the cell that is {styled(style)} show?",
                   '{"value": "..."}')
BY_COLOUR = Wording({"op": "value", "scope": {"style": "highlight", "colour": COLOUR}},
                    lambda table, colour:
                    f"What does the cell {styled('highlight', colour)} show?",
                    '{"value": "..."}')
LOCATE = Wording({"op": "locate", "scope": {"style": STYLE}},
                 lambda table, style: f"Which row and which column is the cell that is "
                 f"{styled(style)} in? Give the row's label (its first cell) and the column's "
                 "header.",
                 '{"row": "...", "column": "..."}')


@subtask("T1-exists", "T1", "is any cell marked in a given style (other styles may be there)",
         EXISTS)
def exists(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Marks in other styles always; in the asked style only when the answer is yes."""
    style = one(streams, "task.style", table.styles)
    others = [s for s in table.styles if s != style]
    count = streams.integer("task.count", 1, 2)
    cells = pick(streams, "task.cells", table.body(), count + 2)
    colour = colour_names(streams, "task.colour", 1)[0]
    marks = [mark(cells[0], one(streams, "task.other", others), colour)]
    if yes:
        marks += [mark(cell, style, colour) for cell in cells[1:1 + count]]
    elif streams.uniform("task.second") < 0.5:
        marks.append(mark(cells[1], others[1] if marks[0].style == others[0] else others[0],
                          colour))
    return EXISTS.drawn(table, marks, {"marked": yes}, style=style)


@subtask("T1-count", "T1", "how many cells carry a given style", COUNT)
def count(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """One to five cells in the asked style, one or two in other styles."""
    style = one(streams, "task.style", table.styles)
    n = streams.integer("task.count", 1, 5)
    extra = streams.integer("task.extra", 1, 2)
    cells = pick(streams, "task.cells", table.body(), n + extra)
    colour = colour_names(streams, "task.colour", 1)[0]
    others = [s for s in table.styles if s != style]
    marks = [mark(cell, style, colour) for cell in cells[:n]]
    marks += [mark(cell, others[k % 2], colour) for k, cell in enumerate(cells[n:])]
    return COUNT.drawn(table, marks, {"count": n}, style=style)


@subtask("T1-style", "T1", "the value of the one cell in a given style, among cells in others",
         BY_STYLE)
def by_style(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """One cell in each style; the question names one style."""
    cells = pick(streams, "task.cells", table.body(), len(table.styles))
    colour = colour_names(streams, "task.colour", 1)[0]
    marks = [mark(cell, style, colour) for cell, style in zip(cells, table.styles, strict=True)]
    k = streams.integer("task.asked", 0, len(table.styles) - 1)
    style = table.styles[k]
    return BY_STYLE.drawn(table, marks, {"value": table.text(*cells[k])}, style=style)


@subtask("T1-colour", "T1", "the value of the cell highlighted in a given colour", BY_COLOUR)
def by_colour(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """Two or three cells highlighted in different colours; the question names one."""
    n = streams.integer("task.count", 2, 3)
    cells = pick(streams, "task.cells", table.body(), n)
    colours = colour_names(streams, "task.colour", n)
    marks = [mark(cell, "highlight", colour) for cell, colour in zip(cells, colours, strict=True)]
    k = streams.integer("task.asked", 0, n - 1)
    return BY_COLOUR.drawn(table, marks, {"value": table.text(*cells[k])}, colour=colours[k])


@subtask("T1-locate", "T1", "the row and column of the one cell in a given style", LOCATE)
def locate(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
    """One cell in the asked style, another in a different style."""
    style = one(streams, "task.style", table.styles)
    other = one(streams, "task.other", [s for s in table.styles if s != style])
    cells = pick(streams, "task.cells", table.body(), 2)
    colour = colour_names(streams, "task.colour", 1)[0]
    r, c = cells[0]
    return LOCATE.drawn(table, (mark(cells[0], style, colour), mark(cells[1], other, colour)),
                        {"row": table.label(r), "column": table.header(c)}, style=style)
