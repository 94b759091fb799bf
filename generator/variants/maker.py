"""Making variants: a base item and a recipe's plan in, a new item with its images out.

:func:`bases_of_dataset` and :func:`bases_of_import` turn an input into :class:`Base` records
(a hopvista dataset's base items, or an existing dataset's records); :class:`VariantMaker`
draws one variant of one base in a worker process (one warm Chromium for tables, pages and
plotly charts, the chart renderer started on first use). Everything random comes from the
variant's named streams ``Streams(seed, base_id, variant)``: the same input, seed and recipes
give the same bytes.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PIL import Image as PILImage

from hopvista.augment.geometry import warp_box
from hopvista.augment.grid import (
    Grid,
    Layout,
    layout_json,
    restacked,
    wrap_columns,
    wrap_rows,
)
from hopvista.augment.perturbation import PERTURBATIONS, stream_name
from hopvista.augment.recipes import (
    VARIANTS,
    Base,
    Plan,
    Skip,
    chart_readers,
    layout_named,
    pictures_skip,
)
from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.inputs import GridTable, Table
from hopvista.model.item import BASE_VARIANT, Variant, variant_id
from hopvista.render.browser import uninterrupted
from hopvista.render.chart import ChartRenderer, exports_in_browser
from hopvista.render.item_images import BrowserPages, write_image
from hopvista.render.mmtable import cell_pictures, write_cell_images
from hopvista.render.panels import CellPictures, layout_document, page_document
from hopvista.render.png import png_size
from hopvista.render.table import TableRenderer, TableStyle, parse_style
from hopvista.rng import Streams
from hopvista.themes.chart_kinds import shown_chart

__all__ = ["Base", "Skip", "VariantMaker", "VariantSpec", "bases_of_dataset"]


@dataclass(frozen=True)
class VariantSpec:
    """One requested variant: its name (the item id suffix), recipe and user parameters."""

    name: str
    recipe: str
    params: Mapping[str, Any]


# -- bases -----------------------------------------------------------------------------------


def bases_of_dataset(items: Iterator[Item]) -> Iterator[Item]:
    """The base items of a hopvista dataset (variant ``base``), in file order."""
    return (item for item in items if item.variant.name == BASE_VARIANT)


# -- drawing ---------------------------------------------------------------------------------


def _png(image: PILImage.Image) -> bytes:
    """Lossless PNG bytes of an image (deterministic: no timestamps, fixed settings)."""
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _moved(layout: dict[str, Any], warp: Any, size: tuple[int, int]) -> dict[str, Any]:
    """A table layout whose boxes follow ``warp`` into an image of ``size``."""
    def move(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [c | {"box": warp_box(warp, c["box"], size)} for c in cells]

    out = dict(layout)
    for key in ("cells", "copies", "visuals"):
        if key in layout:
            out[key] = move(layout[key])
    if layout.get("caption"):
        out["caption"] = layout["caption"] | {
            "box": warp_box(warp, layout["caption"]["box"], size)}
    for key in ("viewport", "chart"):
        if key in layout:
            out[key] = warp_box(warp, layout[key], size)
    return out


def perturb(png: bytes, steps: tuple[tuple[str, dict[str, Any]], ...], streams: Streams,
            role: str, layout: dict[str, Any] | None = None
            ) -> tuple[bytes, list[dict[str, Any]], dict[str, Any] | None]:
    """Apply perturbation ``steps`` to ``png`` in order; return the new PNG, the records and
    the layout with its boxes moved along."""
    if not steps:
        return png, [], layout
    image: PILImage.Image = PILImage.open(io.BytesIO(png)).convert("RGB")
    records = []
    for k, (name, params) in enumerate(steps):
        done = PERTURBATIONS.get(name).run(image, streams.stream(stream_name(role, k, name)),
                                           params)
        image = done.image.convert("RGB")
        if layout is not None and done.warp is not None:
            layout = _moved(layout, done.warp, image.size)
        records.append(done.record | {"role": role})
    return _png(image), records, layout


MAX_SIDE = 16_384
"""Pixels a variant's table or page image may have on a side (what JPEG, OpenCV and the
photo and noise perturbations handle, and more than any reader can use)."""
MAX_PIXELS = 40_000_000
"""Pixels a variant's table or page image may have in all."""


