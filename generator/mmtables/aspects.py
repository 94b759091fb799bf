"""What a question may ask of each visual kind, in words drawn from the kind's own
vocabulary (its colour names, its shapes, its regions, its facts).

An :class:`Aspect` is one attribute of a kind a question may pick rows by (a condition of
:mod:`hopvista.program.cells`: ``eq`` a value, or ``has`` a value in a list) and, when it has
``what``, may ask for. Its ``clause`` words a condition after the picture's noun: "the club
whose badge *is red*"; its ``what`` words the reading: "*the colour of the badge*".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hopvista.themes.visuals.badge import SHAPES
from hopvista.themes.visuals.palette import COLORS

Value = Any
DRAWN = ("kind", "colors")
"""What a program reads of the picture itself rather than of its attributes: its kind, and
the ``#rrggbb`` colours it is drawn with."""


@dataclass(frozen=True)
class Aspect:
    """One attribute a question may ask about (see the module docstring). ``of`` reduces a
    list attribute (``count``: the number of bars); ``test`` is ``eq`` or ``has``; a
    ``numeric`` aspect reads as a number (a count of stars or bars), any other as a word."""

    attribute: str
    clause: Callable[[Value], str]
    what: str | None = None
    test: str = "eq"
    of: str | None = None
    numeric: bool = False

    def value(self, visual: Mapping[str, Any]) -> Value:
        """The value a reading of this aspect gives of ``visual`` (for ``has``: the list)."""
        value = visual[self.attribute] if self.attribute in DRAWN else \
            visual["attributes"][self.attribute]
        return len(value) if self.of == "count" else value

    def reading(self, header: str) -> dict[str, Any]:
        """The program's reading of this aspect in column ``header``."""
        found = {"visual": header, "attribute": self.attribute}
        return found | ({"of": self.of} if self.of else {})

    def condition(self, header: str, value: Value) -> dict[str, Any]:
        """The program's condition "this aspect of the picture in ``header`` is (holds)
        ``value``"."""
        return self.reading(header) | {self.test: value}

    def words(self, the: str, noun: str) -> str:
        """``what`` for a picture called ``noun`` after ``the`` ("the", "its")."""
        assert self.what is not None
        return self.what.format(the=the, noun=noun)


def _emblem(value: Value) -> str:
    return "carries no emblem" if value == "none" else f"carries {_a(str(value))}"


def _a(word: str) -> str:
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _drawn(value: Value) -> str:
    """The colour name of a drawn ``#rrggbb``."""
    return next(name for name, code in COLORS.items() if code == value)


LAYOUT_WORDS = {"horizontal-triband": "horizontal three-band", "vertical-triband":
                "vertical three-band", "canton": "canton", "cross": "cross"}
"""How a question words each flag layout."""

COLOUR = Aspect("color", lambda v: f"is {v}", "the colour of {the} {noun}")

ASPECTS: Mapping[str, tuple[Aspect, ...]] = {
    "badge": (COLOUR,
              Aspect("shape", lambda v: f"is {SHAPES[v]}", "the shape of {the} {noun}"),
              Aspect("initials", lambda v: f"shows the initials {v}",
                     "the initials on {the} {noun}"),
              Aspect("emblem", _emblem)),
    "flag": (Aspect("colors", lambda v: f"has {_drawn(v)} in it", test="has"),
             Aspect("layout", lambda v: f"has the {LAYOUT_WORDS[v]} layout",
                    "the layout of {the} {noun}"),
             Aspect("emblem", _emblem)),
    "avatar": (Aspect("glasses", lambda v: "wears glasses" if v else "wears no glasses"),
               Aspect("hat", lambda v: "wears a hat" if v else "wears no hat"),
               Aspect("shirt", lambda v: f"wears a {v} shirt", "the shirt colour of {the} "
                                                              "{noun}"),
               Aspect("hair_style", lambda v: "has no hair" if v == "none" else
                      f"has {v} hair", "the hair style of {the} {noun}")),
    "map": (Aspect("highlight", lambda v: f"highlights the {v} region",
                   "the region highlighted on {the} {noun}"),
            Aspect("highlight_color", lambda v: f"highlights its region in {v}",
                   "the colour of the region highlighted on {the} {noun}")),
    "symbol": (Aspect("stars", lambda v: f"shows {v} filled star{'s' if v != 1 else ''}",
                      "the number of filled stars in {the} {noun}", numeric=True),
               Aspect("direction", lambda v: "points right" if v == "flat" else
                      f"points {v}", "the direction of {the} {noun} (up, down or flat)")),
    "sparkline": (Aspect("color", lambda v: f"is drawn in {v}",
                         "the colour of the line in {the} {noun}"),),
    "minibar": (Aspect("values", lambda v: f"has {v} bars", "the number of bars in {the} "
                                                           "{noun}", of="count", numeric=True),
                Aspect("color", lambda v: f"is drawn in {v}",
                       "the colour of the bars in {the} {noun}")),
    "minipie": (Aspect("values", lambda v: f"has {v} slices", "the number of slices in {the} "
                                                             "{noun}", of="count",
                       numeric=True),
                Aspect("colors", lambda v: f"has {_a(_drawn(v))} slice", test="has")),
}
"""The aspects of each visual kind a question may ask about."""


def aspects_of(visual: Mapping[str, Any]) -> tuple[Aspect, ...]:
    """The aspects a picture (``kind``, ``colors``, ``attributes``) has."""
    return tuple(a for a in ASPECTS.get(visual["kind"], ())
                 if a.attribute in DRAWN or a.attribute in visual["attributes"])
