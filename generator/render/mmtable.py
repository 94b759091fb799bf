"""Images of a multimodal table (an ``mmtable`` item): the table with its pictures in their
cells, and each picture alone.

The table image is the item's grid table drawn like every table (the style's theme, Chromium
with no script and no load: :mod:`hopvista.render.table`), each cell of ``inputs.visuals``
showing its picture as an ``<img>`` whose source is a ``data:`` URI. A picture is drawn by
its kind (:data:`hopvista.themes.visuals.VISUAL_KINDS`) at :func:`visual_size_px` of the
style, exactly the size it is shown at, so its pixels are the kind's own; the theme's rules
cannot hide, shrink or cover it (:class:`~hopvista.render.panels.CellPictures`). The image's
``render`` records, besides the table's layout (``cells``: every grid cell's box),
``visual_px`` and ``visuals``: the box of each picture in the image.

Each picture is also written alone, drawn at :data:`CELL_IMAGE_PX`, as an image of role
``cell-image`` numbered in reading order (row by row, left to right: ``ID.cell-image.1.png``,
``ID.cell-image.2.png``, ...), its ``render`` naming its ``row``, ``col``, ``kind`` and
``size_px``. Same item, same style: same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hopvista.augment.grid import grid_of_table, plain
from hopvista.errors import UserError
from hopvista.model import Image, Item
from hopvista.model.image import IMAGES_DIR
from hopvista.model.inputs import GridTable
from hopvista.model.mmtable import Visual
from hopvista.render.browser import uninterrupted
from hopvista.render.item_images import write_image
from hopvista.render.panels import CellPictures, layout_document
from hopvista.render.table import TableStyle, parse_style
from hopvista.themes.visuals import VISUAL_KINDS
from hopvista.themes.visuals.canvas import MAX_SIZE_PX, MIN_SIZE_PX

if TYPE_CHECKING:
    from hopvista.render.table import TableRenderer

__all__ = ["CELL_IMAGE_PX", "CELL_IMAGE_ROLE", "VISUAL_EM", "cell_pictures",
           "mmtable_document", "render_mmtable_images", "visual_size_px", "write_cell_images"]

VISUAL_EM = 2.6
"""A picture's side in the table, in ems of the style's font size (rows grow to hold it)."""

CELL_IMAGE_PX = 128
"""The side of a picture written alone (role ``cell-image``), in pixels."""

CELL_IMAGE_ROLE = "cell-image"

TEMPLATE = "panels"
"""The skeleton the table page is drawn from (the renderer reuses a document per skeleton)."""


def visual_size_px(style: TableStyle) -> int:
    """The side, in pixels, of a picture shown in a table drawn in ``style``:
    :data:`VISUAL_EM` times its font size, within the sizes a visual may be drawn at."""
    return min(max(round(style.font_size_px * VISUAL_EM), MIN_SIZE_PX), MAX_SIZE_PX)


def _table_of(item: Item) -> GridTable:
    table = item.inputs.table
    if not isinstance(table, GridTable):
        raise UserError(f"item {item.id}: inputs.table must be a grid table (header and rows) "
                        "to show cell visuals")
    return table


def _check_places(item_id: str, table: GridTable, visuals: Sequence[Visual]) -> None:
    """Refuse a visual outside the table's grid or on a cell another visual holds."""
    taken: set[tuple[int, int]] = set()
    for number, visual in enumerate(visuals):
        place = (visual.row, visual.col)
        if visual.row > len(table.rows) or visual.col >= len(table.header):
            raise UserError(f"item {item_id}: inputs.visuals[{number}]: cell row {visual.row}, "
                            f"col {visual.col} is outside the table ({len(table.rows)} rows "
                            f"under the header, {len(table.header)} columns)")
        if place in taken:
            raise UserError(f"item {item_id}: inputs.visuals[{number}]: cell row {visual.row}, "
                            f"col {visual.col} already holds a visual")
        taken.add(place)


def _draw(visual: Visual, size_px: int) -> bytes:
    return VISUAL_KINDS.get(visual.kind).draw(visual.attributes, size_px)


def cell_pictures(visuals: Sequence[Visual], style: TableStyle) -> CellPictures:
    """The pictures of ``visuals``, each drawn by its kind at the size a table in ``style``
    shows it (:func:`visual_size_px`), by logical cell."""
    size_px = visual_size_px(style)
    return CellPictures(size_px, {(v.row, v.col): _draw(v, size_px) for v in visuals})


def mmtable_document(table: GridTable, visuals: Sequence[Visual], style: TableStyle,
                     item_id: str = "(table)") -> tuple[str, int]:
    """The page of a multimodal table in ``style`` and the side of its pictures in pixels.

    Raises a one-line ``UserError`` naming ``item_id`` and the visual when one lies outside
    the grid, shares a cell, or has a kind or attributes its kind refuses."""
    _check_places(item_id, table, visuals)
    pictures = cell_pictures(visuals, style)
    layout = plain(grid_of_table(table, {}))
    return layout_document(layout, style, pictures=pictures), pictures.size_px


def reading_order(visuals: Sequence[Visual]) -> list[Visual]:
    """The visuals as a reader meets them: row by row, left to right."""
    return sorted(visuals, key=lambda v: (v.row, v.col))


def render_mmtable_images(item: Item, root: Path, renderer: TableRenderer,
                          style: Mapping[str, Any] | None = None) -> Item:
    """Write an ``mmtable`` item's images under ``root/images`` and return a new item
    listing them: the table with its pictures (role ``table``), then each picture alone
    (role ``cell-image``) in reading order.

    ``style`` is a table style (``sample_table_style``'s keys); by default the item's
    ``variant.style["table"]``. ``renderer`` is an open (or openable) table renderer."""
    table = _table_of(item)
    chosen = style if style is not None else item.variant.style.get("table")
    if not isinstance(chosen, Mapping):
        raise UserError(f"item {item.id}: variant.style.table is missing: no table style to "
                        "draw it in")
    parsed = parse_style(chosen)
    html, size_px = mmtable_document(table, item.inputs.visuals, parsed, item.id)
    with uninterrupted():  # an interrupt waits for the screenshot
        png, layout = renderer.shoot(html, parsed, TEMPLATE)
    (root / IMAGES_DIR).mkdir(parents=True, exist_ok=True)
    table_image = write_image(root, item.id, "table", png, layout | {"visual_px": size_px})
    return item.with_images([table_image, *write_cell_images(root, item.id,
                                                             item.inputs.visuals)])


def write_cell_images(root: Path, item_id: str, visuals: Sequence[Visual]) -> list[Image]:
    """Write each of ``visuals`` alone, drawn by its kind at :data:`CELL_IMAGE_PX`, as the
    images of role ``cell-image`` of item ``item_id``, numbered in reading order."""
    return [_write_cell_image(root, item_id, number, visual)
            for number, visual in enumerate(reading_order(visuals), start=1)]


def _write_cell_image(root: Path, item_id: str, number: int, visual: Visual) -> Image:
    return write_image(root, item_id, CELL_IMAGE_ROLE, _draw(visual, CELL_IMAGE_PX),
                       {"row": visual.row, "col": visual.col, "kind": visual.kind,
                        "size_px": CELL_IMAGE_PX}, number)
