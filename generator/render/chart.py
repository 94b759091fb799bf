"""Chart images: ``inputs.chart`` + entity names + a sampled style -> PNG bytes.

``ChartRenderer`` draws a chart with the registered chart library the style names
(``hopvista.themes.charts.CHART_LIBRARIES``: matplotlib, seaborn and plotly built in; the
style comes from ``hopvista.themes.charts.sample_chart_style``). The same chart,
names and style give the same bytes in any process on the same machine and packages, whatever
was drawn before. Fonts are the style's FCMR substitute, checked before drawing: a missing
family raises ``UserError``, never a silent fallback. ``font_file`` in the metadata is the full
path of the file drawn: the one ``hopvista.themes.fonts`` resolves (matplotlib, seaborn) or the
one fontconfig gives Chromium (plotly).

Use it as a context manager, once per process (after any fork)::

    with ChartRenderer() as charts:
        png, meta = charts.render(item["inputs"]["chart"], names, style["chart"])
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.metadata
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any

from hopvista.render.browser import chromium_executable
from hopvista.render.chart_data import ChartData, Emphasis
from hopvista.render.chart_plotly import KaleidoWorker
from hopvista.render.png import png_size
from hopvista.themes.charts import CHART_LIBRARIES
from hopvista.themes.fonts import FALLBACK_FAMILY, fontconfig_env, missing_glyphs, resolve_font

KALEIDO_TIMEOUT_S = 60.0
"""Longest wait for the browser to start or to draw one image."""


@functools.cache
def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def exports_in_browser(library: str) -> bool:
    """Whether the chart library ``library`` exports through kaleido (its ``draw`` calls
    ``renderer.kaleido_png``; it names ``kaleido`` among its packages): with an ``exporter``,
    its charts must be drawn on the thread that drives the exporter's browser."""
    return "kaleido" in CHART_LIBRARIES.get(library).packages
def _use_system_fonts() -> None:
    """Have the plotly browser find fonts through fontconfig's system configuration only.

    choreographer (under kaleido) starts Chromium with a copy of ``os.environ`` and takes no
    environment of its own, so the variables go into this process's environment.
    """
    for name, value in fontconfig_env().items():
        if os.environ.get(name) != value:
            os.environ[name] = value


