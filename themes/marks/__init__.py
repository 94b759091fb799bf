"""Mark kinds: the ways counterfactual markup is drawn on a table cell, by name.

A :class:`MarkKind` says how a marked cell (an element with ``data-mark="NAME"``) is drawn
from a markup *look* (:func:`ink_look`: colour, opacity, thickness, stroke, and the ink its
lines are drawn in), without moving anything:

- ``css(look)``: rules for the marked cell (a background, a text decoration, a stroke);
- ``shape(look, before)``: an SVG drawn over the cell (an arrow, a ring), positioned
  absolutely beside or around the cell's text, so the table's layout never changes
  (``before``: the text is right-aligned, so a mark beside it goes on its left);
- ``scope``: what the mark covers: the cell, its whole ``row`` (a shaded row) or its whole
  ``column`` (a boxed column), drawn by :func:`hopvista.render.panels.scope_css`;
- ``sample(streams)``: the kind's own look drawn from an item's streams (a hand-drawn
  stroke's jitter), added to the look its shape receives;
- ``paint``: what the mark is seen by, so that its colour can be measured against what it
  lies on: ``fill`` (the look's colour laid at its opacity, at most ``most_opacity``, over
  the cells it covers), ``ink`` (lines in the look's ink; over a light halo, :data:`HALO`,
  when ``halo``), or ``text`` (drawn in the text's own colour, as legible as the text).

Every kind's pixels lie inside the box the renderer records for the marked cell (the cell's
own box, or ``mark_box`` for a shape or a row or column mark), which ``gen verify`` and the
tests hold it to. The counterfactual variants (``gen augment --variants markup``) are made for
every kind: ``markup-{code}c`` on the target, ``markup-{code}i`` on the distractor.

A plug-in registers a kind with ``MARK_KINDS.register("name", MarkKind(...))`` (or through the
entry-point group ``hopvista.mark_kinds``); its one-letter ``code`` must be free.
"""

from __future__ import annotations

import colorsys
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hopvista.registry import Registry
from hopvista.rng import Streams

SCOPES = ("cell", "row", "column")
"""What a mark covers."""

PAINTS = ("fill", "ink", "text")
"""What a mark is seen by (see the module docstring)."""

HALO = ("#ffffff", 0.6)
"""The colour and opacity of the halo drawn under a shape's ink."""


@dataclass(frozen=True)
class MarkKind:
    """One mark kind (see the module docstring). ``words`` is how a question names a cell so
    marked ("pointed at by an arrow"); ``order`` places its variants among the others'."""

    name: str
    code: str
    words: str
    description: str
    css: Callable[[Mapping[str, Any]], str]
    shape: Callable[[Mapping[str, Any], bool], str] | None = None
    scope: str = "cell"
    sample: Callable[[Streams], dict[str, Any]] | None = None
    order: int = 100
    paint: str = "ink"
    halo: bool = False
    most_opacity: float = 1.0

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9-]*", self.name):
            raise ValueError(f"mark kind name {self.name!r} is not lower-case letters, digits "
                             "and hyphens")
        if not re.fullmatch(r"[a-z]", self.code) or self.code in ("n",):
            raise ValueError(f"mark kind {self.name!r}: code {self.code!r} is not one letter "
                             "other than n")
        if self.scope not in SCOPES:
            raise ValueError(f"mark kind {self.name!r}: scope {self.scope!r} is not one of "
                             f"{', '.join(SCOPES)}")
        if self.paint not in PAINTS:
            raise ValueError(f"mark kind {self.name!r}: paint {self.paint!r} is not one of "
                             f"{', '.join(PAINTS)}")
        if not 0.05 <= self.most_opacity <= 1:
            raise ValueError(f"mark kind {self.name!r}: most_opacity {self.most_opacity!r} is "
                             "not between 0.05 and 1")

    @property
    def reaches_beyond_cell(self) -> bool:
        """Whether the mark draws outside its cell's box (a shape, a row, a column): the
        renderer then records its box as ``mark_box``."""
        return self.shape is not None or self.scope != "cell"


