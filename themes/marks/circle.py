"""A circle: a ring around the cell's text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind, cell, halo_and_ink, shape_css

AROUND_X, AROUND_Y = "calc(15% + 4px)", "calc(30% + 2px)"
"""How far the ring's box reaches beyond the text, left and right / above and below (of the
text's width / height): an ellipse inscribed in it passes clear of the text's corners."""


def ring_css(name: str, look: Mapping[str, Any]) -> str:
    """A ring shape (``.hv-ring``) around the text of a cell marked ``name``."""
    return (shape_css(name, look, 1.0 + look["thickness"] * 0.5) +
            f"{cell(name)} .hv-ring {{ left: calc(-1 * {AROUND_X}); top: calc(-1 * {AROUND_Y}); "
            f"width: calc(100% + 2 * {AROUND_X}); height: calc(100% + 2 * {AROUND_Y}); }}\n")


def css(look: Mapping[str, Any]) -> str:
    """The ring's place and ink."""
    return ring_css("circle", look)


def shape(look: Mapping[str, Any], before: bool) -> str:
    """An ellipse filling the ring's box (its stroke keeps its width when stretched)."""
    ellipse = '<ellipse cx="50" cy="50" rx="46" ry="42" vector-effect="non-scaling-stroke"'
    return ('<svg class="hv-mark-shape hv-ring" viewBox="0 0 100 100" '
            f'preserveAspectRatio="none" aria-hidden="true">{halo_and_ink(ellipse)}</svg>')


MARK_KINDS.register("circle", MarkKind(
    "circle", "o", "circled", "a ring around the cell's text", css, shape, order=7,
    halo=True))
