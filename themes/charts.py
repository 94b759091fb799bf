"""Chart styles: sampled per item (FCMR Appendix B.7), applied by ``hopvista.render.chart``.

``sample_chart_style(rng, kinds)`` draws every parameter of a chart image from the item's own
random stream and returns plain JSON, so an item records exactly how its chart was drawn and a
counterfactual is the same dict with one key changed. Rendering the dict is deterministic.

All draws are uniform floats taken in one fixed block, so each parameter depends on its own
draw only: allowing or forbidding ``"pie"`` changes the kind, never the font or the sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hopvista.themes.fonts import FCMR_FONTS

LIBRARIES = ("matplotlib", "seaborn", "plotly")
"""Drawing libraries, drawn in equal shares."""

CHART_KINDS = ("line", "bar", "scatter", "pie")
"""Chart kinds a caller may allow; a pie shows one year only."""

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

THEMES: dict[str, dict[bool, tuple[str, ...]]] = {
    # matplotlib: "box" keeps all four spines, "open" drops the top and right ones.
    "matplotlib": {True: ("box", "open"), False: ("box", "open")},
    "seaborn": {True: ("whitegrid", "darkgrid"), False: ("white", "ticks")},
    "plotly": {True: ("plotly_white", "plotly", "simple_white"),
               False: ("plotly_white", "plotly", "simple_white")},
}
"""Per library and grid setting: the base look (seaborn style, plotly template name)."""

MIN_PALETTE = 3
"""A style carries at least this many distinct colours (in practice all seven, shuffled)."""

_DRAWS = 16 + len(FCMR_PALETTE)


def _pick(u: float, options: Sequence[Any]) -> Any:
    return options[min(int(u * len(options)), len(options) - 1)]


def _between(u: float, bounds: tuple[float, float], step: float) -> float:
    low, high = bounds
    value = low + u * (high - low)
    return float(round(round(value / step) * step, 4))


def _pixels(u: float, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return low + min(int(u * (high - low + 1)), high - low)


def sample_chart_style(rng: np.random.Generator, kinds: Sequence[str]) -> dict[str, Any]:
    """A chart style drawn from ``rng``: library, kind (one of ``kinds``), font and sizes.

    ``kinds`` lists the chart kinds the item allows (a subset of :data:`CHART_KINDS`, in any
    order; the choice depends on the set, not on its order). The result is JSON-serialisable.
    """
    allowed = [k for k in CHART_KINDS if k in set(kinds)]
    unknown = sorted(set(kinds) - set(CHART_KINDS))
    if unknown or not allowed:
        raise ValueError(f"kinds must be a non-empty subset of {CHART_KINDS}, got {list(kinds)}")
    u = [float(x) for x in rng.random(_DRAWS)]  # u[15] is reserved for a future parameter
    library = _pick(u[0], LIBRARIES)
    grid = bool(u[3] < GRID_PROBABILITY)
    font = _pick(u[2], list(FCMR_FONTS.values()))
    order = np.argsort(np.asarray(u[16:16 + len(FCMR_PALETTE)]), kind="stable")
    return {
        "library": library,
        "kind": _pick(u[1], allowed),
        "font": {"requested": font.requested, "family": font.family},
        "font_sizes": {
            name: _between(u[4 + i], bounds, 0.5)
            for i, (name, bounds) in enumerate(FONT_SIZE_RANGES.items())
        },
        "palette": [FCMR_PALETTE[int(i)] for i in order],
        "line_width": _between(u[8], LINE_WIDTH_RANGE, 0.1),
        "bar_width": _between(u[9], BAR_WIDTH_RANGE, 0.05),
        "marker_size": _between(u[10], MARKER_SIZE_RANGE, 0.5),
        "width": _pixels(u[11], FIGURE_WIDTH_RANGE),
        "height": _pixels(u[12], FIGURE_HEIGHT_RANGE),
        "dpi": DPI,
        "legend": _pick(u[13], LEGEND_POSITIONS),
        "grid": grid,
        "theme": _pick(u[14], THEMES[library][grid]),
    }
