"""Bold text (HighlightBench's B), drawn as a stroke around the glyphs: a bolder face would
widen the column."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind, cell


def css(look: Mapping[str, Any]) -> str:
    """A stroke of the look's width around the glyphs."""
    return (f"{cell('bold')}, {cell('bold')} * {{ "
            f"-webkit-text-stroke: {look['stroke']:.2f}px currentColor; }}\n")


MARK_KINDS.register("bold", MarkKind(
    "bold", "b", "in bold", "the cell's text in bold", css, order=3,
    paint="text"))
