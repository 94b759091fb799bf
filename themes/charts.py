"""Chart styles: sampled per item (FCMR Appendix B.7), applied by ``hopvista.render.chart``.

``sample_chart_style(streams, kinds)`` draws every parameter of a chart image from the item's
named streams (:class:`hopvista.rng.Streams`) and returns plain JSON, so an item records
exactly how its chart was drawn and a counterfactual is the same dict with one key changed.
Rendering the dict is deterministic.

Each parameter has its own stream (``chart.kind``, ``chart.library``, ``chart.font``,
``chart.font_size.title``, ...), and choices among named options (kind, library, look, font,
legend position) are rendezvous choices by name: allowing or forbidding ``"pie"`` changes
only the kind, and registering another chart library moves only the items that now pick it.

Chart libraries are a registry, :data:`CHART_LIBRARIES`: a :class:`ChartLibrary` names the
kinds it draws, its base looks and a ``draw`` function. The built-in ones (matplotlib,
seaborn, plotly) live in :mod:`hopvista.render.libraries`. Chart kinds are the registry
:data:`~hopvista.themes.chart_kinds.CHART_KINDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from hopvista.registry import Registry
from hopvista.rng import Streams
from hopvista.themes.chart_kinds import CHART_KINDS, ChartKind
from hopvista.themes.fonts import FCMR_FONTS

if TYPE_CHECKING:
    from hopvista.render.chart import ChartRenderer
    from hopvista.render.chart_data import ChartData

__all__ = ["CHART_KINDS", "CHART_LIBRARIES", "ChartKind", "ChartLibrary", "Drawn",
           "sample_chart_style"]


class Drawn(NamedTuple):
    """What a library's ``draw`` returns: the PNG and the font file its text was drawn from;
    ``emphasis_box`` the pixel box ``(x, y, w, h)`` of the emphasised mark and its stroke when
    the chart has one (``ChartData.emphasis``), ``None`` otherwise (a library that cannot draw
    emphasis returns ``None`` and the renderer refuses the chart)."""

    png: bytes
    font_file: str
    font_version: str
    emphasis_box: tuple[int, int, int, int] | None = None


DrawChart = Callable[["ChartRenderer", "ChartData", dict[str, Any], str], Drawn]
"""``draw(renderer, data, style, fallback_chars) -> Drawn``.

