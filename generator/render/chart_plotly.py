"""plotly charts: the figure as a dict, and a warm kaleido browser that turns it into PNG.

kaleido ≥ 1 draws through a Chromium it drives over the DevTools protocol. Starting one costs
seconds, so :class:`KaleidoWorker` keeps one open on a private asyncio loop in a background
thread and hands it figures one at a time (about 0.15–0.25 s each).

kaleido's own ``start_sync_server`` does the same with a process-wide singleton; it is not
used here because a second user in the process would share (and could stop) our server and
because a failed start leaves its queue blocking forever. Every wait here has a timeout.

Lifetime: choreographer starts the browser (through a small Python wrapper) in a session of its
own, so a terminal's Ctrl-C never reaches it; it talks to it over a pipe, and Chromium exits
when that pipe closes, so the browser also ends when this process dies. Its page folder and
its profile are made with :mod:`tempfile` (under ``$TMPDIR`` / ``tempfile.tempdir``); the
profile goes in a folder of the worker's own (``hopvista-kaleido-*``), which
:meth:`KaleidoWorker.stop` and a failed :meth:`KaleidoWorker.start` remove after ending any
browser still using it (a start cut short can leave one that choreographer lost track of).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import psutil

from hopvista.render.chart_data import (
    EMPHASIS_MARKER,
    EMPHASIS_RING,
    LINE_X_PADDING,
    ChartData,
    Emphasis,
    dodge,
    emphasis_pad,
    legend_labels,
    pixel_box,
    points_to_pixels,
    scatter_padding,
)

ZERO_LINE_COLOR = "#333333"
TEXT_COLOR = "#2a2a2a"
PIE_EDGE_COLOR = "white"
MARGIN_PX = 12
"""Base figure margin; plotly grows margins further for titles, ticks and legends."""
SVG_MITER_LIMIT = 4.0
"""SVG's default ``stroke-miterlimit``, which plotly's shapes keep."""


def _pie_rotation(values: list[float]) -> float:
    """Rotation (clockwise from 12 o'clock) centring the smallest slice at 3 o'clock."""
    total = sum(values)
    smallest = min(range(len(values)), key=lambda i: (values[i], i))
    before = sum(values[:smallest])
    return 90.0 - 360.0 * (before + values[smallest] / 2) / total


def plotly_figure(data: ChartData, style: dict[str, Any], family: str) -> dict[str, Any]:
    """The plotly figure (as a plain dict) for ``data`` drawn in ``style`` with ``family``.

    ``family`` is a CSS font-family list (the substitute, plus a glyph fallback if needed).
    """
    import plotly.graph_objects as go
    import plotly.io as pio

    dpi = int(style["dpi"])
    sizes = {k: points_to_pixels(float(v), dpi) for k, v in style["font_sizes"].items()}
    palette = list(style["palette"])[:len(data.names)]
    primary = family.split(",")[0].strip()
    layout: dict[str, Any] = {
        "template": pio.templates[style["theme"]],
        "width": int(style["width"]),
        "height": int(style["height"]),
        "font": {"family": family, "size": sizes["tick"], "color": TEXT_COLOR},
        "title": {"text": data.title, "font": {"size": sizes["title"]}, "x": 0.5,
                  "xanchor": "center", "y": 0.98, "yanchor": "top", "yref": "container",
                  "automargin": True},
        "colorway": palette,
        "margin": {"l": MARGIN_PX, "r": MARGIN_PX, "t": MARGIN_PX, "b": MARGIN_PX,
                   "autoexpand": True},
        "showlegend": data.kind != "pie",
    }
    traces: list[Any] = []
    if data.kind == "pie":
        slices = [series[0] for series in data.values]
        traces.append(go.Pie(
            labels=list(data.names), values=slices, sort=False, direction="clockwise",
            rotation=_pie_rotation(slices), textinfo="label", textposition="outside",
            textfont={"size": sizes["legend"]}, automargin=True, hoverinfo="skip",
            marker={"colors": palette, "line": {"color": PIE_EDGE_COLOR, "width": 1}}))
        if data.emphasis is not None:
            _emphasise_slice(traces[0], data.emphasis, dpi)
        return go.Figure(data=traces, layout=layout).to_dict()  # type: ignore[no-any-return]

    line_px = points_to_pixels(float(style["line_width"]), dpi)
    marker_px = points_to_pixels(float(style["marker_size"]), dpi)
    offsets, scatter_px = dodge(len(data.names), len(data.years), int(style["width"]),
                                marker_px)
    lines, columns = legend_labels(data.names, style["legend"], primary,
                             float(style["font_sizes"]["legend"]), dpi, int(style["width"]))
    for i, values in enumerate(data.values):
        shown = "<br>".join(lines[i])
        if data.kind == "line":
            traces.append(go.Scatter(
                x=list(data.years), y=list(values), name=shown, mode="lines+markers",
                line={"color": palette[i], "width": line_px},
                marker={"color": palette[i], "size": marker_px}))
        elif data.kind == "scatter":
            traces.append(go.Scatter(
                x=[y + offsets[i] for y in data.years], y=list(values), name=shown,
                mode="markers", marker={"color": palette[i], "size": scatter_px}))
        else:
            traces.append(go.Bar(x=data.period_texts(), y=list(values), name=shown,
                                 marker={"color": palette[i], "line": {"width": 0}}))
    grid = bool(style["grid"])
    axis_common: dict[str, Any] = {"automargin": True, "ticks": "outside", "showline": True,
                   "linecolor": "#444444", "tickfont": {"size": sizes["tick"]},
                   "title": {"font": {"size": sizes["axis_label"]}, "standoff": 8}}
    low, high = data.value_range()
    layout["yaxis"] = {**axis_common, "range": [low, high], "autorange": False,
                       "showgrid": grid, "tickformat": ",", "zeroline": data.crosses_zero(),
                       "zerolinecolor": ZERO_LINE_COLOR, "zerolinewidth": 1,
                       "title": {**axis_common["title"], "text": data.value_title}}
    xaxis: dict[str, Any] = {**axis_common,
                             "title": {**axis_common["title"], "text": data.category_title}}
    if data.kind == "bar":
        width = float(style["bar_width"])
        layout.update({"barmode": "group", "bargap": 1.0 - width, "bargroupgap": 0.0})
        xaxis.update({"type": "category", "showgrid": False,
                      "categoryorder": "array",
                      "categoryarray": data.period_texts()})
    else:
        pad = LINE_X_PADDING if data.kind == "line" else scatter_padding(len(data.names))
        xaxis.update({"type": "linear", "tickmode": "array", "tickvals": list(data.years),
                      "ticktext": data.period_texts(), "showgrid": grid,
                      "range": [data.years[0] - pad, data.years[-1] + pad], "zeroline": False})
    layout["xaxis"] = xaxis
    legend: dict[str, Any] = {"font": {"size": sizes["legend"]}, "bgcolor": "rgba(0,0,0,0)",
                              "traceorder": "normal"}
    if style["legend"] == "right":
        legend.update({"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0,
                       "yanchor": "top"})
    else:
        legend.update({"orientation": "h", "x": 0.5, "xanchor": "center", "xref": "container",
                       "y": 0.0, "yanchor": "bottom", "yref": "container"})
        rows = math.ceil(len(lines) / columns) * max(len(parts) for parts in lines)
        # The legend sits at the bottom of the image; the margin above it holds the tick
        # labels and the axis title, which plotly places from the plot area downwards.
        axis_px = 1.4 * sizes["tick"] + 1.4 * sizes["axis_label"] + 8 + 8
        layout["margin"]["b"] = MARGIN_PX + int(rows * sizes["legend"] * 1.6 + axis_px + 8)
    layout["legend"] = legend
    if data.emphasis is not None:
        layout["shapes"] = [_emphasis_shape(data, data.emphasis, style, palette,
                                            offsets, scatter_px)]
    return go.Figure(data=traces, layout=layout).to_dict()  # type: ignore[no-any-return]


def _emphasise_slice(pie: Any, e: Emphasis, dpi: int) -> None:
    """Give the emphasised wedge an edge of its own (the others keep theirs)."""
    count = len(pie.values)
    pie.marker.line = {
        "color": [e.colour if i == e.series else PIE_EDGE_COLOR for i in range(count)],
        "width": [points_to_pixels(e.width, dpi) if i == e.series else 1
                  for i in range(count)]}


def _emphasis_shape(data: ChartData, e: Emphasis, style: dict[str, Any], palette: list[str],
                    offsets: list[float], scatter_px: float) -> dict[str, Any]:
    """The layout shape that emphasises one mark, in data coordinates (the axes ranges are
    fixed, so a shape moves nothing): a bar's outline, a ring or a larger marker around a
    point (sized in pixels), or the series' line drawn thicker under the traces."""
    dpi = int(style["dpi"])
    stroke = points_to_pixels(e.width, dpi)
    value = data.values[e.series][e.period]
    common: dict[str, Any] = {"xref": "x", "yref": "y", "line": {"color": e.colour,
                                                                "width": stroke}}
    if data.kind == "bar":
        group = float(style["bar_width"])
        bar = group / len(data.names)
        left = e.period - group / 2 + e.series * bar
        return {**common, "type": "rect", "layer": "above", "x0": left, "x1": left + bar,
                "y0": 0, "y1": value, "fillcolor": "rgba(0,0,0,0)"}
    if e.how == "series":
        points = " L ".join(f"{x},{y}" for x, y in zip(data.years, data.values[e.series],
                                                         strict=True))
        return {**common, "type": "path", "layer": "between", "path": f"M {points}",
                "line": {"color": palette[e.series],
                         "width": points_to_pixels(float(style["line_width"]), dpi)
                         + 2 * stroke}}
    x = float(data.years[e.period])
    marker = points_to_pixels(float(style["marker_size"]), dpi)
    if data.kind == "scatter":
        x += offsets[e.series]
        marker = scatter_px
    if e.how == "outline":
        radius, fill = (EMPHASIS_RING * marker + stroke) / 2, "rgba(0,0,0,0)"
    else:
        radius, fill = EMPHASIS_MARKER * marker / 2, palette[e.series]
    return {**common, "type": "circle", "layer": "above", "xsizemode": "pixel",
            "ysizemode": "pixel", "xanchor": x, "yanchor": value, "x0": -radius,
            "x1": radius, "y0": -radius, "y1": radius, "fillcolor": fill}


_NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"


def _numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(_NUMBER, text)]