def _shown(png: bytes, what: str) -> bytes:
    """``png``, if it is small enough to be perturbed and read; a :class:`UserError` (the
    variant is skipped with its reason) otherwise."""
    width, height = png_size(png)
    if max(width, height) > MAX_SIDE or width * height > MAX_PIXELS:
        raise UserError(f"the {what} is {width:,} x {height:,} px as an image (at most "
                        f"{MAX_SIDE:,} px a side and {MAX_PIXELS:,} px in all)")
    return png


MAX_ASPECT = 5.0
"""How much wider than tall (or taller than wide) a variant's table image may be: a wider one
is wrapped into bands one above the other, a taller one into panels side by side."""
MAX_BANDS = 6
"""Bands (or side-by-side panels) a table is wrapped into, at most."""


def out_of_shape(width: int, height: int) -> str | None:
    """``"wide"`` or ``"tall"`` for an image more than :data:`MAX_ASPECT` times wider than
    tall or taller than wide; ``None`` otherwise."""
    if width > MAX_ASPECT * height:
        return "wide"
    if height > MAX_ASPECT * width:
        return "tall"
    return None


def wrappings(layout: Layout, shape: str) -> Iterator[tuple[Layout, dict[str, Any]]]:
    """The layouts tried, in order, for a table image of the wrong ``shape``, each with its
    record: its panels arranged the other way, then cut into 2, 3, ... bands."""
    arrange, wrap = ("stack", wrap_columns) if shape == "wide" else ("side", wrap_rows)
    other = restacked(layout, arrange)
    if other is not None:
        yield other, {"arrange": arrange}
    for bands in range(2, MAX_BANDS + 1):
        wrapped = wrap(layout, bands)
        if wrapped is not None:
            yield wrapped, {"cut": "columns" if shape == "wide" else "rows", "bands": bands}


def wrapped_plan(plan: Plan, layout: Layout, record: dict[str, Any]) -> Plan:
    """``plan`` showing ``layout``, its parameters saying how the table was wrapped."""
    parameters = plan.parameters | {"wrapped": record}
    if "layout" in parameters:
        parameters["layout"] = layout_json(layout)
    return replace(plan, layout=layout, parameters=parameters)


SCROLL_MARGIN = 12
"""Pixels a scrolled page shows above (or below) the cells the answer depends on."""


Needed = tuple[list[list[int]], str]
"""Boxes a page must show, and what they are (for a message)."""


def needed_boxes(base: Base, layout: dict[str, Any]) -> list[Needed]:
    """What a page must show, the most first: the cells the answer depends on (the protected
    ones; every cell when none is) with their column headers and the table's caption (its
    unit); failing that, its body cells alone (a long table's header scrolled away). Each with
    the chart, when the page shows one that a statement reads (or the item has no statements
    to say)."""
    needed = set(base.protected) or {(c.row, c.col) for row in base.grid.rows for c in row}
    headed = needed | {(0, col) for _, col in needed}
    body = {(row, col) for row, col in needed if row > 0} or needed
    statements = base.item.statements
    chart = [layout["chart"]] if "chart" in layout and (
        not statements or any("chart" in s.modalities for s in statements)) else []
    what = "the cells and the chart the answer depends on" if chart else \
        "the cells the answer depends on"
    caption = [layout["caption"]["box"]] if layout.get("caption") else []
    return [([c["box"] for c in layout["cells"] if (c["row"], c["col"]) in cells]
             + extra + chart, what)
            for cells, extra in ((headed, caption), (body, []))]


