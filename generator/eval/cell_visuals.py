"""The pictures in a multimodal table's cells as a prompt shows them (MMTabReal's settings).

An ``mmtable`` item's table is given as text in three settings and a picture's cell is filled
by what the setting allows: nothing (``missing-image``), the picture's exact ``description``
(``entity-replaced``), a caption (``image-captioning``). In ``interleaved`` each cell holds its
picture as an image part of its own, at its place, in reading order. A caption comes from a
*captioner*: the built-in :class:`KindCaptioner` says only the visual's kind ("a flag"), so
that setting measures what a model does with the least a captioner could say; any other is
a callable ``(item, visual) -> str``.
"""

from __future__ import annotations

from collections.abc import Callable

from hopvista.model import Item
from hopvista.model.image import Image, by_role
from hopvista.model.inputs import GridTable
from hopvista.model.mmtable import Visual

CELL_IMAGE = "cell-image"
"""The image role of one picture drawn alone."""

Captioner = Callable[[Item, Visual], str]
"""What a caption is made by: ``captioner(item, visual)``."""

FILLS = ("empty", "description", "caption", "cells")
"""How a setting fills a picture's cell in a table given as text."""


def kind_caption(item: Item, visual: Visual) -> str:
    """The built-in captioner's caption: the visual's kind alone, with its article
    (``a flag``, ``an avatar``): no colour, shape or text of the picture."""
    words = visual.kind.replace("-", " ").replace("_", " ")
    return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"


def cell_images(item: Item) -> dict[tuple[int, int], tuple[int, Image]]:
    """The item's ``cell-image`` images by the cell they picture: ``(row, col) -> (N,
    image)``, ``N`` the image's number (1-based, reading order)."""
    found: dict[tuple[int, int], tuple[int, Image]] = {}
    for number, image in enumerate(by_role(item.images, CELL_IMAGE), start=1):
        row, col = image.render.get("row"), image.render.get("col")
        if isinstance(row, int) and isinstance(col, int):
            found[(row, col)] = (number, image)
    return found


def table_markdown(item: Item, fill: Callable[[Visual], str]) -> str | None:
    """The item's grid table as a Markdown table whose picture cells hold ``fill(visual)``;
    ``None`` when the item has no grid table."""
    table = item.inputs.table
    if not isinstance(table, GridTable):
        return None
    visuals = {(v.row, v.col): v for v in item.inputs.visuals or ()}
    grid = [list(table.header), *map(list, table.rows)]
    for (row, col), visual in visuals.items():
        if row < len(grid) and col < len(grid[row]):
            grid[row][col] = fill(visual)
    lines = [_markdown_row(grid[0]), "|" + "---|" * len(grid[0])]
    lines += [_markdown_row(row) for row in grid[1:]]
    return "\n".join(lines)


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(" ".join(c.split()).replace("|", "\\|") for c in cells) + " |"
