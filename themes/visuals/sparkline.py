"""``sparkline``: a line of a series too small for axes; the series is not written anywhere
else, so whether it rose or where it peaked is read off the line."""

from __future__ import annotations

from typing import Any

from PIL import Image

from hopvista.rng import Streams
from hopvista.themes.visuals import (
    VISUAL_KINDS,
    Field,
    VisualFact,
    VisualKind,
    require_distinct,
    sample_colors,
)
from hopvista.themes.visuals.attributes import refuse
from hopvista.themes.visuals.canvas import Canvas
from hopvista.themes.visuals.palette import a_color
from hopvista.themes.visuals.series import clear_extreme, random_walk, sample_series, trend

LINE_WIDTH = 0.05
MIN_LINE_PX = 3.0
"""The line is never thinner than this many pixels, so its colour shows at small sizes."""
MARKER_RADIUS = 0.06


class Sparkline(VisualKind):
    """A sparkline: ``values`` as a ``color`` line, its last point marked in ``marker``."""

    name = "sparkline"
    summary = "a line of a series with no axes, its last point marked"
    family = "chart"
    fields = (
        Field("values", "numbers", low=3, high=40),
        Field("color", "color"),
        Field("marker", "color"),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """A sparkline drawn from ``streams``: a walk with a clear trend and peak if one is
        found within a bounded number of tries."""
        given = self.given(constraints)
        values = given.get("values") or _sample_values(streams, slot)
        colors = sample_colors(streams, slot, ("color", "marker"), given,
                               among={"color": ("black", "blue", "green", "red", "purple",
                                                "brown", "orange")})
        return self.check({"values": values, **colors})

    def _consistent(self, attributes: dict[str, Any]) -> None:
        require_distinct(self.name, attributes, ("color", "marker"))
        if max(attributes["values"]) == min(attributes["values"]):
            raise refuse(self.name, "values", "every value is the same: nothing to draw")

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        points = _points(attributes["values"])
        canvas.line(points, attributes["color"], max(LINE_WIDTH, MIN_LINE_PX / size_px))
        x, y = points[-1]
        r = MARKER_RADIUS
        canvas.ellipse((x - r, y - r, x + r, y + r), attributes["marker"])
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        return [attributes["color"], attributes["marker"]]

    def _describe(self, attributes: dict[str, Any]) -> str:
        values = ", ".join(f"{v:g}" for v in attributes["values"])
        return (f"{a_color(attributes['color'])} sparkline of the values {values}, its last point "
                f"marked in {attributes['marker']}")

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        values = attributes["values"]
        facts = [VisualFact("color", "colour", attributes["color"])]
        direction = trend(values)
        if direction is not None:
            facts.append(VisualFact("trend", "direction", direction))
        peak = _peak(values)
        if peak is not None:
            facts.append(VisualFact("peak", "position", peak))
        return facts


def _sample_values(streams: Streams, slot: str) -> list[float]:
    return sample_series(streams, slot, (8, 14), random_walk,
                         lambda values: bool(trend(values) and _peak(values)))


def _peak(values: list[float]) -> int | None:
    return clear_extreme(values, True, max(values) - min(values))


def _points(values: list[float]) -> list[tuple[float, float]]:
    """The line's unit points: x evenly from left to right, the largest value highest."""
    low, high = min(values), max(values)
    span = high - low or 1.0
    step = 0.84 / (len(values) - 1)
    return [(0.08 + i * step, 0.8 - 0.6 * (v - low) / span) for i, v in enumerate(values)]


VISUAL_KINDS.register("sparkline", Sparkline())