def _attribute(tag: str, name: str) -> str:
    found = re.search(rf'\s{name}="([^"]*)"', tag)
    if found is None:
        raise RuntimeError(f"plotly SVG: no {name} in {tag[:80]!r}")
    return found.group(1)


def _path_extent(d: str) -> tuple[float, float, float, float]:
    """Extent of a plotly shape path: straight segments (``M L H V``, absolute), or a circle
    (``M cx+r,cy A r,r ...``)."""
    if "A" in d:
        mx, my, rx, ry = _numbers(d)[:4]
        return mx - 2 * rx, my - ry, mx, my + ry
    xs: list[float] = []
    ys: list[float] = []
    x = y = 0.0
    for command, args in re.findall(r"([MLHVZ])([^MLHVZ]*)", d):
        values = _numbers(args)
        if command in "ML":
            for i in range(0, len(values) - 1, 2):
                x, y = values[i], values[i + 1]
                xs.append(x)
                ys.append(y)
        elif command == "H" and values:
            x = values[-1]
            xs.append(x)
            ys.append(y)
        elif command == "V" and values:
            y = values[-1]
            xs.append(x)
            ys.append(y)
    if not xs:
        raise RuntimeError(f"plotly SVG: an empty shape path {d[:80]!r}")
    return min(xs), min(ys), max(xs), max(ys)


