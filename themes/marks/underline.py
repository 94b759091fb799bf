"""An underline under the cell's text (HighlightBench's U)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind, cell


def css(look: Mapping[str, Any]) -> str:
    """A text decoration of the look's thickness: nothing moves."""
    return (f"{cell('underline')}, {cell('underline')} * {{ "
            f"text-decoration: underline solid currentColor !important; "
            f"text-decoration-thickness: {look['thickness']:.1f}px !important; "
            f"text-underline-offset: 2px !important; }}\n")


MARK_KINDS.register("underline", MarkKind(
    "underline", "u", "underlined", "a line under the cell's text", css, order=2,
    paint="text"))