def scroll_to(layout: dict[str, Any], needed: Needed,
              heights: tuple[int, int], template: str) -> tuple[int, int, int] | None:
    """How a page whose full shot is ``layout`` fits a window ``heights[0]`` image pixels
    tall, made taller up to ``heights[1]`` when what it must show needs it (a user enlarges
    the window): ``None`` when the page fits whole; else ``(height, shown, scroll)``: the
    window's height, the pixels of its scrolling region it shows (all of them when the page
    fits the window made taller), and how far that region is scrolled so the ``needed``
    boxes (:func:`needed_boxes`) are in view, the least scroll that shows them (with
    :data:`SCROLL_MARGIN`)."""
    height, tallest = heights
    if layout["height"] <= height:
        return None
    region = layout.get("viewport")
    if region is None:
        raise UserError(f"the page is {layout['height']:,} px tall, more than its window's "
                        f"{height:,}, and page template {template!r} marks no data-viewport "
                        "region to scroll")
    chrome = layout["height"] - region[3]
    boxes, what = needed
    boxes = boxes or [c["box"] for c in layout["cells"]]
    top = min(b[1] for b in boxes) - region[1]
    bottom = max(b[1] + b[3] for b in boxes) - region[1]
    height = max(height, min(tallest, chrome + bottom - top + 2 * SCROLL_MARGIN))
    if layout["height"] <= height:
        return layout["height"], region[3], 0  # a window made as tall as the page
    shown = height - chrome
    if bottom - top > shown:
        raise UserError(f"{what} take {bottom - top:,} px of the page, more than the "
                        f"{max(shown, 0):,} px a window {height:,} px tall shows")
    scroll = max(0, bottom + SCROLL_MARGIN - shown)
    if top - scroll < 0:
        scroll = max(0, top - SCROLL_MARGIN)
    return height, shown, min(scroll, region[3] - shown)


def scroll_within(layout: dict[str, Any], wanted: list[Needed], heights: tuple[int, int],
                  template: str) -> tuple[int, int, int] | None:
    """:func:`scroll_to` for the first of ``wanted`` a window can show (the last one's
    :class:`UserError` when none can)."""
    for needed in wanted[:-1]:
        try:
            return scroll_to(layout, needed, heights, template)
        except UserError:
            continue
    return scroll_to(layout, wanted[-1], heights, template)


def clip_box(box: list[int], region: list[int]) -> list[int]:
    """The part of ``box`` inside ``region`` (both ``[x, y, w, h]``); a box out of it keeps
    its place on the region's nearer edge, with no width or height."""
    x0 = min(max(box[0], region[0]), region[0] + region[2])
    y0 = min(max(box[1], region[1]), region[1] + region[3])
    x1 = max(min(box[0] + box[2], region[0] + region[2]), x0)
    y1 = max(min(box[1] + box[3], region[1] + region[3]), y0)
    return [x0, y0, x1 - x0, y1 - y0]


def clipped(layout: dict[str, Any]) -> dict[str, Any]:
    """A scrolled page's layout with every box clipped to its scrolling region: a cell
    scrolled out of view has no area."""
    region = layout["viewport"]
    out = dict(layout)
    for key in ("cells", "copies", "visuals"):
        if key in layout:
            out[key] = [c | {"box": clip_box(c["box"], region)} for c in layout[key]]
    if layout.get("caption"):
        out["caption"] = layout["caption"] | {"box": clip_box(layout["caption"]["box"], region)}
    if "chart" in layout:
        out["chart"] = clip_box(layout["chart"], region)
    return out