def _slice_extent(d: str) -> tuple[float, float, float, float]:
    """Extent of a pie slice path ``M cx,cy l dx,dy a r,r 0 large,sweep ex,ey Z``: the centre,
    both ends and the arc between them (clockwise on screen for sweep 1)."""
    values = _numbers(d)
    cx, cy, dx, dy, r = values[0], values[1], values[2], values[3], values[4]
    sweep, ex, ey = values[8], values[9], values[10]
    start = math.atan2(dy, dx)
    end = math.atan2(dy + ey, dx + ex)
    turn = (end - start) % (2 * math.pi) if sweep else -((start - end) % (2 * math.pi))
    if abs(turn) < 1e-9:
        turn = 2 * math.pi if sweep else -2 * math.pi
    xs, ys = [cx], [cy]
    for k in range(181):
        angle = start + turn * k / 180
        xs.append(cx + r * math.cos(angle))
        ys.append(cy + r * math.sin(angle))
    return min(xs), min(ys), max(xs), max(ys)


def emphasis_box(svg: str, data: ChartData, style: dict[str, Any]
                 ) -> tuple[int, int, int, int]:
    """The pixel box ``(x, y, w, h)`` of the emphasis in the SVG plotly drew of the same
    figure (the same layout as its PNG): the emphasis shape, or the emphasised pie slice."""
    if data.emphasis is None:
        raise ValueError("the chart has no emphasis")
    if data.kind == "pie":
        slices = re.findall(r'<g class="slice"[^>]*>\s*<path class="surface"[^>]*>', svg)
        if len(slices) != len(data.names):
            raise RuntimeError(f"plotly SVG: {len(slices)} pie slices for "
                               f"{len(data.names)} entities")
        extent = _slice_extent(_attribute(slices[data.emphasis.series], "d"))
    else:
        shapes = re.findall(r'<path data-index="0"[^>]*>', svg)
        if len(shapes) != 1:
            raise RuntimeError(f"plotly SVG: {len(shapes)} emphasis shapes, expected 1")
        extent = _path_extent(_attribute(shapes[0], "d"))
    pad = emphasis_pad(data.emphasis, style)
    if data.emphasis.how == "series":
        # a shape's line joins are mitred (SVG's miter limit 4: a spike reaches up to twice
        # the line's width past a vertex), where matplotlib's are round
        pad = SVG_MITER_LIMIT * (pad - 2.0) + 2.0
    return pixel_box(*extent, pad, int(style["width"]), int(style["height"]))


