"""``avatar``: a drawn person, head and shoulders on a round background: hair colour and
style, glasses, a hat, a shirt colour."""

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
from hopvista.themes.visuals.canvas import RGBA, Canvas, opaque
from hopvista.themes.visuals.palette import a_color

SKINS: dict[str, RGBA] = {"light": (246, 214, 186, 255), "medium": (205, 150, 105, 255),
                          "dark": (120, 80, 50, 255)}
"""The skin tones (not colours a question asks about, so not in the vocabulary)."""

HAIR_COLORS = ("black", "brown", "yellow", "orange", "grey", "white")
HAIR_STYLES = ("short", "long", "none")


class Avatar(VisualKind):
    """An avatar: a person with ``skin``, ``hair`` of ``hair_style``, optional ``glasses``
    and ``hat`` (in ``hat_color``), a ``shirt``, on a ``background`` disc."""

    name = "avatar"
    summary = "a drawn person: hair colour and style, glasses, hat, shirt colour"
    family = "entity"
    fields = (
        Field("background", "color"),
        Field("skin", "choice", choices=tuple(SKINS)),
        Field("hair_style", "choice", choices=HAIR_STYLES),
        Field("hair", "color", optional=True),
        Field("glasses", "bool"),
        Field("hat", "bool"),
        Field("hat_color", "color", optional=True),
        Field("shirt", "color"),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """An avatar drawn from ``streams`` (stream names ``slot.<attribute>``)."""
        given = self.given(constraints)
        style = given.get("hair_style") or streams.choose(HAIR_STYLES, f"{slot}.hair_style",
                                                          weights=(3, 2, 1))
        hat = given.get("hat", streams.uniform(f"{slot}.hat") < 0.3)
        names = (("hair",) if style != "none" else ()) + (("hat_color",) if hat else ()) \
            + ("background", "shirt")
        colors = sample_colors(streams, slot, names, given, among={"hair": HAIR_COLORS})
        return self.check({
            "skin": given.get("skin") or streams.choose(SKINS, f"{slot}.skin"),
            "hair_style": style,
            "glasses": given.get("glasses", streams.uniform(f"{slot}.glasses") < 0.4),
            "hat": hat,
            **colors,
        })

    def _consistent(self, attributes: dict[str, Any]) -> None:
        bald = attributes["hair_style"] == "none"
        if bald == ("hair" in attributes):
            raise refuse(self.name, "hair", "given with hair_style none" if bald else
                         "missing (the person has hair)")
        if "hair" in attributes and attributes["hair"] not in HAIR_COLORS:
            raise refuse(self.name, "hair", f"{attributes['hair']} is not a hair colour "
                                            f"({', '.join(HAIR_COLORS)})")
        if attributes["hat"] != ("hat_color" in attributes):
            raise refuse(self.name, "hat_color", "missing (the person wears a hat)"
                         if attributes["hat"] else "given without a hat")
        require_distinct(self.name, attributes, ("background", "shirt", "hair", "hat_color"))

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        skin = SKINS[attributes["skin"]]
        canvas.ellipse((0.0, 0.0, 1.0, 1.0), attributes["background"])
        if attributes["hair_style"] == "long":
            canvas.ellipse((0.26, 0.16, 0.74, 0.74), attributes["hair"])
        canvas.ellipse((0.14, 0.74, 0.86, 1.3), attributes["shirt"])
        canvas.pen.rectangle(canvas.box(0.44, 0.58, 0.56, 0.78), fill=skin)
        if attributes["hair_style"] == "short":
            canvas.ellipse((0.31, 0.17, 0.69, 0.48), attributes["hair"])
        canvas.pen.ellipse(canvas.box(0.33, 0.23, 0.67, 0.63), fill=skin)
        if attributes["hair_style"] != "none":
            canvas.pen.chord(canvas.box(0.32, 0.18, 0.68, 0.52), 180, 360,
                             fill=opaque(attributes["hair"]))
        if attributes["glasses"]:
            for cx in (0.42, 0.58):
                canvas.outline((cx - 0.065, 0.38, cx + 0.065, 0.49), "black", 0.018)
            canvas.line([(0.485, 0.43), (0.515, 0.43)], "black", 0.018)
        if attributes["hat"]:
            canvas.rectangle((0.24, 0.22, 0.76, 0.27), attributes["hat_color"])
            canvas.rectangle((0.34, 0.05, 0.66, 0.24), attributes["hat_color"])
        canvas.clip_to((0.0, 0.0, 1.0, 1.0))
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        names = [attributes["background"], attributes["shirt"]]
        names += [attributes[n] for n in ("hair", "hat_color") if n in attributes]
        if attributes["glasses"] and "black" not in names:
            names.append("black")
        return names

    def _describe(self, attributes: dict[str, Any]) -> str:
        hair = ("a bald person" if attributes["hair_style"] == "none" else
                f"a person with {attributes['hair_style']} {attributes['hair']} hair")
        wears = [f"{a_color(attributes['shirt'])} shirt"]
        if attributes["glasses"]:
            wears.append("glasses")
        if attributes["hat"]:
            wears.append(f"{a_color(attributes['hat_color'])} hat")
        worn = ", ".join(wears[:-1]) + " and " + wears[-1] if len(wears) > 1 else wears[0]
        background = a_color(attributes["background"])
        return f"an avatar of {hair} wearing {worn} on {background} background"

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        facts = [VisualFact("hair_style", "shape", attributes["hair_style"]),
                 VisualFact("glasses", "presence", attributes["glasses"]),
                 VisualFact("hat", "presence", attributes["hat"]),
                 VisualFact("shirt", "colour", attributes["shirt"]),
                 VisualFact("background", "colour", attributes["background"])]
        for name in ("hair", "hat_color"):
            if name in attributes:
                facts.append(VisualFact(name, "colour", attributes[name]))
        return facts


VISUAL_KINDS.register("avatar", Avatar())
