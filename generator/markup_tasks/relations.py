"""T3, local relations: the neighbour of a marked anchor cell in each direction."""

from __future__ import annotations

from hopvista.markup_tasks.subtasks import (
    STYLE,
    Drawn,
    TaskTable,
    Unsuitable,
    Wording,
    colour_names,
    mark,
    one,
    styled,
    subtask,
)
from hopvista.rng import Streams

DIRECTIONS = {"above": (-1, 0, "directly above"), "below": (1, 0, "directly below"),
              "left": (0, -1, "directly to the left of"),
              "right": (0, 1, "directly to the right of")}


def _neighbour(direction: str) -> None:
    dr, dc, words = DIRECTIONS[direction]
    wording = Wording({"op": "neighbour", "anchor": {"style": STYLE}, "direction": direction},
                      lambda table, style:
                      f"What does the cell {words} the cell that is {styled(style)} show?",
                      '{"value": "..."}')

    def draw(table: TaskTable, streams: Streams, yes: bool) -> Drawn:
        # The anchor and its neighbour are both value cells (never a header or a row label).
        anchors = [(r, c) for r, c in table.body()
                   if 1 <= r + dr <= table.rows and 1 <= c + dc < table.cols]
        if not anchors:
            raise Unsuitable(f"no value cell has a value cell {words} it")
        r, c = one(streams, "task.cell", anchors)
        style = one(streams, "task.style", table.styles)
        colour = colour_names(streams, "task.colour", 1)[0]
        return wording.drawn(table, (mark((r, c), style, colour),),
                             {"value": table.text(r + dr, c + dc)}, style=style)

    draw.__doc__ = f"The cell {words} one marked value cell."
    subtask(f"T3-{direction}", "T3", f"the cell {words} a marked cell", wording)(draw)


for _direction in DIRECTIONS:
    _neighbour(_direction)
