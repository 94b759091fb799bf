"""A markup task (HighlightBench's T1–T5): the marks a table image shows and the program whose
result is the answer.

A markup task item (kind ``markup_task``) shows one table image with some cells marked;
``item.task`` records the marks (logical cell, style, and for a highlight its colour by name)
and the ``program`` that, executed on the item's table and these marks, gives the answer
(:mod:`hopvista.program.marks` executes it; docs/format.md, section 11).
"""

from __future__ import annotations

from pydantic import Field, JsonValue

from hopvista.model.base import Closed, Model

MARK_STYLES = ("highlight", "underline", "bold")
"""HighlightBench's markup (H, U and B): the mark kinds a markup task draws from unless
``gen markup --marks`` names others (any installed kind that marks a cell,
:data:`hopvista.themes.marks.MARK_KINDS`)."""

COLOURS = {"yellow": "#ffeb3b", "green": "#66bb6a", "blue": "#42a5f5", "pink": "#f8a5c2",
           "orange": "#ff9800", "purple": "#ab47bc"}
"""Highlight colours by the name questions use, and how each is drawn (nearly opaque, with
dark text, so the colour reads the same on a dark theme)."""

FAMILIES = {
    "T1": "markup grounding",
    "T2": "constrained retrieval",
    "T3": "local relations",
    "T4": "aggregation and comparison",
    "T5": "consistency and missingness",
}
"""HighlightBench's five task families."""


class Mark(Closed):
    """One marked cell: its logical coordinates (row 0 is the header row, column 0 the row
    labels), the style, and a highlight's colour name (a key of :data:`COLOURS`)."""

    row: int = Field(ge=0)
    col: int = Field(ge=0)
    style: str = Field(pattern=r"^[a-z][a-z0-9-]*$", max_length=40)
    """A mark kind's name (``highlight``, ``underline``, ``bold``, ``arrow``, ``circle``, ...)."""
    colour: str | None = None


class Task(Model):
    """What a markup task asks: its ``family`` (``T1`` … ``T5``) and ``subtask``, the
    ``marks`` the image shows, and the ``program`` whose result is the answer. ``ordered``
    names the answer's list fields compared in order (a sorting task); others are compared
    as multisets."""

    family: str = Field(pattern=r"^T[1-9]$")
    subtask: str = Field(min_length=1)
    marks: tuple[Mark, ...] = ()
    program: dict[str, JsonValue]
    ordered: tuple[str, ...] = ()
