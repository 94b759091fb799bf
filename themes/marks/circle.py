"""A circle: a ring around the cell's text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind, cell, shape_css

AROUND_X, AROUND_Y = 7, 4
"""How far the ring reaches beyond the text, in px, left and right / above and below."""


def ring_css(name: str, look: Mapping[str, Any]) -> str:
    """A ring shape (``.hv-ring``) around the text of a cell marked ``name``."""
    return (shape_css(name) +
            f"{cell(name)} .hv-ring {{ left: -{AROUND_X}px; top: -{AROUND_Y}px; "
            f"width: calc(100% + {2 * AROUND_X}px); height: calc(100% + {2 * AROUND_Y}px); }}\n"
            f"{cell(name)} .hv-ring * {{ fill: none; stroke: {look['ink']}; "
            f"stroke-width: {1.0 + look['thickness'] * 0.5:.1f}px; stroke-linecap: round; }}\n")


def css(look: Mapping[str, Any]) -> str:
    """The ring's place and ink."""
    return ring_css("circle", look)


def shape(look: Mapping[str, Any], before: bool) -> str:
    """An ellipse filling the ring's box (its stroke keeps its width when stretched)."""
    return ('<svg class="hv-mark-shape hv-ring" viewBox="0 0 100 100" '
            'preserveAspectRatio="none" aria-hidden="true"><ellipse cx="50" cy="50" rx="46" '
            'ry="42" vector-effect="non-scaling-stroke"/></svg>')


MARK_KINDS.register("circle", MarkKind(
    "circle", "o", "circled", "a ring around the cell's text", css, shape, order=7))
