"""Render an item's table and chart to PNG files; return the item with its images."""

from __future__ import annotations

import hashlib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from hopvista.augment.structures import structured_layout
from hopvista.model import Image, Item, Table, image_path
from hopvista.model.image import IMAGES_DIR
from hopvista.output.atomic import write_atomic
from hopvista.render.browser import uninterrupted
from hopvista.render.plotly_page import PlotlyPage
from hopvista.render.png import png_size

if TYPE_CHECKING:
    from hopvista.render.chart import ChartRenderer
    from hopvista.render.table import TableRenderer

__all__ = ["COLLECT_EVERY", "IMAGES_DIR", "RENEW_EVERY", "BrowserPages", "ItemRenderer", "preload",
           "write_image"]

COLLECT_EVERY = 16
"""Items between two collections of the browser's garbage (:meth:`TableRenderer.collect_garbage`:
~30 ms each; the renderer then stays ~40 MB smaller than with Chromium's own pace)."""

RENEW_EVERY = 1000
"""Items between two renewals of the browser's pages (:meth:`TableRenderer.renew`: a new
renderer process, ~1 s with plotly.js loaded again), so that what the renderer gathers over a
long build (caches, freed but unreturned memory) does not grow with the items a worker makes."""


def preload() -> None:
    """Import the rendering libraries (nothing is started: safe before a fork)."""
    import matplotlib

    matplotlib.use("Agg")
    import kaleido  # noqa: F401  (imported here, not first in a worker's browser thread)
    import matplotlib.figure  # noqa: F401
    import playwright.sync_api  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    import seaborn  # noqa: F401

    # heavy: playwright
    import hopvista.render.chart  # noqa: F401

    # heavy: playwright
    import hopvista.render.table  # noqa: F401


class ItemRenderer:
    """Owns one warm table renderer (Chromium) and one chart renderer for a process.

    Create it in the process that renders (after any fork): browsers do not survive a fork.
    """

    def __init__(self) -> None:
        # heavy: playwright
        from hopvista.render.chart import ChartRenderer

        # heavy: playwright
        from hopvista.render.panels import layout_document

        # heavy: playwright
        from hopvista.render.table import TableRenderer, parse_style

        self._table = TableRenderer()
        self._layout_document = layout_document
        self._parse_style = parse_style
        self._pages = BrowserPages(self._table)
        # plotly figures are exported in a page of the table browser (one Chromium per
        # process, kaleido's bytes), so on this thread: Playwright's API belongs to it.
        self._chart = ChartRenderer(exporter=self._export_plotly)
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
                self._pages.plotly()  # opened now: its ~1 s is spent before the first item
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
                self._pages.forget()  # closed with its browser
                self._table.__exit__(None, None, None)

    def _export_plotly(self, figure: Any, width: int, height: int, fmt: str) -> bytes:
        if not self._open:
            raise RuntimeError("the plotly page is not open")
        return self._pages.plotly().export(figure, width, height, fmt)

    def render(self, item: Item, root: Path) -> Item:
        """Write the item's PNGs under ``root/images``; return the item with its images."""
        return self.render_many([item], root)[0]

    def render_many(self, items: list[Item], root: Path) -> list[Item]:
        """Render several items (new items with their images are returned; the given ones are
        unchanged): their charts queue on the chart thread while their tables render here,
        so neither the chart libraries nor Chromium wait for the other."""
        if self._chart_ready is None:
            raise RuntimeError("ItemRenderer is not open: use `with ItemRenderer() as r:`")
        self._chart_ready.result()  # raises here if the chart renderer could not start
        (root / IMAGES_DIR).mkdir(exist_ok=True)
        names = [{e.id: e.name for e in item.entities} for item in items]
        inputs = [item.inputs.model_dump(mode="json") for item in items]
        # heavy: playwright
        from hopvista.render.chart import exports_in_browser

        here = [exports_in_browser(item.variant.style["chart"]["library"]) for item in items]
        charts: list[Future[tuple[bytes, dict[str, Any]]] | None] = [
            None if on_this_thread else self._pool.submit(
                self._chart.render, shown["chart"], named, item.variant.style["chart"])
            for item, shown, named, on_this_thread in zip(items, inputs, names, here,
                                                          strict=True)]
        tables: list[tuple[bytes, dict[str, Any]]] = []
        plotted: dict[int, tuple[bytes, dict[str, Any]]] = {}
        for k, (item, shown, named) in enumerate(zip(items, inputs, names, strict=True)):
            with uninterrupted():  # an interrupt waits for the screenshot (~0.1 s)
                tables.append(self._render_table(item, shown["table"], named))
                if here[k]:
                    plotted[k] = self._chart.render(shown["chart"], named,
                                                    item.variant.style["chart"])
        drawn = []
        for k, (item, (table_png, layout), chart) in enumerate(
                zip(items, tables, charts, strict=True)):
            chart_png, meta = chart.result() if chart is not None else plotted[k]
            images = [write_image(root, item.id, "table", table_png, layout),
                      write_image(root, item.id, "chart", chart_png, meta)]
            drawn.append(item.with_images(images))
        self._pages.tend(len(items))
        return drawn


    def _render_table(self, item: Item, table: dict[str, Any], names: dict[str, str]
                      ) -> tuple[bytes, dict[str, Any]]:
        """The item's table image and layout: as its structure shows it (a header of several
        levels, merged cells, related tables: :func:`hopvista.augment.structures.
        structured_layout`), else the one flat grid."""
        style = item.variant.style["table"]
        typed = item.inputs.table
        if not isinstance(typed, Table) or typed.structure is None:
            return self._table.render(table, names, style)
        parsed = self._parse_style(style)
        html = self._layout_document(structured_layout(typed, names), parsed)
        return self._table.shoot(html, parsed, "panels")