MARK_KINDS: Registry[MarkKind] = Registry(
    "mark kind", "mark_kinds",
    builtins=tuple(f"hopvista.themes.marks.{name}" for name in (
        "highlight", "underline", "bold", "arrow", "row", "column", "circle", "hand")))
"""Every mark kind by name."""


def ordered_kinds() -> list[MarkKind]:
    """The registered kinds in their variants' order (built-ins first, as HighlightBench
    lists them; then plug-ins by name)."""
    return sorted((kind for _, kind in MARK_KINDS.items()), key=lambda k: (k.order, k.name))


def ink_look(look: Mapping[str, Any]) -> dict[str, Any]:
    """A markup look with its values bounded: ``rgb`` of ``colour`` (``#rrggbb``),
    ``opacity`` (0.05–1), ``thickness`` and ``stroke`` in px, and ``ink``: the colour that
    lines (arrows, rings, boxes) are drawn in, the look's own ``ink`` if it has one, else the
    colour's (:func:`ink_of`). Other keys are kept."""
    colour = str(look.get("colour", "#ffd54f"))
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
        raise ValueError(f"markup colour {colour!r} is not #rrggbb")
    ink = look.get("ink")
    if ink is not None and not re.fullmatch(r"#[0-9a-fA-F]{6}", str(ink)):
        raise ValueError(f"markup ink {ink!r} is not #rrggbb")
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return {**look, "rgb": (red, green, blue),
            "opacity": min(max(float(look.get("opacity", 0.5)), 0.05), 1.0),
            "thickness": min(max(float(look.get("thickness", 2.0)), 0.5), 6.0),
            "stroke": min(max(float(look.get("stroke", 0.6)), 0.2), 2.0),
            "ink": str(ink) if ink is not None else ink_of(red, green, blue)}


def ink_of(red: int, green: int, blue: int) -> str:
    """The ink of a markup colour: its hue, saturated and dark enough to read as a line on
    white and on the colour itself."""
    hue, _, saturation = colorsys.rgb_to_hls(red / 255, green / 255, blue / 255)
    r, g, b = colorsys.hls_to_rgb(hue, 0.33, max(saturation, 0.75))
    return "#{:02x}{:02x}{:02x}".format(*(round(255 * v) for v in (r, g, b)))


def rgba(look: Mapping[str, Any], opacity: float | None = None) -> str:
    """The look's colour as CSS ``rgba()`` (at its own opacity unless ``opacity``)."""
    red, green, blue = look["rgb"]
    return f"rgba({red}, {green}, {blue}, {look['opacity'] if opacity is None else opacity:.2f})"


def cell(name: str) -> str:
    """The CSS selector of a cell marked ``name``."""
    return f".hv-table [data-mark=\"{name}\"]"


def shape_css(name: str, look: Mapping[str, Any], width: float) -> str:
    """Rules every shape kind shares: its anchor (the cell's text, or a heading's label) is
    positioned, the shape lies over the table without taking room, and its lines
    (``.hv-ink``, ``width`` px) are drawn in the look's ink over a light halo (``.hv-halo``)
    that keeps them legible on a dark theme."""
    lines = "fill: none; stroke-linecap: round; stroke-linejoin: round;"
    return (f"{cell(name)} .hv-mark-anchor, {cell(name)} .hv-label {{ position: relative; }}\n"
            f"{cell(name)} .hv-mark-shape {{ position: absolute; overflow: hidden; "
            "pointer-events: none; margin: 0; padding: 0; border: 0; }\n"
            f"{cell(name)} .hv-mark-shape .hv-halo {{ {lines} stroke: {_halo_rgba()}; "
            f"stroke-width: {width + 2:.1f}px; }}\n"
            f"{cell(name)} .hv-mark-shape .hv-ink {{ {lines} stroke: {look['ink']}; "
            f"stroke-width: {width:.1f}px; }}\n")


def _halo_rgba() -> str:
    colour, opacity = HALO
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {opacity:g})"


def halo_and_ink(element: str) -> str:
    """An SVG ``element`` (``<path d="…"``, without its end) drawn twice: the halo, then the
    ink over it."""
    return f'{element} class="hv-halo"/>{element} class="hv-ink"/>'
