"""``badge``: a club's or a product's logo: a shape in one colour, initials (and optionally an
emblem above them) in a second."""

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
)
from hopvista.themes.visuals.attributes import refuse
from hopvista.themes.visuals.canvas import Canvas, regular_points
from hopvista.themes.visuals.icons import EMBLEMS
from hopvista.themes.visuals.palette import COLORS, a_color, legible, sample_color

SHAPES = {"circle": "circular", "square": "square", "shield": "shield-shaped",
          "hexagon": "hexagonal", "diamond": "diamond-shaped"}
"""Each badge shape and the adjective its description uses."""

_LETTERS = "ABCDEFGHJKLMNPRSTUVWXZ"


class Badge(VisualKind):
    """A badge: ``shape`` filled with ``color``; ``initials`` (1-3 capitals) and an optional
    ``emblem`` in ``accent``."""

    name = "badge"
    summary = "a logo: a shape in one colour, initials and an optional emblem in another"
    family = "entity"
    fields = (
        Field("shape", "choice", choices=tuple(SHAPES)),
        Field("color", "color"),
        Field("accent", "color"),
        Field("initials", "text", low=1, high=3),
        Field("emblem", "choice", choices=("none", *EMBLEMS)),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """A badge drawn from ``streams`` (stream names ``slot.<attribute>``)."""
        given = self.given(constraints)
        color = given.get("color") or sample_color(streams, f"{slot}.color")
        accent = given.get("accent") or sample_color(
            streams, f"{slot}.accent", [color], [c for c in COLORS if legible(c, color)])
        count = streams.integer(f"{slot}.initials.count", 2, 3)
        initials = "".join(_LETTERS[streams.integer(f"{slot}.initials.{i}", 0,
                                                    len(_LETTERS) - 1)]
                           for i in range(count))
        emblem = "none" if streams.uniform(f"{slot}.emblem.shown") < 0.5 else \
            streams.choose(EMBLEMS, f"{slot}.emblem")
        return self.check({
            "shape": given.get("shape") or streams.choose(SHAPES, f"{slot}.shape"),
            "color": color,
            "accent": accent,
            "initials": given.get("initials", initials),
            "emblem": given.get("emblem", emblem),
        })

    def _consistent(self, attributes: dict[str, Any]) -> None:
        require_distinct(self.name, attributes, ("color", "accent"))
        if not legible(attributes["accent"], attributes["color"]):
            raise refuse(self.name, "accent", f"{attributes['accent']} initials do not read "
                                              f"clearly on {attributes['color']}")

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        _shape(canvas, attributes["shape"], attributes["color"])
        accent = attributes["accent"]
        if attributes["emblem"] == "none":
            canvas.text((0.5, 0.5), attributes["initials"], 0.24, accent)
        else:
            canvas.emblem(attributes["emblem"], (0.5, 0.36), 0.16, accent)
            canvas.text((0.5, 0.67), attributes["initials"], 0.17, accent)
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        return [attributes["color"], attributes["accent"]]

    def _describe(self, attributes: dict[str, Any]) -> str:
        text = (f"{a_color(attributes['color'])} {SHAPES[attributes['shape']]} badge with the "
                f"{attributes['accent']} initials {attributes['initials']}")
        if attributes["emblem"] != "none":
            text += f" under {a_color(attributes['accent'])} {attributes['emblem']}"
        return text

    def _icons(self, attributes: dict[str, Any]) -> list[str]:
        return [] if attributes["emblem"] == "none" else [attributes["emblem"]]

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        return [VisualFact("color", "colour", attributes["color"]),
                VisualFact("shape", "shape", attributes["shape"]),
                VisualFact("initials", "text", attributes["initials"]),
                VisualFact("accent", "colour", attributes["accent"]),
                VisualFact("emblem", "shape", attributes["emblem"])]


def _shape(canvas: Canvas, shape: str, color: str) -> None:
    """The badge's body, filling most of the square."""
    if shape == "circle":
        canvas.ellipse((0.04, 0.04, 0.96, 0.96), color)
    elif shape == "square":
        canvas.rectangle((0.08, 0.08, 0.92, 0.92), color)
    elif shape == "hexagon":
        canvas.polygon(regular_points((0.5, 0.5), 0.48, 6, -90.0), color)
    elif shape == "diamond":
        canvas.polygon(regular_points((0.5, 0.5), 0.48, 4, -90.0), color)
    else:
        canvas.polygon([(0.1, 0.05), (0.9, 0.05), (0.9, 0.5), (0.78, 0.74), (0.5, 0.96),
                        (0.22, 0.74), (0.1, 0.5)], color)


VISUAL_KINDS.register("badge", Badge())