class ChartRenderer:
    """Draws chart images; keeps the libraries imported and one plotly browser warm.

    ``warm_plotly=False`` defers starting the browser to the first plotly chart (a process
    that never draws plotly never starts Chromium). ``exporter(figure, width, height, fmt)``
    exports plotly figures instead of kaleido's browser (a
    :class:`~hopvista.render.plotly_page.PlotlyPage` of a browser the caller already runs; the
    same bytes): then no browser is started here, and plotly charts must be drawn on the
    exporter's thread. Entering again after leaving starts a
    fresh browser. One renderer per process; ``render`` may be called from one thread at a
    time (matplotlib's rcParams are process-global; drawing takes a lock).
    """

    def __init__(self, chromium: str | None = None, *, warm_plotly: bool = True,
                 timeout_s: float = KALEIDO_TIMEOUT_S,
                 exporter: Callable[[Any, int, int, str], bytes] | None = None) -> None:
        self._chromium = chromium
        self._exporter = exporter
        self._warm_plotly = warm_plotly and exporter is None
        self._timeout_s = timeout_s
        self._open = False
        self._lock = threading.Lock()
        self._kaleido: Any = None
        self._warm: Future[None] | None = None
        self._warming: ThreadPoolExecutor | None = None
        self.kaleido_start_s: float | None = None
        """Seconds the last browser start took (``None`` before one started)."""

    def __enter__(self) -> ChartRenderer:
        if self._open:
            raise RuntimeError("ChartRenderer is already open")
        # Images are drawn on Agg canvases directly: pyplot (and its backend) is never used.
        # seaborn (1.5 s with scipy and pandas) is imported by the first seaborn chart.
        import matplotlib.backends.backend_agg  # noqa: F401

        self._open = True
        if self._warm_plotly:
            # The browser starts in the background (~2 s); matplotlib and seaborn charts
            # need not wait for it, the first plotly chart does.
            self._warming = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kaleido-start")
            self._warm = self._warming.submit(self._start_plotly)
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _await_warm_start(self) -> None:
        """Wait for a background browser start. If it failed (a start that hung on a loaded
        machine), forget it: the caller starts the browser again, once, in the foreground."""
        warm, self._warm = self._warm, None
        if warm is not None:
            try:
                warm.result()
            except Exception as exc:  # the foreground start below reports for real
                print(f"gen: plotly browser start failed ({exc}); starting it again",
                      file=sys.stderr)
                self._kaleido = None
            finally:
                if self._warming is not None:
                    self._warming.shutdown(wait=True)
                self._warming = None

    def close(self) -> None:
        """Stop the plotly browser; safe to call twice. The renderer can be entered again."""
        with contextlib.suppress(Exception):
            self._await_warm_start()
        self._open = False
        worker, self._kaleido = self._kaleido, None
        if worker is not None:
            worker.stop()

    def _start_plotly(self) -> None:
        _use_system_fonts()
        browser = self._chromium or chromium_executable()
        worker = KaleidoWorker(browser, self._timeout_s)
        self.kaleido_start_s = worker.start()
        self._kaleido = worker

    def render(self, chart: dict[str, Any], names: dict[str, str],
               style: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        """PNG bytes of ``chart`` (``item["inputs"]["chart"]``) and how they were drawn.

        ``names`` maps entity ids to display names (legend, pie labels). ``style`` is a
        ``sample_chart_style`` dict; an optional ``style["emphasis"]`` (``{"entity", "year",
        "how", "colour", "width"}``, :class:`~hopvista.render.chart_data.Emphasis`) draws
        that point's mark emphasised, nothing else moved, and the metadata's ``emphasis``
        records it with the mark's pixel box ``[x, y, w, h]``. Raises ``ValueError`` for a
        chart the style cannot draw (a pie over several years or with a non-positive slice;
        an emphasis on no point of the chart) and :class:`UserError` for a missing font.
        """
        if not self._open:
            raise RuntimeError("ChartRenderer is not open: use `with ChartRenderer() as r:`")
        library = CHART_LIBRARIES.get(style["library"])
        if style["kind"] not in library.kinds:
            raise ValueError(f"chart library {library.name!r} does not draw "
                             f"{style['kind']!r} charts (it draws {list(library.kinds)})")
        data = ChartData.parse(chart, names, style["kind"])
        if style.get("emphasis") is not None:
            data = dataclasses.replace(
                data, emphasis=Emphasis.parse(style["emphasis"], chart, data.kind))
        if len(data.names) > len(style["palette"]):
            raise ValueError(f"style.palette has {len(style['palette'])} colours for "
                             f"{len(data.names)} series")
        family = style["font"]["family"]
        resolve_font(family)  # a missing family is a UserError before anything is drawn
        fallback = missing_glyphs(family, data.all_text())
        with self._lock:
            drawn = library.draw(self, data, style, fallback)
        png, font_file, version = drawn[:3]
        box = drawn[3] if len(drawn) > 3 else None  # a plug-in's plain 3-tuple: no emphasis
        if data.emphasis is not None and box is None:
            raise ValueError(f"chart library {library.name!r} does not draw style.emphasis")
        size = png_size(png)
        if size != (int(style["width"]), int(style["height"])):
            raise RuntimeError(f"{library.name} drew a {size[0]}x{size[1]} image, expected "
                               f"{style['width']}x{style['height']}")
        versions = {name: _version(name) for name in library.packages}
        meta = {
            "library": library.name,
            "library_version": versions[library.packages[0]],
            "versions": versions,
            "kind": data.kind,
            "font": family,
            "font_requested": style["font"]["requested"],
            "font_file": font_file,
            "font_version": version,
            "fallback_chars": fallback,
            "fallback_family": FALLBACK_FAMILY if fallback else None,
            "width": size[0],
            "height": size[1],
        }
        if data.emphasis is not None and box is not None:
            meta["emphasis"] = data.emphasis.record(box)
        return png, meta

    def kaleido_png(self, figure: Any, width: int, height: int) -> bytes:
        """A plotly figure as PNG bytes, exported by kaleido in this renderer's browser.

        Waits for a background start, starts the browser if needed, and after a crash or a
        hang starts it once more and tries again. For a library's ``draw`` (lock held).
        """
        return self._kaleido_export(figure, width, height, "png")

    def kaleido_svg(self, figure: Any, width: int, height: int) -> str:
        """A plotly figure as SVG text (the same layout as :meth:`kaleido_png`, in the same
        pixels): where plotly placed each mark, for a library's ``draw`` (lock held)."""
        return self._kaleido_export(figure, width, height, "svg").decode("utf-8")

    def _kaleido_export(self, figure: Any, width: int, height: int, fmt: str) -> bytes:
        if self._exporter is not None:  # a page of a browser the caller runs (same bytes)
            return self._exporter(figure, width, height, fmt)
        self._await_warm_start()
        if self._kaleido is None:
            self._start_plotly()
        try:
            out: bytes = self._kaleido.export(figure, width, height, fmt)
        except Exception:  # a crashed or hung browser: one fresh start, one more try
            with contextlib.suppress(Exception):
                self._kaleido.stop()
            self._kaleido = None
            self._start_plotly()
            out = self._kaleido.export(figure, width, height, fmt)
        return out
