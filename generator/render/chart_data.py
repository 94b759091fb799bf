"""What a chart shows, parsed and checked once, and layout arithmetic shared by the libraries.

``ChartData.parse`` turns ``item["inputs"]["chart"]`` (displayed strings) and the entity names
into numbers and titles. The helpers here decide axis ranges, scatter offsets and legend
shapes so that matplotlib, seaborn and plotly lay a chart out by the same rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hopvista.display import parse_shown, undrawable
from hopvista.errors import UserError
from hopvista.themes.chart_kinds import CHART_KINDS, EMPHASIS_HOWS
from hopvista.themes.fonts import (
    matplotlib_families,
    matplotlib_weight,
    missing_glyphs,
    resolve_font,
)

CATEGORY_AXIS_TITLE = "Year"
"""Title of the year axis when the chart does not carry a ``period_label``."""

VALUE_PADDING = 0.08
"""Space above and below the plotted values, as a fraction of their span."""

MIN_DODGE = 0.12
MAX_DODGE_SPREAD = 0.7
"""Scatter markers of different entities sit at least MIN_DODGE years apart and spread over at
most MAX_DODGE_SPREAD of the distance between two years."""

LINE_X_PADDING = 0.3
"""Space before the first and after the last year on a line chart, in years."""

MARKER_CLEARANCE = 1.35
"""Distance between neighbouring dodged markers, in marker diameters."""

PLOT_WIDTH_SHARE = 0.5
"""A lower bound of the plot area's share of the image width (legend and titles take the
rest); used to turn year units into pixels before layout."""

TITLE_WIDTH_SHARE = 0.92
"""Titles wrap at this share of the image width."""

RIGHT_LEGEND_SHARE = 0.28
"""Legend text to the right of the plot wraps at this share of the image width."""


def _check_drawable(what: str, text: str) -> None:
    """Refuse a text a chart cannot draw, naming it (its source should have refused it)."""
    why = undrawable(text)
    if why is not None:
        shown = text if len(text) <= 60 else f"{text[:40]}...{text[-12:]}"
        raise UserError(f"chart: the {what} {shown!r} {why}, which a chart cannot draw")


def points_to_pixels(points: float, dpi: int) -> float:
    """A length in points at ``dpi`` (plotly sizes are pixels, matplotlib sizes are points)."""
    return points * dpi / 72.0


@dataclass(frozen=True)
class ChartData:
    """One chart's content: titles, years and one series of numbers per entity."""

    kind: str
    title: str
    value_title: str
    category_title: str
    years: tuple[int, ...]
    names: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]
    period_labels: tuple[str, ...] = ()
    """How each period is written ("2023", "300 K"); the years themselves by default."""
    emphasis: Emphasis | None = None
    """One mark drawn emphasised (counterfactual chart markup), or none."""

    def period_texts(self) -> list[str]:
        """The category tick labels."""
        return list(self.period_labels) if self.period_labels else [str(y) for y in self.years]

    @classmethod
    def parse(cls, chart: dict[str, Any], names: dict[str, str], kind: str) -> ChartData:
        """Check and parse ``inputs.chart`` for a chart of ``kind``.

        Raises ``ValueError`` naming the field when the chart cannot be drawn as asked: an
        unknown kind or entity, misaligned values, a pie over several years or with a
        non-positive slice; :class:`~hopvista.errors.UserError` naming a text no chart
        library can draw (:func:`undrawable`).
        """
        if kind not in CHART_KINDS:
            raise ValueError(f"chart kind must be one of {CHART_KINDS.names()}, got {kind!r}")
        if chart.get("kind", kind) != kind:
            raise ValueError(f"chart.kind is {chart['kind']!r} but the style asks for {kind!r}")
        column = chart["column"]
        years = tuple(int(y) for y in chart["years"])
        period_format = str(chart.get("period_format") or "{}")
        shown = tuple(period_format.replace("{}", str(y)) for y in years)
        if not years or list(years) != sorted(set(years)):
            raise ValueError(f"chart.years must be distinct and ascending, got {list(years)}")
        series = chart["series"]
        if not series:
            raise ValueError("chart.series is empty")
        labels: list[str] = []
        values: list[tuple[float, ...]] = []
        for entry in series:
            entity = entry["entity"]
            if entity not in names:
                raise ValueError(f"chart.series entity {entity!r} has no display name")
            if len(entry["values"]) != len(years):
                raise ValueError(f"chart.series[{entity}].values has {len(entry['values'])} "
                                 f"values for {len(years)} years")
            labels.append(names[entity])
            values.append(tuple(float(parse_shown(str(v).replace("\u2212", "-")))
                                for v in entry["values"]))
        if len(set(labels)) != len(labels):
            raise ValueError(f"chart entities share a display name: {labels}")
        label = str(column["label"])
        unit = str(column.get("unit") or "")
        category_title = str(chart.get("period_label") or CATEGORY_AXIS_TITLE)
        for what, texts in (("entity name", labels), ("column label", [label]),
                            ("unit", [unit]), ("period label", [category_title]),
                            ("period", shown)):
            for text in texts:
                _check_drawable(what, text)
        title = label
        if kind == "pie":
            if len(years) != 1:
                raise ValueError(f"a pie chart shows one year; chart.years is {list(years)}")
            if any(v[0] <= 0 for v in values):
                raise ValueError("a pie chart needs positive values; got "
                                 f"{[v[0] for v in values]}")
            title = f"{label} ({unit}), {shown[0]}" if unit else f"{label}, {shown[0]}"
        return cls(kind=kind, title=title, value_title=unit or label,
                   category_title=category_title,
                   years=years, names=tuple(labels), values=tuple(values), period_labels=shown)

    def flat_values(self) -> list[float]:
        """Every plotted value."""
        return [v for series in self.values for v in series]

    def value_range(self) -> tuple[float, float]:
        """The value axis range: every value inside with padding; bars include zero.

        Bars rest on zero, so the zero end of a bar axis gets no padding.
        """
        values = self.flat_values()
        low, high = min(values), max(values)
        if self.kind == "bar":
            low, high = min(low, 0.0), max(high, 0.0)
        span = high - low
        pad = VALUE_PADDING * (span if span > 0 else max(abs(high), 1.0))
        bottom = low if self.kind == "bar" and low == 0.0 else low - pad
        top = high if self.kind == "bar" and high == 0.0 else high + pad
        return bottom, top

    def crosses_zero(self) -> bool:
        """Whether the chart has negative values (a zero line is drawn)."""
        return min(self.flat_values()) < 0

    def all_text(self) -> str:
        """Every string the chart draws (for the glyph coverage check)."""
        years = " ".join(self.period_texts())
        return " ".join([self.title, self.value_title, self.category_title, years,
                         "0123456789,.-", *self.names])