class BrowserPages:
    """The plotly page of a table renderer's browser and the upkeep of its pages, for a
    process that draws tables and plotly charts in that one browser (a build's worker,
    ``gen augment``'s).

    The plotly page is opened in the table renderer's context when first asked for (on the
    thread that drives the browser). :meth:`tend` collects the browser's garbage every
    :data:`COLLECT_EVERY` items and renews its pages every :data:`RENEW_EVERY` (a new
    renderer process; the plotly page opens again when next asked for), so that what the
    renderer gathers does not grow with the items drawn.
    """

    def __init__(self, table: TableRenderer) -> None:
        self._table = table
        self._plotly: PlotlyPage | None = None
        self._since_collected = 0  # items drawn since the browser's garbage was collected
        self._since_renewed = 0  # items drawn since the browser's pages were renewed

    def plotly(self) -> PlotlyPage:
        """The plotly page (opened now if it is not; call it inside ``uninterrupted()``, as
        every use of the browser is); the table page keeps the focus."""
        if self._plotly is None:
            self._plotly = PlotlyPage(self._table.context)
            self._table.bring_to_front()
        return self._plotly

    def forget(self) -> None:
        """Forget the plotly page: its browser is being closed."""
        self._plotly = None

    def tend(self, drawn: int) -> None:
        """After ``drawn`` more items: collect the garbage or renew the pages when due."""
        self._since_collected += drawn
        self._since_renewed += drawn
        with uninterrupted():
            if self._since_renewed >= RENEW_EVERY:
                self._plotly = None  # closed with its context
                self._table.renew()
                self._since_renewed = self._since_collected = 0
            elif self._since_collected >= COLLECT_EVERY:
                self._table.collect_garbage()
                self._since_collected = 0


def write_image(root: Path, item_id: str, role: str, png: bytes, how: dict[str, Any],
                number: int | None = None) -> Image:
    """Write one PNG of ``role`` (the ``number``-th of several of that role, when given:
    :func:`~hopvista.model.image_path`); the image object records its file, size (read from
    the PNG's header) and drawing (``how``, less any ``width`` / ``height`` it holds)."""
    path = image_path(item_id, role, number)
    write_atomic(root / path, png)
    width, height = png_size(png)
    render = {k: v for k, v in how.items() if k not in ("width", "height")}
    return Image(role=role, path=path, sha256=hashlib.sha256(png).hexdigest(),
                 width=width, height=height, render=render)
