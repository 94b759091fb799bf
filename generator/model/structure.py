"""How a generated item's table is structured, and the attributes an item records about itself
(docs/format.md, sections 2.2 and 2.6).

A table's ``structure`` says how its logical cells (the entity × period rows of
:class:`hopvista.model.inputs.Table`) are shown: under a header of several levels, with merged
cells, or split over several related tables. It never changes what a cell says, so a label is
proved from the same logical cells whatever the structure; ``gen verify`` checks that the
structure shows each of them once. Both records are absent from the JSON of an item built
without ``--structure``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from hopvista.model.base import Closed

STRUCTURES = ("simple", "text-mixed", "complex", "long", "multi-table")
"""The structure types of ``gen build --structure``, TableVista's five."""

StructureType = Literal["simple", "text-mixed", "complex", "long", "multi-table"]


class ColumnGroup(Closed):
    """A header over some value columns (a statement section: "Balance sheet"): its label and
    the keys of the columns under it, in display order."""

    label: str = Field(min_length=1)
    columns: tuple[str, ...] = Field(min_length=1)


class TablePart(Closed):
    """One of the related tables of a ``multi-table`` item: its title, the value columns it
    shows, and the rows (entities and periods) it shows them for. Every part shows the join
    keys (the entity and, with a period axis, the period) of each of its rows."""

    title: str = Field(min_length=1)
    columns: tuple[str, ...] = Field(min_length=1)
    entities: tuple[str, ...] = Field(min_length=1)
    years: tuple[int, ...] = Field(min_length=1)
    split: Literal["statement", "period", "entity", "columns"]
    """What the parts are cut by: a column group (statement), periods, entities, or runs of
    columns."""


class Notes(Closed):
    """``text-mixed``: one value column shown as sentences, one per row, in a notes column:
    the sentence ``form`` (one of :data:`hopvista.augment.structures.NOTE_FORMS`) with the
    row's entity, period and value."""

    column: str = Field(min_length=1)
    form: str = Field(min_length=1)


class TableStructure(Closed):
    """How a generated table is shown (``inputs.table.structure``)."""

    type: StructureType
    groups: tuple[ColumnGroup, ...] = ()
    """``complex``: a header level over the value columns; every column in one group."""
    periods_across: bool = False
    """``complex``: the periods are a header level (one row per entity, each column's label
    spanning its periods)."""
    merged_entities: bool = False
    """An entity named once for all its periods (a cell spanning its rows)."""
    tables: tuple[TablePart, ...] = ()
    """``multi-table``: the related tables, 2 to 5, which together show every value cell
    once."""
    notes: Notes | None = None
    """``text-mixed``: the column whose values the table states in sentences."""
    long_format: bool = False
    """``long``: one row per value (entity, period, the column's label, the value), for an
    item whose statements the data allow with no more entities than the pack's."""


class LayoutFeatures(Closed):
    """What the table as shown is like: header levels, merged (spanning) cells, tables, and
    the logical rows × columns of the data (header row and label columns excluded)."""

    header_levels: int = Field(ge=1)
    merged_cells: int = Field(ge=0)
    tables: int = Field(ge=1)
    rows: int = Field(ge=1)
    columns: int = Field(ge=1)


class Skills(Closed):
    """How much of each skill the item's statements need, counted from their programs
    (:mod:`hopvista.program.skills`)."""

    lookup: int = Field(ge=0)
    aggregation: int = Field(ge=0)
    numeric: int = Field(ge=0)
    logical: int = Field(ge=0)


class Attributes(Closed):
    """An item's attributes (``attributes``): computed from what it shows and from its
    programs, never guessed, so ``gen eval`` can break results down by them."""

    structure: StructureType
    layout: LayoutFeatures
    richness: int = Field(ge=1, le=5)
    """Information richness: how much the item shows, 1 (little) to 5 (much)."""
    skills: Skills
    steps: int = Field(ge=1)
    """Reasoning steps: the hops of the item's statements together."""
