"""Render an item's table and chart to PNG files and record how they were drawn."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from hopvista.atomic import write_atomic
from hopvista.render.browser import uninterrupted

if TYPE_CHECKING:
    from hopvista.render.chart import ChartRenderer

IMAGES_DIR = "images"


def preload() -> None:
    """Import the rendering libraries (nothing is started: safe before a fork)."""
    import matplotlib

    matplotlib.use("Agg")
    import kaleido  # noqa: F401  (imported here, not first in a worker's browser thread)
    import matplotlib.figure  # noqa: F401
    import playwright.sync_api  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    import seaborn  # noqa: F401

    import hopvista.render.chart  # noqa: F401
    import hopvista.render.table  # noqa: F401


class ItemRenderer:
    """Owns one warm table renderer (Chromium) and one chart renderer for a process.

    Create it in the process that renders (after any fork): browsers do not survive a fork.
    """

    def __init__(self) -> None:
        from hopvista.render.chart import ChartRenderer
        from hopvista.render.table import TableRenderer

        self._table = TableRenderer()
        self._chart = ChartRenderer()
        # Charts are drawn on a second thread while Chromium lays out and shoots the table:
        # each waits on a different process or library most of the time.
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopvista-chart")
        self._chart_ready: Future[ChartRenderer] | None = None
        self._open = False

    def __enter__(self) -> ItemRenderer:
        # Chromium for tables first; then the chart renderer starts on its own thread (its
        # plotly browser warms up in the background) while the first tables render. Starting
        # both browsers at once only makes each start slower on a small machine.
        self._open = True
        try:
            with uninterrupted():
                self._table.__enter__()
            self._chart_ready = self._pool.submit(self._chart.__enter__)
        except BaseException:  # an interrupt while starting: stop what did start
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browsers; safe to call twice.

        Charts still queued (after an interrupt or an error) are dropped; the one being drawn
        finishes first, so the plotly browser is never closed under a running request.
        """
        if self._open:
            self._open = False
            try:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._chart.__exit__(None, None, None)
            finally:
                self._table.__exit__(None, None, None)

    def render(self, item: dict[str, Any], root: Path) -> None:
        """Write the item's PNGs under ``root/images`` and fill ``images`` and ``render``."""
        self.render_many([item], root)

    def render_many(self, items: list[dict[str, Any]], root: Path) -> None:
        """Render several items: their charts queue on the chart thread while their tables
        render here, so neither the chart libraries nor Chromium wait for the other."""
        if self._chart_ready is None:
            raise RuntimeError("ItemRenderer is not open: use `with ItemRenderer() as r:`")
        self._chart_ready.result()  # raises here if the chart renderer could not start
        (root / IMAGES_DIR).mkdir(exist_ok=True)
        names = [{e["id"]: e["name"] for e in item["entities"]} for item in items]
        charts = [self._pool.submit(self._chart.render, item["inputs"]["chart"], named,
                                    item["variant"]["style"]["chart"])
                  for item, named in zip(items, names, strict=True)]
        tables: list[tuple[bytes, dict[str, Any]]] = []
        for item, named in zip(items, names, strict=True):
            with uninterrupted():  # an interrupt waits for the screenshot (~0.1 s)
                tables.append(self._table.render(item["inputs"]["table"], named,
                                                 item["variant"]["style"]["table"]))
        for item, (table_png, layout), chart in zip(items, tables, charts, strict=True):
            chart_png, meta = chart.result()
            table_path = f"{IMAGES_DIR}/{item['id']}-table.png"
            chart_path = f"{IMAGES_DIR}/{item['id']}-chart.png"
            write_atomic(root / table_path, table_png)
            write_atomic(root / chart_path, chart_png)
            item["images"] = [table_path, chart_path]
            item["render"] = {"table": {"image": table_path, **layout},
                              "chart": {"image": chart_path, **meta}}
