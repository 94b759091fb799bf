"""``symbol``: an arrow (up, down or flat), a rating of stars out of five, or a check or a
cross in a disc."""

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
from hopvista.themes.visuals.canvas import Canvas, star_points
from hopvista.themes.visuals.palette import COLORS, a_color, legible, sample_color

SYMBOLS = {"arrow": ("direction", "color"), "stars": ("stars", "color", "empty_color"),
           "mark": ("mark", "color", "mark_color")}
"""Each symbol and the attributes it takes (besides ``symbol``)."""

STAR_COUNT = 5
DIRECTIONS = ("up", "down", "flat")
MARKS = ("check", "cross")

_ARROW_UP = [(0.5, 0.06), (0.9, 0.5), (0.64, 0.5), (0.64, 0.94), (0.36, 0.94), (0.36, 0.5),
             (0.1, 0.5)]


class Symbol(VisualKind):
    """A symbol: an ``arrow`` pointing ``direction``; ``stars`` filled of five in ``color``,
    the rest in ``empty_color``; or a ``mark`` (check or cross) in ``mark_color`` on a
    ``color`` disc."""

    name = "symbol"
    summary = "an arrow (up, down, flat), stars out of five, or a check or cross"
    family = "visualisation"
    fields = (
        Field("symbol", "choice", choices=tuple(SYMBOLS)),
        Field("color", "color"),
        Field("direction", "choice", choices=DIRECTIONS, optional=True),
        Field("stars", "int", low=0, high=STAR_COUNT, optional=True),
        Field("empty_color", "color", optional=True),
        Field("mark", "choice", choices=MARKS, optional=True),
        Field("mark_color", "color", optional=True),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """A symbol drawn from ``streams`` (stream names ``slot.<attribute>``)."""
        given = self.given(constraints)
        symbol = given.get("symbol") or streams.choose(SYMBOLS, f"{slot}.symbol")
        attributes: dict[str, Any] = {"symbol": symbol}
        if symbol == "arrow":
            attributes["direction"] = given.get("direction") or streams.choose(
                DIRECTIONS, f"{slot}.direction")
            attributes |= sample_colors(streams, slot, ("color",), given)
        elif symbol == "stars":
            attributes["stars"] = given.get("stars", streams.integer(f"{slot}.stars", 1,
                                                                      STAR_COUNT))
            attributes |= sample_colors(streams, slot, ("empty_color", "color"), given,
                                        among={"color": ("yellow", "orange", "red", "blue",
                                                         "black"),
                                               "empty_color": ("grey",)})
        else:
            attributes["mark"] = given.get("mark") or streams.choose(MARKS, f"{slot}.mark")
            mark_color = given.get("mark_color") or streams.choose(("black", "white"),
                                                                   f"{slot}.mark_color")
            attributes["mark_color"] = mark_color
            attributes["color"] = given.get("color") or sample_color(
                streams, f"{slot}.color", [mark_color],
                [c for c in COLORS if legible(mark_color, c)])
        return self.check(attributes)

    def _consistent(self, attributes: dict[str, Any]) -> None:
        wanted = SYMBOLS[attributes["symbol"]]
        for field in self.fields[1:]:
            if field.name in wanted and field.name not in attributes:
                raise refuse(self.name, field.name, f"missing (the {attributes['symbol']} "
                                                    f"symbol takes it)")
            if field.name not in wanted and field.name in attributes:
                raise refuse(self.name, field.name, f"the {attributes['symbol']} symbol "
                                                    f"does not take it")
        require_distinct(self.name, attributes, ("color", "empty_color", "mark_color"))
        if "mark_color" in attributes and not legible(attributes["mark_color"],
                                                      attributes["color"]):
            raise refuse(self.name, "mark_color", f"a {attributes['mark_color']} mark does "
                                                  f"not read clearly on {attributes['color']}")

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        symbol, color = attributes["symbol"], attributes["color"]
        if symbol == "arrow":
            canvas.polygon(_arrow(attributes["direction"]), color)
        elif symbol == "stars":
            for i in range(STAR_COUNT):
                shade = color if i < attributes["stars"] else attributes["empty_color"]
                canvas.polygon(star_points((0.1 + 0.2 * i, 0.5), 0.098), shade)
        else:
            canvas.ellipse((0.04, 0.04, 0.96, 0.96), color)
            _mark(canvas, attributes["mark"], attributes["mark_color"])
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        symbol, color = attributes["symbol"], attributes["color"]
        if symbol == "arrow":
            return [color]
        if symbol == "mark":
            return [color, attributes["mark_color"]]
        filled, empty = attributes["stars"], STAR_COUNT - attributes["stars"]
        shades = [(filled, color), (empty, attributes["empty_color"])]
        return [shade for count, shade in sorted(shades, key=lambda s: -s[0]) if count > 0]

    def _describe(self, attributes: dict[str, Any]) -> str:
        symbol, color = attributes["symbol"], attributes["color"]
        if symbol == "arrow":
            where = {"up": "pointing up", "down": "pointing down", "flat": "pointing right"}
            return f"{a_color(color)} arrow {where[attributes['direction']]}"
        if symbol == "mark":
            name = "check mark" if attributes["mark"] == "check" else "cross"
            return f"{a_color(attributes['mark_color'])} {name} on {a_color(color)} disc"
        return (f"a rating of {attributes['stars']} {color} stars out of {STAR_COUNT}, the "
                f"others {attributes['empty_color']}")

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        symbol = attributes["symbol"]
        facts = [VisualFact("symbol", "shape", symbol)]
        if symbol != "stars" or attributes["stars"] > 0:
            facts.append(VisualFact("color", "colour", attributes["color"]))
        if symbol == "arrow":
            facts.append(VisualFact("direction", "direction", attributes["direction"]))
        elif symbol == "stars":
            facts.append(VisualFact("stars", "count", attributes["stars"]))
        else:
            facts.append(VisualFact("mark", "shape", attributes["mark"]))
        return facts


def _arrow(direction: str) -> list[tuple[float, float]]:
    """The arrow's outline: drawn pointing up, then turned."""
    if direction == "up":
        return _ARROW_UP
    if direction == "down":
        return [(x, 1 - y) for x, y in _ARROW_UP]
    return [(1 - y, x) for x, y in _ARROW_UP]


def _mark(canvas: Canvas, mark: str, color: str) -> None:
    if mark == "check":
        canvas.line([(0.27, 0.52), (0.43, 0.68), (0.74, 0.34)], color, 0.11)
    else:
        canvas.line([(0.3, 0.3), (0.7, 0.7)], color, 0.11)
        canvas.line([(0.7, 0.3), (0.3, 0.7)], color, 0.11)


VISUAL_KINDS.register("symbol", Symbol())
