"""A highlight: the cell's background in the look's colour (HighlightBench's H)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind, cell, rgba


def css(look: Mapping[str, Any]) -> str:
    """The background, inside the cell."""
    return f"{cell('highlight')} {{ background-color: {rgba(look)} !important; }}\n"


MARK_KINDS.register("highlight", MarkKind(
    "highlight", "h", "highlighted", "the cell's background in a colour", css, order=1,
    paint="fill"))
