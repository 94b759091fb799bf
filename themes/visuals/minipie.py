"""``minipie``: a tiny pie chart, each slice its own colour; the shares are not written
anywhere else, so the largest slice is read off the pie."""

from __future__ import annotations

from typing import Any

from PIL import Image

from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS, Field, VisualFact, VisualKind, sample_colors
from hopvista.themes.visuals.attributes import refuse
from hopvista.themes.visuals.canvas import Canvas
from hopvista.themes.visuals.series import clear_extreme, sample_series, whole_numbers


class MiniPie(VisualKind):
    """A minipie: slices of ``values`` (clockwise from 12 o'clock) in ``colors``."""

    name = "minipie"
    summary = "a tiny pie chart, one colour per slice, no labels"
    family = "chart"
    fields = (
        Field("values", "numbers", low=2, high=5),
        Field("colors", "colors", low=2, high=5),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """A minipie drawn from ``streams``: whole values 5..60 with a clear largest slice
        if found within a bounded number of tries."""
        given = self.given(constraints)
        values = given.get("values") or _sample_values(streams, slot)
        colors = given.get("colors") or list(sample_colors(
            streams, slot, tuple(f"slice{i}" for i in range(len(values))), {}).values())
        return self.check({"values": values, "colors": colors})

    def _consistent(self, attributes: dict[str, Any]) -> None:
        values, colors = attributes["values"], attributes["colors"]
        if len(colors) != len(values):
            raise refuse(self.name, "colors", f"{len(colors)} colours for {len(values)} slices")
        if min(values) <= 0:
            raise refuse(self.name, "values", "every slice needs a value above 0")
        if sorted(values)[-1] == sorted(values)[-2]:
            raise refuse(self.name, "values", "two slices share the largest value")

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        values = attributes["values"]
        total = sum(values)
        start = -90.0
        for value, color in zip(values, attributes["colors"], strict=True):
            end = start + 360.0 * value / total
            canvas.pieslice((0.04, 0.04, 0.96, 0.96), start, end, color)
            start = end
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        pairs = zip(attributes["values"], attributes["colors"], strict=True)
        return [color for _, color in sorted(pairs, key=lambda p: -p[0])]

    def _describe(self, attributes: dict[str, Any]) -> str:
        total = sum(attributes["values"])
        slices = ", ".join(f"{color} {100 * v / total:.0f}%" for v, color in
                           zip(attributes["values"], attributes["colors"], strict=True))
        return f"a pie chart of {len(attributes['values'])} slices: {slices}"

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        values, colors = attributes["values"], attributes["colors"]
        facts = [VisualFact("slices", "count", len(values))]
        largest = _largest(values)
        if largest is not None:
            facts.append(VisualFact("largest_color", "colour", colors[largest - 1]))
        smallest = clear_extreme(values, False, max(values))
        if smallest is not None:
            facts.append(VisualFact("smallest_color", "colour", colors[smallest - 1]))
        return facts


def _sample_values(streams: Streams, slot: str) -> list[float]:
    return sample_series(streams, slot, (2, 4), whole_numbers(5, 60),
                         lambda values: _largest(values) is not None)


def _largest(values: list[float]) -> int | None:
    return clear_extreme(values, True, max(values))


VISUAL_KINDS.register("minipie", MiniPie())
