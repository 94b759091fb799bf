"""Multimodal tables: tables whose cells hold images (MMTabReal's), as an item records them.

An item of kind ``mmtable`` shows a grid table (:class:`~hopvista.model.inputs.GridTable`)
some of whose cells hold a picture instead of text: a badge, a flag, a map, a sparkline, an
avatar. ``inputs.visuals`` lists those pictures, one :class:`Visual` each, at the grid
coordinates of the table image's ``render.cells`` (row 0 is the header row, column 0 the
first column); a visual's cell text is empty. ``item.tags`` (:class:`Tags`) classifies the
question by MMTabReal's taxonomy, and ``item.program`` is the question's program in the
language of :mod:`hopvista.program.cells`, whose result is the answer (docs/format.md,
section 12).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, StringConstraints

from hopvista.model.base import Closed

ARCHETYPES = ("single-entity", "multi-entity", "single-chart", "visualisation",
              "entities-maps", "entities-charts", "multiple-charts", "maps-only")
"""MMTabReal's eight table types."""

QUESTION_TYPES = ("explicit", "implicit", "answer-mention", "visual")
"""MMTabReal's question types: the question names an imaged entity (explicit); an imaged
entity is needed on the way but named in neither question nor answer (implicit); the answer
is an imaged entity (answer-mention); the question asks for the colour, shape, count or
position of something in an image (visual)."""

REASONING = ("extrema", "mathematical", "fact-verification", "vision-based", "other")
"""MMTabReal's reasoning types."""

ANSWER_TYPES = ("single-entity", "multiple-entities", "single-number", "multiple-numbers",
                "image-location", "multiple-types")
"""MMTabReal's answer types (how the answer is written: Appendix E)."""

COLOR_PATTERN = r"^#[0-9a-f]{6}$"
Color = Annotated[str, StringConstraints(pattern=COLOR_PATTERN)]
"""A colour as ``#rrggbb`` (lower-case hexadecimal digits)."""


class Visual(Closed):
    """One picture in a table cell.

    ``row`` and ``col`` are the cell's grid coordinates (those of the table image's
    ``render.cells``); ``kind`` names the visual kind that draws it; ``colors`` are its
    colours as ``#rrggbb``, the one covering most of its area first; ``attributes`` are the
    kind's own (``initials``, ``stripes``, ``region``, ``series``, ...), what questions ask
    about; ``description`` is the exact text that replaces the picture where a setting shows
    the table as text with every picture described.
    """

    row: int = Field(ge=0)
    col: int = Field(ge=0)
    kind: str = Field(min_length=1)
    colors: tuple[Color, ...] = Field(min_length=1)
    attributes: dict[str, JsonValue] = Field(default_factory=dict)
    description: str = Field(min_length=1)


class Tags(Closed):
    """What kind of question an item asks, by MMTabReal's taxonomy (:data:`ARCHETYPES`,
    :data:`QUESTION_TYPES`, :data:`REASONING`, :data:`ANSWER_TYPES`)."""

    archetype: Literal["single-entity", "multi-entity", "single-chart", "visualisation",
                       "entities-maps", "entities-charts", "multiple-charts", "maps-only"]
    question_type: Literal["explicit", "implicit", "answer-mention", "visual"]
    reasoning: Literal["extrema", "mathematical", "fact-verification", "vision-based",
                       "other"]
    answer_type: Literal["single-entity", "multiple-entities", "single-number",
                         "multiple-numbers", "image-location", "multiple-types"]
