"""A column mark: the marked cell's whole column boxed (an inset outline of its cells)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind


def css(look: Mapping[str, Any]) -> str:
    """Nothing of its own: :func:`hopvista.render.panels.scope_css` boxes the column."""
    return ""


MARK_KINDS.register("column", MarkKind(
    "column", "c", "in the boxed column", "the cell's whole column boxed", css,
    scope="column", order=6))
