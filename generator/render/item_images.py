"""Render an item's table and chart to PNG files and record how they were drawn."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

from hopvista.outdir import write_atomic

IMAGES_DIR = "images"


class ItemRenderer:
    """Owns one warm table renderer (Chromium) and one chart renderer for a process.

    Create it in the process that renders (after any fork): browsers do not survive a fork.
    """

    def __init__(self) -> None:
        from hopvista.render.chart import ChartRenderer
        from hopvista.render.table import TableRenderer

        self._table = TableRenderer()
        self._chart = ChartRenderer()
        self._open = False

    def __enter__(self) -> ItemRenderer:
        self._table.__enter__()
        self._chart.__enter__()
        self._open = True
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browsers; safe to call twice."""
        if self._open:
            self._open = False
            try:
                self._chart.__exit__(None, None, None)
            finally:
                self._table.__exit__(None, None, None)

    def render(self, item: dict[str, Any], root: Path) -> None:
        """Write the item's PNGs under ``root/images`` and fill ``images`` and ``render``."""
        names = {e["id"]: e["name"] for e in item["entities"]}
        style = item["variant"]["style"]
        folder = root / IMAGES_DIR
        folder.mkdir(exist_ok=True)
        table_png, table_layout = self._table.render(item["inputs"]["table"], names,
                                                     style["table"])
        chart_png, chart_meta = self._chart.render(item["inputs"]["chart"], names,
                                                   style["chart"])
        table_path = f"{IMAGES_DIR}/{item['id']}-table.png"
        chart_path = f"{IMAGES_DIR}/{item['id']}-chart.png"
        write_atomic(root / table_path, table_png)
        write_atomic(root / chart_path, chart_png)
        item["images"] = [table_path, chart_path]
        item["render"] = {"table": {"image": table_path, **table_layout},
                          "chart": {"image": chart_path, **chart_meta}}