CLOSE_TIMEOUT_S = 20.0
"""Longest wait for kaleido to close its browser (choreographer itself waits up to ~10 s)."""

_SETTLE_S = 5.0
"""Extra wait for a timed-out request to finish cancelling inside the loop."""


async def _bounded(coroutine: Coroutine[Any, Any, Any], timeout_s: float) -> Any:
    """``coroutine``'s result, or ``TimeoutError`` after ``timeout_s``: then it is cancelled
    and awaited (briefly) inside the loop, and whatever it raised while being cancelled is
    retrieved, so no task is left with an exception nobody reads."""
    task = asyncio.ensure_future(coroutine)
    done, _ = await asyncio.wait({task}, timeout=timeout_s)
    if not done:
        task.cancel()
        await asyncio.wait({task}, timeout=_SETTLE_S)
        if task.done() and not task.cancelled():
            task.exception()  # e.g. "browser closed" from the cancelled start: not the cause
        raise TimeoutError
    return task.result()


async def _cancel_pending() -> None:
    """Cancel every other task of the running loop and wait for them (as ``asyncio.run``
    does when it finishes), retrieving their exceptions."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=_SETTLE_S)
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()


def _processes_using(folder: Path) -> list[psutil.Process]:
    """This process's children whose command line names ``folder``, with their descendants
    (choreographer's wrapper and the Chromium it started with a profile in ``folder``)."""
    found: list[psutil.Process] = []
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            if any(str(folder) in part for part in child.cmdline()):
                found += [child, *child.children(recursive=True)]
    return found


def _end(processes: list[psutil.Process], timeout_s: float) -> None:
    """SIGTERM ``processes``, then SIGKILL those still there after ``timeout_s``."""
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(processes, timeout=timeout_s)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=timeout_s)


