"""The images of a multimodal-table item: the table drawn with its pictures in their cells, and
each picture alone (:func:`hopvista.render.mmtable.render_mmtable_images`), in a table style
drawn from the item's own streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hopvista.model import Item
from hopvista.model.inputs import GridTable
from hopvista.model.item import Variant
from hopvista.render.browser import uninterrupted
from hopvista.render.mmtable import render_mmtable_images
from hopvista.render.table import TableRenderer
from hopvista.rng import Streams
from hopvista.themes.tables import get_theme, sample_table_style
from hopvista.themes.tables.policy import cell_backgrounds

VIEWPORT = (1600, 1200)
"""The page the table is drawn on, as for markup tasks."""


def table_style(item: Item) -> dict[str, Any]:
    """The item's table style, from its base's own streams (only themes and fonts that show
    every character of the table are drawn from)."""
    table = item.inputs.table
    text = "".join([*table.header, *(cell for row in table.rows for cell in row)]) \
        if isinstance(table, GridTable) else ""
    return style_of(item.seed or 0, item.base_id, text)


def style_of(seed: int, base_id: str, text: str) -> dict[str, Any]:
    """The table style of the item ``base_id`` whose table shows ``text``: drawn from the
    item's own named streams ``table.theme``, ``table.font``, ... (no other draw of the item
    uses them, so it may be drawn before or after the table)."""
    return sample_table_style(Streams(seed, base_id), text=text)


def style_backgrounds(style: dict[str, Any]) -> tuple[str, ...]:
    """The backgrounds a body cell of a table drawn in ``style`` may have."""
    return cell_backgrounds(get_theme(style["theme"]), style["accent"])


class TableImages:
    """Draws an item's images with one browser per worker process (opened on first use,
    closed with the worker)."""

    def __init__(self) -> None:
        self._renderer: TableRenderer | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"_renderer": None}  # a worker opens its own browser

    def open(self) -> None:
        """Start the browser."""
        if self._renderer is None:
            renderer = TableRenderer(viewport=VIEWPORT)
            with uninterrupted():
                renderer.open()
            self._renderer = renderer

    def close(self) -> None:
        """Close the browser and its profile."""
        renderer, self._renderer = self._renderer, None
        if renderer is not None:
            renderer.close()

    def __call__(self, item: Item, root: Path) -> Item:
        """``item`` with its table style recorded and its images written under ``root``."""
        self.open()
        assert self._renderer is not None
        styled = item.model_copy(update={"variant": Variant(style={"table": table_style(item)})})
        return render_mmtable_images(styled, root, self._renderer)