def _scaled(png: bytes, zoom: float, layout: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """A page image scaled by ``zoom`` (a smaller window on a screen), its boxes along."""
    if zoom == 1.0:
        return png, layout
    image = PILImage.open(io.BytesIO(png)).convert("RGB")
    size = (max(1, round(image.width * zoom)), max(1, round(image.height * zoom)))
    scaled = image.resize(size, PILImage.Resampling.LANCZOS)
    return _png(scaled), _moved(layout, lambda p: p * zoom, size)


def shown_table(table: Table | GridTable | None, grid: Grid,
                blanked: tuple[tuple[int, int], ...]) -> Table | GridTable | None:
    """The table JSON a variant shows: ``blanked`` cells take the grid's text."""
    if table is None or not blanked:
        return table
    if isinstance(table, GridTable):
        rows = [list(r) for r in table.rows]
        for r, c in blanked:
            rows[r - 1][c] = grid.cell(r, c).text
        return table.model_copy(update={"rows": tuple(tuple(r) for r in rows)})
    first = 1 if table.period_label is None else 2
    rows_out = [dict(row.values) for row in table.rows]
    for r, c in blanked:
        rows_out[r - 1][table.columns[c - first].key] = grid.cell(r, c).text
    return table.model_copy(update={"rows": tuple(
        row.model_copy(update={"values": values})
        for row, values in zip(table.rows, rows_out, strict=True))})


@dataclass
class _Job:
    """One planned variant of one base; ``shown`` is its plan as shot, when shooting changed
    it (a table wrapped to keep its shape)."""

    spec: VariantSpec
    plan: Plan
    streams: Streams
    params: dict[str, Any]
    shown: Plan | None = None


@dataclass(frozen=True)
class _Chart:
    """A variant's chart: its PNG (``None``: no chart), how it was drawn, the perturbation
    records, and the chart input it shows."""

    png: bytes | None
    how: dict[str, Any]
    records: list[dict[str, Any]]
    shown: Any


_Table = tuple[str, bytes, dict[str, Any], list[dict[str, Any]]]
"""A shot table or page: its role, PNG, layout and perturbation records."""

_ChartRequest = tuple[dict[str, Any], dict[str, str], dict[str, Any], Any]
"""A chart to draw: the chart input as drawn, entity names, the style, and the chart input
the variant item shows."""


def _failed(exc: Exception) -> Future[_Chart]:
    """A chart's future that raises ``exc`` where it is read."""
    failed: Future[_Chart] = Future()
    failed.set_exception(exc)
    return failed


def _chart_to_draw(base: Base, job: _Job) -> _ChartRequest | None:
    """The chart the variant draws (``None``: it takes the base's image, or shows none):
    the recipe's restyled chart, else the item's own style when the base has no image."""
    item, plan = base.item, job.plan
    names = {e.id: e.name for e in item.entities}
    chart_input = item.inputs.chart
    if plan.chart_style is not None and chart_input is not None:
        shown = chart_input.model_dump(mode="json")
        if plan.chart_style["kind"] != chart_input.kind and base.min_rank_gap is not None:
            shown = shown_chart(shown, plan.chart_style["kind"], chart_readers(item),
                                base.min_rank_gap)
        return shown, names, dict(plan.chart_style), type(chart_input).model_validate(shown)
    if base.chart_png is None and chart_input is not None and item.variant.style.get("chart"):
        return (chart_input.model_dump(mode="json"), names, dict(item.variant.style["chart"]),
                chart_input)
    return None


class VariantMaker:
    """Draws variants in one process: a warm Chromium for tables and pages, the chart renderer
    started on first use, and two helper threads that draw charts and apply perturbations
    while Chromium shoots the next table (each waits on a library or a process most of the
    time). plotly charts are exported in a page of the same Chromium (kaleido's bytes, no
    second browser), on this thread: Playwright's API belongs to it. Results do not depend
    on the threads: every image has its own streams and file.

    Create it after any fork and use it as a context manager.
    """

    def __init__(self, root: Path, seed: int) -> None:
        self.root, self.seed = root, seed
        self._table = TableRenderer(viewport=(1600, 1200))
        self._chart: Any = None
        self._pages = BrowserPages(self._table)  # its plotly page and their upkeep
        self._owner: threading.Thread | None = None  # the thread that drives the browser
        self._chart_lock = threading.Lock()
        self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="hopvista-variant")

    def __enter__(self) -> VariantMaker:
        with uninterrupted():  # an interrupt waits for Chromium to start (see the shots)
            self._table.open()
        self._owner = threading.current_thread()
        (self.root / "images").mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let the helper threads finish what they draw, then stop the chart renderer and the
        browser (each even if the one before failed); safe to call twice."""
        try:
            self._threads.shutdown(wait=True, cancel_futures=True)
            if self._chart is not None:
                chart, self._chart = self._chart, None
                chart.__exit__(None, None, None)
        finally:
            self._pages.forget()  # closed with its browser
            self._table.close()

    def _export_plotly(self, figure: dict[str, Any], width: int, height: int,
                       fmt: str) -> bytes:
        """A plotly figure exported in the table browser's plotly page (opened on first use)."""
        if self._owner is None:
            raise RuntimeError("VariantMaker is not open: use `with VariantMaker(...) as maker:`")
        if threading.current_thread() is not self._owner:
            raise RuntimeError("plotly charts are exported on the thread that shoots tables")
        with uninterrupted():  # an interrupt waits for the export (~0.2 s)
            return self._pages.plotly().export(figure, width, height, fmt)

    def _draw_chart(self, chart: dict[str, Any], names: dict[str, str],
                    style: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        with self._chart_lock:
            if self._chart is None:
                self._chart = ChartRenderer(exporter=self._export_plotly).__enter__()
            result: tuple[bytes, dict[str, Any]] = self._chart.render(chart, names, style)
            return result

    def make(self, base: Base, spec: VariantSpec) -> Item:
        """The variant ``spec`` of ``base`` (its images written); :class:`Skip` if the recipe
        cannot show this base."""
        (made,) = self.make_all(base, [spec])
        if isinstance(made, tuple):
            raise Skip(made[1])
        return made

    def make_all(self, base: Base, specs: list[VariantSpec] | tuple[VariantSpec, ...]
                 ) -> list[Item | tuple[str, str]]:
        """Every variant of ``specs`` of ``base``, in order: an item, or ``(name, why)`` for a
        variant its recipe cannot make for this base, or whose table font cannot show the
        base's text (the renderer refuses a fallback font)."""
        jobs: list[_Job | tuple[str, str]] = []
        for spec in specs:
            recipe = VARIANTS.get(spec.recipe)
            params = recipe.parse(spec.params)
            streams = Streams(self.seed, base.item.base_id, spec.name)
            unshown = pictures_skip(recipe, base.item)
            if unshown is not None:
                jobs.append((spec.name, unshown))
                continue
            try:
                jobs.append(_Job(spec, recipe.plan(base, streams, params), streams,
                                 params.model_dump(mode="json")))
            except Skip as why:
                jobs.append((spec.name, str(why)))
        # Charts go to the helper threads first; plotly charts (kaleido's) are exported here,
        # in the table browser, meanwhile.

        charts: list[Future[_Chart] | None] = [None] * len(jobs)
        plotly: list[tuple[int, _Job, _ChartRequest]] = []
        for k, job in enumerate(jobs):
            if isinstance(job, tuple):
                continue
            try:
                request = _chart_to_draw(base, job)
                here = request is not None and exports_in_browser(request[2]["library"])
            except Exception as exc:
                charts[k] = _failed(exc)  # raised where the chart is read, as a helper's
                continue
            if here and request is not None:
                plotly.append((k, job, request))
            else:
                charts[k] = self._threads.submit(self._chart_of, base, job, request)
        for k, job, request in plotly:
            charts[k] = self._plotly_chart(base, job, request)
        tables: list[Future[_Table] | str | None] = []
        for job, chart in zip(jobs, charts, strict=True):
            if isinstance(job, tuple) or chart is None:
                tables.append(None)
                continue
            try:
                tables.append(self._shoot(base, job, chart))
            except UserError as exc:  # a font that cannot show the text, a table too large
                tables.append(str(exc))
        made: list[Item | tuple[str, str]] = []
        for job, chart, table in zip(jobs, charts, tables, strict=True):
            if isinstance(job, tuple):
                made.append(job)
            elif chart is None or table is None or isinstance(table, str):
                if chart is not None:
                    chart.result()  # let it finish (and raise a real error) before moving on
                made.append((job.spec.name, table if isinstance(table, str) else "not drawn"))
            else:
                made.append(self._item(base, job, chart.result(), table.result()))
        self._pages.tend(len(made))  # the browser's garbage, its pages renewed when due
        return made

    def _plotly_chart(self, base: Base, job: _Job, request: _ChartRequest) -> Future[_Chart]:
        """Export a plotly chart here; its perturbations go to a helper thread (a failed
        export is the future's error, as if a helper had drawn it)."""
        try:
            drawn = self._draw_chart(*request[:3])
        except Exception as exc:
            return _failed(exc)
        return self._threads.submit(self._chart_of, base, job, request, drawn)

    def _chart_of(self, base: Base, job: _Job, request: _ChartRequest | None,
                  drawn: tuple[bytes, dict[str, Any]] | None = None) -> _Chart:
        """Draw (or take) the variant's chart and perturb it (on a helper thread); ``drawn``
        is the chart ``request`` asks for, when it was drawn already."""
        item, plan = base.item, job.plan
        if request is not None:
            shown, names, style, chart_input = request
            png, how = drawn if drawn is not None else self._draw_chart(shown, names, style)
        elif base.chart_png is not None:
            png, how, chart_input = base.chart_png, dict(base.chart_render), item.inputs.chart
        else:
            return _Chart(None, {}, [], item.inputs.chart)
        if plan.page is not None:
            return _Chart(png, how, [], chart_input)  # the page shows it as drawn
        png, records, _ = perturb(png, plan.chart_perturbations, job.streams, "chart")
        return _Chart(png, how, records, chart_input)

    def _shoot(self, base: Base, job: _Job, chart: Future[_Chart]) -> Future[_Table]:
        """Shoot the table (or page) here; its perturbations go to a helper thread."""

        item, plan = base.item, job.plan
        style = parse_style(plan.table_style)
        pictures = cell_pictures(item.inputs.visuals, style) if item.inputs.visuals else None
        if plan.page is not None:
            zoom, template = float(plan.page["zoom"]), str(plan.page["template"])
            png, layout, plan = self._shoot_page(base, plan, style, pictures,
                                                 chart.result().png)
            job.shown = plan
            if pictures is not None:
                layout = layout | {"visual_px": pictures.size_px}
            windowed = bool(plan.parameters["windowed"])

            def finish_page() -> _Table:
                scaled, moved = _scaled(png, zoom, layout)
                if windowed:
                    moved = clipped(moved)
                return "page", scaled, moved | {"page": template}, []

            return self._threads.submit(finish_page)
        png, layout, plan = self._shoot_table(base, plan, style, pictures)
        job.shown = plan
        if pictures is not None:
            layout = layout | {"visual_px": pictures.size_px}

        def finish_table() -> _Table:
            out, records, moved = perturb(png, plan.table_perturbations, job.streams, "table",
                                          layout)
            return "table", out, moved or layout, records

        return self._threads.submit(finish_table)

    def _shoot_table(self, base: Base, plan: Plan, style: TableStyle,
                     pictures: CellPictures | None) -> tuple[bytes, dict[str, Any], Plan]:
        """Shoot the plan's table; one more than :data:`MAX_ASPECT` times wider than tall (or
        taller than wide) is wrapped (:func:`wrappings`) and shot again, the plan saying how.
        A table no wrapping brings into shape, or whose answer names a place or order a
        wrapping would change, is a :class:`UserError` (the variant is skipped with it)."""
        look = dict(plan.mark_look) if plan.mark_look is not None else None

        def shot(layout: Layout) -> tuple[bytes, dict[str, Any]]:
            html = layout_document(layout, style, look, pictures=pictures)
            with uninterrupted():
                png, layout_record = self._table.shoot(html, style, "panels")
            return _shown(png, "table"), layout_record

        png, layout = shot(plan.layout)
        width, height = png_size(png)
        shape = out_of_shape(width, height)
        if shape is None:
            return png, layout, plan
        if layout_named(base.item) is not None:
            raise UserError(f"the table is {width:,} x {height:,} px, more than "
                            f"{MAX_ASPECT:g} times as {shape}, and its answer names a place or "
                            "order in it that wrapping would change")
        for wrapped, record in wrappings(plan.layout, shape):
            png, layout = shot(wrapped)
            if out_of_shape(*png_size(png)) is None:
                return png, layout, wrapped_plan(plan, wrapped, record)
        raise UserError(f"the table is {width:,} x {height:,} px, more than {MAX_ASPECT:g} "
                        f"times as {shape} as it is {'tall' if shape == 'wide' else 'wide'}, "
                        f"and wrapping it in up to {MAX_BANDS} bands does not bring it within")

    def _shoot_page(self, base: Base, plan: Plan, style: TableStyle,
                    pictures: CellPictures | None, chart_png: bytes | None
                    ) -> tuple[bytes, dict[str, Any], Plan]:
        """Shoot the plan's page in a window ``height_px`` tall (up to ``max_height_px`` when
        what it must show needs it): a longer page is shot again with its scrolling region
        (``data-viewport``) scrolled to show what the answer depends on (:func:`scroll_to`),
        its boxes to be clipped to what the window shows; the plan records ``height_px``,
        ``scroll_px`` and ``windowed`` (whether the window cut the page). A page that cannot
        scroll, or whose needed cells (and chart) are taller than the tallest window shows,
        is a :class:`UserError` (the variant is skipped)."""
        item, page = base.item, dict(plan.page or {})
        names = {e.id: e.name for e in item.entities}
        template = page["template"]

        def shot(window: tuple[int, int] | None) -> tuple[bytes, dict[str, Any]]:
            html = page_document(plan.layout, style, template, question=item.question,
                                 title=page["title"], width_px=page["width_px"],
                                 chart_png=chart_png,
                                 texts=[{"name": names.get(t.entity, t.entity) or "Passage",
                                         "text": t.text} for t in item.inputs.text],
                                 pictures=pictures, window=window)
            with uninterrupted():  # an interrupt waits for the shot (~0.1 s)
                png, layout = self._table.shoot(html, style, f"page:{template}")
            return _shown(png, "page"), layout

        png, layout = shot(None)
        scale = self._table.device_scale_factor
        heights = (page["height_px"], page.get("max_height_px", page["height_px"]))
        window = scroll_within(layout, needed_boxes(base, layout),
                               (round(heights[0] * scale), round(heights[1] * scale)), template)
        if window is None:
            return png, layout, replace(plan, parameters=plan.parameters | {
                "scroll_px": 0, "windowed": False})
        height, shown, scroll = (round(n / scale) for n in window)
        taller = max(height, page["height_px"])
        if shown * scale >= layout["viewport"][3]:
            return png, layout, replace(plan, parameters=plan.parameters | {
                "height_px": taller, "scroll_px": 0, "windowed": False})
        png, layout = shot((shown, scroll))
        return png, layout, replace(plan, parameters=plan.parameters | {
            "height_px": taller, "scroll_px": scroll, "windowed": True})

    def _item(self, base: Base, job: _Job, chart: _Chart, table: _Table) -> Item:
        """Write the images and make the variant item."""
        item, plan, spec = base.item, job.shown or job.plan, job.spec
        item_id = variant_id(item.base_id, spec.name)
        role, png, layout, records = table
        images = [write_image(self.root, item_id, role, png, layout)]
        records = list(records)
        if role == "table" and chart.png is not None:
            images.append(write_image(self.root, item_id, "chart", chart.png, chart.how))
            records += chart.records
        images += write_cell_images(self.root, item_id, item.inputs.visuals)
        chart_style = plan.chart_style if plan.chart_style is not None else \
            item.variant.style.get("chart")
        protected = [{"row": r, "col": c, "why": why}
                     for (r, c), why in sorted(base.protected.items())]
        variant = Variant.model_validate(dict(
            name=spec.name, recipe=spec.recipe,
            parameters=plan.parameters | {"params": job.params},
            style={"table": dict(plan.table_style)} | (
                {"chart": dict(chart_style)} if chart_style else {}),
            perturbations=tuple(records), markup=plan.markup, protected=tuple(protected)))
        inputs = item.inputs.model_copy(update={
            "table": shown_table(item.inputs.table, plan.grid, plan.blanked),
            "chart": chart.shown})
        return item.model_copy(update={"id": item_id, "variant": variant, "inputs": inputs,
                                       "images": tuple(images)})