EMPHASIS_RING = 1.7
"""Diameter of an ``outline`` ring, in marker diameters (the stroke is added outside)."""

EMPHASIS_MARKER = 1.8
"""Diameter of an emphasised ``marker``, in marker diameters."""


@dataclass(frozen=True)
class Emphasis:
    """One mark drawn emphasised: the point (``entity``, ``year``) at ``series`` /
    ``period`` of :class:`ChartData`, how, and the stroke's colour and width (points)."""

    entity: str
    year: int
    series: int
    period: int
    how: str
    colour: str
    width: float

    @classmethod
    def parse(cls, spec: Any, chart: dict[str, Any], kind: str) -> Emphasis:
        """Check ``style["emphasis"]`` against ``inputs.chart`` drawn as ``kind``.

        ``spec`` is ``{"entity", "year", "how", "colour", "width"}``; raises ``ValueError``
        naming the field for an entity or year the chart does not show, a ``how`` the kind
        cannot draw (:data:`EMPHASIS_HOWS`), a colour that is not ``#rrggbb`` or a width
        outside (0, 12] points.
        """
        if not isinstance(spec, dict):
            raise ValueError("style.emphasis must be an object")
        unknown = sorted(set(spec) - {"entity", "year", "how", "colour", "width"})
        if unknown:
            raise ValueError(f"style.emphasis: unknown field {unknown[0]!r}")
        entities = [str(s["entity"]) for s in chart["series"]]
        years = [int(y) for y in chart["years"]]
        entity, year = str(spec.get("entity")), spec.get("year")
        if entity not in entities:
            raise ValueError(f"style.emphasis.entity {entity!r} is not on the chart "
                             f"({entities})")
        if not isinstance(year, int) or year not in years:
            raise ValueError(f"style.emphasis.year {year!r} is not on the chart ({years})")
        how = spec.get("how")
        if how not in EMPHASIS_HOWS.get(kind, ()):
            raise ValueError(f"style.emphasis.how {how!r}: a {kind} chart draws "
                             f"{list(EMPHASIS_HOWS.get(kind, ()))}")
        colour = str(spec.get("colour", ""))
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
            raise ValueError(f"style.emphasis.colour {colour!r} is not #rrggbb")
        width = spec.get("width")
        if not isinstance(width, (int, float)) or not 0 < float(width) <= 12:
            raise ValueError(f"style.emphasis.width {width!r} is not in (0, 12] points")
        return cls(entity, year, entities.index(entity), years.index(year), str(how), colour,
                   float(width))

    def record(self, box: Sequence[int]) -> dict[str, Any]:
        """What the image's ``render.emphasis`` says: the point, how, and its pixel box."""
        return {"entity": self.entity, "year": self.year, "how": self.how,
                "colour": self.colour, "width": self.width, "box": [int(v) for v in box]}


