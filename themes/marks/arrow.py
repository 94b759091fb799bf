"""An arrow pointing at the cell's text from beside it: from the left of a right-aligned
number, from the right of a left-aligned label."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind, cell, halo_and_ink, shape_css

WIDTH, HEIGHT = 22, 12


def css(look: Mapping[str, Any]) -> str:
    """Where the arrow sits beside the text, and its ink."""
    top = f"calc(50% - {HEIGHT / 2:g}px)"
    return (shape_css("arrow", look, 1.2 + look["thickness"] * 0.5) +
            f"{cell('arrow')} .hv-arrow {{ width: {WIDTH}px; height: {HEIGHT}px; "
            f"top: {top}; }}\n"
            f"{cell('arrow')} .hv-arrow-before {{ right: calc(100% + 2px); }}\n"
            f"{cell('arrow')} .hv-arrow-after {{ left: calc(100% + 2px); }}\n")


def shape(look: Mapping[str, Any], before: bool) -> str:
    """An arrow pointing right (placed before the text) or left (after it)."""
    path = "M2 6H18M13 2L19 6L13 10" if before else "M20 6H4M9 2L3 6L9 10"
    side = "before" if before else "after"
    stroke = f'<path d="{path}"'
    return (f'<svg class="hv-mark-shape hv-arrow hv-arrow-{side}" width="{WIDTH}" '
            f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" aria-hidden="true">'
            f'{halo_and_ink(stroke)}</svg>')


MARK_KINDS.register("arrow", MarkKind(
    "arrow", "a", "pointed at by an arrow", "an arrow pointing at the cell", css, shape,
    order=4, halo=True))
