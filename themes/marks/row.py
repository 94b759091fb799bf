"""A row mark: the marked cell's whole row shaded (its cells' backgrounds, every panel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hopvista.themes.marks import MARK_KINDS, MarkKind


def css(look: Mapping[str, Any]) -> str:
    """Nothing of its own: :func:`hopvista.render.panels.scope_css` shades the row."""
    return ""


MARK_KINDS.register("row", MarkKind(
    "row", "r", "in the shaded row", "the cell's whole row shaded", css, scope="row",
    order=5, paint="fill", most_opacity=0.45))
