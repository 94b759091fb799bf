"""``flag``: a fictional country's flag: three stripes, a field with a canton, or a field with
a cross; optionally an emblem."""

from __future__ import annotations

from typing import Any

from PIL import Image

from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS, Field, VisualFact, VisualKind, sample_colors
from hopvista.themes.visuals.attributes import refuse
from hopvista.themes.visuals.canvas import Canvas
from hopvista.themes.visuals.icons import EMBLEMS
from hopvista.themes.visuals.palette import COLORS, a_color, distinguishable

LAYOUTS = {"horizontal-triband": 3, "vertical-triband": 3, "canton": 2, "cross": 2}
"""Each layout and how many colours its parts take (``colors``, in the order of
:data:`PARTS`)."""

PARTS = {"horizontal-triband": ("top stripe", "middle stripe", "bottom stripe"),
         "vertical-triband": ("left stripe", "middle stripe", "right stripe"),
         "canton": ("field", "canton"), "cross": ("field", "cross")}
"""What each colour of ``colors`` paints, layout by layout."""

EMBLEM_PART = 1
"""The index in ``colors`` of the part an emblem sits on (middle stripe, canton, cross)."""

TOP, BOTTOM = 1 / 6, 5 / 6
"""The flag's edges in its square (a 3:2 flag)."""


class Flag(VisualKind):
    """A flag: ``layout``, the ``colors`` of its parts, and an optional ``emblem`` in
    ``emblem_color`` on the middle stripe, the canton or the crossing."""

    name = "flag"
    summary = "a flag: three stripes (the middle one wider), a canton or a cross; an emblem"
    family = "entity"
    fields = (
        Field("layout", "choice", choices=tuple(LAYOUTS)),
        Field("colors", "colors", low=2, high=3),
        Field("emblem", "choice", choices=("none", *EMBLEMS)),
        Field("emblem_color", "color", optional=True),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """A flag drawn from ``streams`` (stream names ``slot.<attribute>``)."""
        given = self.given(constraints)
        layout = given.get("layout") or streams.choose(LAYOUTS, f"{slot}.layout")
        parts = tuple(f"part{i}" for i in range(LAYOUTS[layout]))
        colors = given.get("colors") or list(sample_colors(streams, slot, parts, {}).values())
        emblem = given.get("emblem") or ("none" if streams.uniform(f"{slot}.emblem.shown") < 0.5
                                         else streams.choose(EMBLEMS, f"{slot}.emblem"))
        attributes: dict[str, Any] = {"layout": layout, "colors": colors, "emblem": emblem}
        if emblem != "none":
            attributes["emblem_color"] = given.get("emblem_color") or streams.choose(
                sorted(c for c in COLORS if _fits_emblem(c, colors)), f"{slot}.emblem_color")
        return self.check(attributes)

    def _consistent(self, attributes: dict[str, Any]) -> None:
        layout, colors = attributes["layout"], attributes["colors"]
        if len(colors) != LAYOUTS[layout]:
            raise refuse(self.name, "colors", f"a {layout} flag takes {LAYOUTS[layout]} "
                                              f"colours, got {len(colors)}")
        if attributes["emblem"] == "none":
            if "emblem_color" in attributes:
                raise refuse(self.name, "emblem_color", "given without an emblem")
            return
        if "emblem_color" not in attributes:
            raise refuse(self.name, "emblem_color", "missing (the flag has an emblem)")
        if not _fits_emblem(attributes["emblem_color"], colors):
            raise refuse(self.name, "emblem_color", f"{attributes['emblem_color']} cannot be "
                                                    f"told apart from the flag's colours or "
                                                    f"from the {colors[EMBLEM_PART]} under it")

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        layout, colors = attributes["layout"], attributes["colors"]
        height = BOTTOM - TOP
        if layout == "horizontal-triband":
            edges = (TOP, TOP + height / 4, TOP + height * 3 / 4, BOTTOM)
            for i, color in enumerate(colors):
                canvas.rectangle((0.0, edges[i], 1.0, edges[i + 1]), color)
            center, radius = (0.5, 0.5), height * 0.2
        elif layout == "vertical-triband":
            edges = (0.0, 0.25, 0.75, 1.0)
            for i, color in enumerate(colors):
                canvas.rectangle((edges[i], TOP, edges[i + 1], BOTTOM), color)
            center, radius = (0.5, 0.5), height * 0.22
        elif layout == "canton":
            canvas.rectangle((0.0, TOP, 1.0, BOTTOM), colors[0])
            canvas.rectangle((0.0, TOP, 0.5, TOP + height / 2), colors[1])
            center, radius = (0.25, TOP + height / 4), height * 0.19
        else:
            arm = height * 0.09
            canvas.rectangle((0.0, TOP, 1.0, BOTTOM), colors[0])
            canvas.rectangle((0.36 - arm, TOP, 0.36 + arm, BOTTOM), colors[1])
            canvas.rectangle((0.0, 0.5 - arm, 1.0, 0.5 + arm), colors[1])
            center, radius = (0.36, 0.5), arm
        if attributes["emblem"] != "none":
            canvas.emblem(attributes["emblem"], center, radius, attributes["emblem_color"])
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        colors = list(attributes["colors"])
        if attributes["layout"].endswith("triband"):
            colors = [colors[1], colors[0], colors[2]]
        extra = attributes.get("emblem_color")
        return colors + ([extra] if extra is not None and extra not in colors else [])

    def _describe(self, attributes: dict[str, Any]) -> str:
        layout, colors = attributes["layout"], attributes["colors"]
        if layout.endswith("triband"):
            direction = layout.split("-")[0]
            text = (f"a flag of three {direction} stripes, {colors[0]}, {colors[1]} and "
                    f"{colors[2]}, the middle one wider")
        elif layout == "canton":
            text = (f"{a_color(colors[0])} flag with {a_color(colors[1])} canton in the upper "
                    f"left corner")
        else:
            text = f"{a_color(colors[0])} flag with {a_color(colors[1])} cross"
        if attributes["emblem"] != "none":
            where = {"canton": "on the canton", "cross": "where the cross meets"}.get(
                layout, "on the middle stripe")
            text += f" and {a_color(attributes['emblem_color'])} {attributes['emblem']} {where}"
        return text

    def _icons(self, attributes: dict[str, Any]) -> list[str]:
        return [] if attributes["emblem"] == "none" else [attributes["emblem"]]

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        layout = attributes["layout"]
        drawn = self._color_names(attributes)
        facts = [VisualFact("main_color", "colour", drawn[0]),
                 VisualFact("layout", "shape", layout),
                 VisualFact("stripes", "count", 3 if layout.endswith("triband") else 0),
                 VisualFact("color_count", "count", len(drawn)),
                 VisualFact("emblem", "shape", attributes["emblem"])]
        if "emblem_color" in attributes:
            facts.append(VisualFact("emblem_color", "colour", attributes["emblem_color"]))
        facts += [VisualFact(f"has_{color}", "presence", color in drawn) for color in COLORS]
        return facts


def _fits_emblem(color: str, parts: list[str]) -> bool:
    """Whether an emblem may be ``color``: told apart from the part under it, and either one
    of the other parts' colours or told apart from each of them."""
    ground = parts[EMBLEM_PART]
    return distinguishable(color, ground) and all(
        color == part or distinguishable(color, part) for part in parts)


VISUAL_KINDS.register("flag", Flag())