``renderer`` is the calling :class:`~hopvista.render.chart.ChartRenderer` (its
``kaleido_png`` draws a plotly figure in the renderer's warm browser, or in a page of the
worker's own browser: a library that calls it names ``kaleido`` among its ``packages``, so
that its charts are drawn on that browser's thread); ``data`` the parsed
chart; ``style`` the sampled style (``style["font"]["family"]`` is the font to draw with);
``fallback_chars`` the characters that font lacks, to draw with
:data:`hopvista.themes.fonts.FALLBACK_FAMILY`. When ``data.emphasis`` is set, one mark is
drawn emphasised and nothing else moves (same axes, layout and every other pixel outside the
mark's box), and ``Drawn.emphasis_box`` gives that box. The PNG must be exactly ``style["width"]`` x
``style["height"]`` pixels, and the same inputs must give the same bytes in any process.
Called with the renderer's lock held: one chart at a time per process.
"""


@dataclass(frozen=True)
class ChartLibrary:
    """One chart library: the kinds it draws, its base looks and how it draws.

    ``looks`` maps the sampled grid setting (``True``: gridlines) to the names of the base
    looks the library offers for it (seaborn styles, plotly templates, ...); one is sampled
    per item into ``style["theme"]``. ``packages`` are the distributions whose versions make
    the bytes, the library's own first (recorded with every chart). ``weight`` is the
    library's relative share (1.0 = as often as each built-in library).
    """

    name: str
    description: str
    kinds: tuple[str, ...]
    looks: Mapping[bool, tuple[str, ...]]
    draw: DrawChart
    packages: tuple[str, ...]
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not self.kinds or not self.packages:
            raise ValueError(f"chart library {self.name!r}: kinds and packages must be given")
        if any(not self.looks.get(grid) for grid in (True, False)):
            raise ValueError(f"chart library {self.name!r}: looks needs names for grid True "
                             "and False")


CHART_LIBRARIES: Registry[ChartLibrary] = Registry(
    "chart library", "chart_libraries", builtins=("hopvista.render.libraries",))
"""Every chart library by name (matplotlib, seaborn and plotly are built in)."""

FCMR_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")
"""FCMR's seven series colours (matplotlib's tab10, first seven)."""

FONT_SIZE_RANGES: dict[str, tuple[float, float]] = {
    "title": (13.0, 18.0),
    "axis_label": (10.0, 14.0),
    "tick": (8.5, 12.0),
    "legend": (8.5, 12.0),
}
"""Font size bounds in points (1 pt = dpi/72 px), drawn per item in steps of 0.5 pt."""

LINE_WIDTH_RANGE = (1.2, 3.2)
"""Line width in points (line charts; pie wedge edges use a fixed hairline)."""

BAR_WIDTH_RANGE = (0.55, 0.85)
"""Width of one year's group of bars, as a fraction of the distance between years."""

MARKER_SIZE_RANGE = (5.0, 9.0)
"""Marker diameter in points (line and scatter charts)."""

FIGURE_WIDTH_RANGE = (640, 900)
FIGURE_HEIGHT_RANGE = (420, 560)
"""Final image size in pixels, both ends included."""

DPI = 100

LEGEND_POSITIONS = ("right", "below")
"""Legends always sit outside the plot area, so they can never cover data."""

GRID_PROBABILITY = 0.5

def _between(u: float, bounds: tuple[float, float], step: float) -> float:
    low, high = bounds
    value = low + u * (high - low)
    return float(round(round(value / step) * step, 4))


def _pixels(u: float, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return low + min(int(u * (high - low + 1)), high - low)


def drawable_kinds(kinds: Sequence[str]) -> list[str]:
    """The kinds among ``kinds`` that some registered library draws (sorted, no duplicates).

    Raises ``ValueError`` for an empty list or a name that is not a registered chart kind.
    """
    unknown = sorted(k for k in set(kinds) if k not in CHART_KINDS)
    if unknown or not kinds:
        raise ValueError(f"kinds must be a non-empty subset of the chart kinds "
                         f"{CHART_KINDS.names()}, got {list(kinds)}")
    drawn = {k for _, library in CHART_LIBRARIES.items() for k in library.kinds}
    return sorted(set(kinds) & drawn)


def sample_chart_style(streams: Streams, kinds: Sequence[str]) -> dict[str, Any]:
    """A chart style from the item's named streams: kind (one of ``kinds``), library, font,
    sizes, palette, legend and look.

    ``kinds`` lists the chart kinds the item allows (registered kind names, in any order; the
    choice depends on the set, not on its order). The kind is chosen first, then a library
    among those that draw it. The result is JSON-serialisable.
    """
    allowed = drawable_kinds(kinds)
    if not allowed:
        raise ValueError(f"no registered chart library draws any of {sorted(set(kinds))}")
    kind = streams.choose(allowed, "chart.kind",
                          {k: CHART_KINDS.get(k).weight for k in allowed})
    libraries = {n: lib for n, lib in CHART_LIBRARIES.items() if kind in lib.kinds}
    name = streams.choose(libraries, "chart.library",
                          {n: lib.weight for n, lib in libraries.items()})
    grid = streams.uniform("chart.grid") < GRID_PROBABILITY
    font = FCMR_FONTS[streams.choose(FCMR_FONTS, "chart.font")]
    order = streams.stream("chart.palette").permutation(len(FCMR_PALETTE))
    return {
        "library": name,
        "kind": kind,
        "font": {"requested": font.requested, "family": font.family},
        "font_sizes": {
            size: _between(streams.uniform(f"chart.font_size.{size}"), bounds, 0.5)
            for size, bounds in FONT_SIZE_RANGES.items()
        },
        "palette": [FCMR_PALETTE[int(i)] for i in order],
        "line_width": _between(streams.uniform("chart.line_width"), LINE_WIDTH_RANGE, 0.1),
        "bar_width": _between(streams.uniform("chart.bar_width"), BAR_WIDTH_RANGE, 0.05),
        "marker_size": _between(streams.uniform("chart.marker_size"), MARKER_SIZE_RANGE, 0.5),
        "width": _pixels(streams.uniform("chart.width"), FIGURE_WIDTH_RANGE),
        "height": _pixels(streams.uniform("chart.height"), FIGURE_HEIGHT_RANGE),
        "dpi": DPI,
        "legend": streams.choose(LEGEND_POSITIONS, "chart.legend"),
        "grid": grid,
        "theme": streams.choose(libraries[name].looks[grid], "chart.look"),
    }