def _quiet_choreographer() -> None:
    """Keep kaleido's browser driver (choreographer) from logging tracebacks to stderr: when an
    interrupt closes its pipe mid-message it logs one ("JSONError decoding message") though
    nothing is wrong; what matters reaches us as exceptions from its calls."""
    logging.getLogger("choreographer").setLevel(logging.CRITICAL + 1)


class KaleidoWorker:
    """One Chromium driven by kaleido, owned by one thread with its own asyncio loop."""

    def __init__(self, browser: str, timeout_s: float) -> None:
        self._browser = browser
        self._timeout_s = timeout_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._kaleido: Any = None
        self._profiles: Path | None = None

    @property
    def running(self) -> bool:
        """Whether the browser is up."""
        return self._kaleido is not None

    def _run(self, coroutine: Coroutine[Any, Any, Any], timeout_s: float | None = None) -> Any:
        timeout = self._timeout_s if timeout_s is None else timeout_s
        if self._loop is None:
            coroutine.close()
            raise RuntimeError("kaleido worker is not started")
        future = asyncio.run_coroutine_threadsafe(_bounded(coroutine, timeout), self._loop)
        try:
            return future.result(timeout + 2 * _SETTLE_S)
        except TimeoutError:
            future.cancel()
            raise RuntimeError(f"kaleido did not answer within {timeout:g} s "
                               f"(browser {self._browser})") from None

    def start(self) -> float:
        """Open the browser; returns the seconds it took.

        A start that fails (or times out) closes whatever it had started.
        """
        if self.running:
            return 0.0
        _quiet_choreographer()
        began = time.perf_counter()
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="hopvista-kaleido",
                                  daemon=True)
        thread.start()
        self._loop, self._thread = loop, thread
        self._profiles = profiles = Path(tempfile.mkdtemp(prefix="hopvista-kaleido-"))
        opening: list[Any] = []

        async def open_browser() -> Any:
            import kaleido

            browser = kaleido.Kaleido(n=1, timeout=self._timeout_s, mathjax=False,
                                      path=self._browser, tmp_dir=str(profiles))
            opening.append(browser)
            await browser.open()
            return browser

        try:
            self._kaleido = self._run(open_browser())
        except BaseException:
            try:
                if opening:  # the browser process and its temporary folders may exist
                    with contextlib.suppress(Exception):
                        self._run(opening[0].close(), CLOSE_TIMEOUT_S)
            finally:
                self._stop_loop()
                self._remove_profiles()
            raise
        return time.perf_counter() - began

    def png(self, figure: dict[str, Any], width: int, height: int) -> bytes:
        """The figure as PNG bytes of ``width`` x ``height`` pixels."""
        return self.export(figure, width, height, "png")

    def export(self, figure: dict[str, Any], width: int, height: int, fmt: str) -> bytes:
        """The figure as ``fmt`` (``png`` or ``svg``) bytes of ``width`` x ``height`` pixels."""
        if self._kaleido is None:
            raise RuntimeError("kaleido worker is not started")
        options = {"format": fmt, "width": width, "height": height, "scale": 1}
        result = self._run(self._kaleido.calc_fig(figure, opts=options))
        return bytes(result)

    def stop(self) -> None:
        """Close the browser (deleting its temporary folders) and the loop; safe to call
        twice."""
        browser, self._kaleido = self._kaleido, None
        try:
            if browser is not None and self._loop is not None:
                self._run(browser.close(), CLOSE_TIMEOUT_S)
        finally:
            self._stop_loop()
            self._remove_profiles()

    def _remove_profiles(self) -> None:
        """Remove the profile folder, once no browser uses it."""
        folder, self._profiles = self._profiles, None
        if folder is not None:
            _end(_processes_using(folder), _SETTLE_S)
            shutil.rmtree(folder, ignore_errors=True)

    def _stop_loop(self) -> None:
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is not None and thread is not None and thread.is_alive():
            with contextlib.suppress(Exception):  # a loop that does not answer is dropped
                asyncio.run_coroutine_threadsafe(_cancel_pending(), loop).result(
                    2 * _SETTLE_S)
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(self._timeout_s)
        if loop is not None and not loop.is_running():
            loop.close()
