"""``minibar``: a tiny bar chart of a series with no axis labels; the values are not written
anywhere else, so the tallest or shortest bar is read off the bars."""

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
from hopvista.themes.visuals.series import clear_extreme, sample_series, whole_numbers

BASELINE, TOP = 0.88, 0.1
AXIS_HEIGHT = 0.03


class MiniBar(VisualKind):
    """A minibar: one ``color`` bar per value of ``values`` (left to right) on an ``axis``
    line."""

    name = "minibar"
    summary = "a tiny bar chart of a series, one colour, no labels"
    family = "chart"
    fields = (
        Field("values", "numbers", low=2, high=8),
        Field("color", "color"),
        Field("axis", "color"),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """A minibar drawn from ``streams``: whole values 5..100 with a clear tallest and
        shortest bar if found within a bounded number of tries."""
        given = self.given(constraints)
        values = given.get("values") or _sample_values(streams, slot)
        colors = sample_colors(streams, slot, ("axis", "color"), given,
                               among={"axis": ("black", "grey")})
        return self.check({"values": values, **colors})

    def _consistent(self, attributes: dict[str, Any]) -> None:
        require_distinct(self.name, attributes, ("color", "axis"))
        values = attributes["values"]
        if min(values) < 0 or max(values) <= 0:
            raise refuse(self.name, "values", "bars need values of 0 or more, one above 0")

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        values = attributes["values"]
        slot = 0.88 / len(values)
        width = slot * 0.7
        for i, value in enumerate(values):
            left = 0.06 + i * slot + (slot - width) / 2
            top = BASELINE - (BASELINE - TOP) * value / max(values)
            if value > 0:
                canvas.rectangle((left, top, left + width, BASELINE), attributes["color"])
        canvas.rectangle((0.04, BASELINE, 0.96, BASELINE + AXIS_HEIGHT), attributes["axis"])
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        return [attributes["color"], attributes["axis"]]

    def _describe(self, attributes: dict[str, Any]) -> str:
        values = ", ".join(f"{v:g}" for v in attributes["values"])
        count = len(attributes["values"])
        return f"{a_color(attributes['color'])} bar chart of {count} bars: {values}"

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        values = attributes["values"]
        facts = [VisualFact("color", "colour", attributes["color"]),
                 VisualFact("bars", "count", len(values))]
        for name, position in (("tallest", _tallest(values)), ("shortest", _shortest(values))):
            if position is not None:
                facts.append(VisualFact(name, "position", position))
        return facts


def _sample_values(streams: Streams, slot: str) -> list[float]:
    return sample_series(streams, slot, (3, 6), whole_numbers(5, 100),
                         lambda values: bool(_tallest(values) and _shortest(values)))


def _tallest(values: list[float]) -> int | None:
    return clear_extreme(values, True, max(values))


def _shortest(values: list[float]) -> int | None:
    return clear_extreme(values, False, max(values))


VISUAL_KINDS.register("minibar", MiniBar())