def pixel_box(x0: float, y0: float, x1: float, y1: float, pad: float, width: int,
              height: int) -> tuple[int, int, int, int]:
    """``[x, y, w, h]`` in whole pixels of the extent ``x0..x1`` × ``y0..y1`` (image pixels,
    y down) grown by ``pad`` on every side and clipped to the image."""
    left = max(0, math.floor(min(x0, x1) - pad))
    top = max(0, math.floor(min(y0, y1) - pad))
    right = min(width, math.ceil(max(x0, x1) + pad))
    bottom = min(height, math.ceil(max(y0, y1) + pad))
    return left, top, max(0, right - left), max(0, bottom - top)


def emphasis_pad(e: Emphasis, style: dict[str, Any]) -> float:
    """Pixels an emphasis stroke (and its anti-aliasing) reaches beyond the extent of the
    mark's outline or path: half the stroke (for ``series``, half the thickened line)."""
    half = float(style["line_width"]) / 2 + e.width if e.how == "series" else e.width / 2
    return points_to_pixels(half, int(style["dpi"])) + 2.0


def scatter_padding(count: int) -> float:
    """Space before the first and after the last year on a scatter chart, in years: half a
    year, and always clear of the outermost dodged markers."""
    spread = 0.0 if count <= 1 else MAX_DODGE_SPREAD / 2
    return max(0.5, spread + 0.2)


def dodge(count: int, years: int, width_px: int, marker_px: float) -> tuple[list[float], float]:
    """Horizontal offsets (in years) of ``count`` scatter series, and the marker diameter.

    Neighbouring series sit at least ``MARKER_CLEARANCE`` marker diameters apart so markers of
    different entities never overlap at the same year; the marker shrinks when many series
    would not fit otherwise.
    """
    if count <= 1:
        return [0.0], marker_px
    px_per_year = PLOT_WIDTH_SHARE * width_px / years
    step = max(MIN_DODGE, MARKER_CLEARANCE * marker_px / px_per_year)
    step = min(step, MAX_DODGE_SPREAD / (count - 1))
    marker = min(marker_px, step * px_per_year / MARKER_CLEARANCE)
    return [(i - (count - 1) / 2) * step for i in range(count)], marker


@lru_cache(maxsize=4096)
def text_width_px(text: str, family: str, size_pt: float, dpi: int) -> float:
    """Width of one line of ``text`` set in ``family`` at ``size_pt``, in pixels.

    Measured with the faces a matplotlib chart draws it in: ``family``'s resolved face, and the
    glyph fallback for characters it lacks.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    families = matplotlib_families(family, fallback=bool(missing_glyphs(family, text)))
    prop = FontProperties(family=families, size=size_pt,
                          weight=matplotlib_weight(resolve_font(family).weight))
    width, _, _ = TextToPath().get_text_width_height_descent(text, prop, ismath=False)
    return float(width) * dpi / 72.0


def wrap_label(name: str, family: str, size_pt: float, dpi: int, max_px: float) -> list[str]:
    """``name`` broken at spaces into lines no wider than ``max_px`` (a long word stays whole)."""
    lines: list[str] = []
    for word in name.split():
        if lines and text_width_px(f"{lines[-1]} {word}", family, size_pt, dpi) <= max_px:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [name]


def legend_labels(names: Sequence[str], position: str, family: str, size_pt: float,
                  dpi: int, width_px: int) -> tuple[list[list[str]], int]:
    """Legend entries as lines, and the number of columns, for a legend ``position``.

    Right of the plot, long names wrap so the legend keeps at most RIGHT_LEGEND_SHARE of the
    width. Below the plot, entries go side by side in as many columns as fit the width.
    """
    if position == "right":
        limit = RIGHT_LEGEND_SHARE * width_px
        return [wrap_label(n, family, size_pt, dpi, limit) for n in names], 1
    em = points_to_pixels(size_pt, dpi)
    handle = 3.5 * em  # marker/patch, its padding and the gap to the next column
    widths = [text_width_px(n, family, size_pt, dpi) + handle for n in names]
    for columns in range(len(names), 0, -1):
        rows = math.ceil(len(names) / columns)
        column_widths = [max(widths[c * rows:(c + 1) * rows] or [0.0]) for c in range(columns)]
        if sum(column_widths) <= 0.92 * width_px:
            return [[n] for n in names], columns
    limit = 0.92 * width_px - handle
    return [wrap_label(n, family, size_pt, dpi, limit) for n in names], 1
