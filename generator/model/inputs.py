"""What an item shows the model as data: text chunks, a table, a chart (docs/format.md, 2.2).

Numbers are *displayed strings* (``"1,105.5"``): labels are computed from what is shown.
Two table shapes exist: the generator's entity × period panel (:class:`Table`), and a plain
grid of header and rows (:class:`GridTable`) for tables read from existing datasets (short
answer table QA).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from hopvista.model.base import Closed, Model
from hopvista.model.mmtable import Visual
from hopvista.model.structure import TableStructure


class TextChunk(Model):
    """One entity's passage: source chunk id, section, period of the document, text."""

    entity: str
    chunk: str
    section: str
    period: int
    text: str


class Column(Model):
    """A column: key (pack mnemonic), the one display label, unit, decimals shown."""

    key: str
    label: str
    unit: str
    precision: int = Field(ge=0, le=6)


class TableRow(Model):
    """One (entity, period) row: each column key to its displayed value."""

    entity: str
    year: int
    values: dict[str, str]


class Table(Model):
    """The entity × period table: row headers, columns in pack order, rows entity-major."""

    entity_label: str
    period_label: str | None
    columns: tuple[Column, ...]
    rows: tuple[TableRow, ...]
    structure: TableStructure | None = None
    """How the table is shown (:class:`hopvista.model.structure.TableStructure`): a header
    of several levels, merged cells, related tables; absent from the JSON of a table built
    without ``--structure``."""

    @model_serializer(mode="wrap")
    def _without_absent_structure(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and "structure" in data and data["structure"] is None:
            del data["structure"]
        return data


class MergedCell(Closed):
    """A merged cell of a :class:`GridTable`: the ``rows`` × ``cols`` cells from grid
    ``(row, col)`` (row 0 the header row) show as one cell; every cell it covers holds the
    text of its first."""

    row: int = Field(ge=0)
    col: int = Field(ge=0)
    rows: int = Field(ge=1)
    cols: int = Field(ge=1)


_GRID_DEFAULTS: dict[str, Any] = {"header_rows": 1, "label_cols": 1, "merged": (),
                                  "row_levels": ()}
"""A :class:`GridTable`'s structure fields at their defaults, left out of its JSON (a flat
grid's bytes are those of a grid without them)."""


class GridTable(Closed):
    """A table as a grid of cell texts (an imported dataset's table): ``header`` is the first
    row, each of ``rows`` has as many cells as the header.

    A hierarchical table (HiTab's) says how its grid reads: ``header_rows`` leading rows are
    column headers (``header`` and the first ``header_rows - 1`` of ``rows``, top level first),
    ``label_cols`` leading columns label a row, ``merged`` cells span several grid cells, and
    ``row_levels`` gives each body row's depth in the row hierarchy (0 the top level). Left
    at their defaults (a flat grid) they are absent from the JSON."""

    caption: str | None = None
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    header_rows: int = Field(default=1, ge=1)
    label_cols: int = Field(default=1, ge=0)
    merged: tuple[MergedCell, ...] = ()
    row_levels: tuple[int, ...] = ()

    @model_serializer(mode="wrap")
    def _without_default_structure(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key, default in _GRID_DEFAULTS.items():
                if key in data and (data[key] == default
                                    or (default == () and len(data[key]) == 0)):
                    del data[key]
        return data

    @model_validator(mode="after")
    def _structure_fits(self) -> GridTable:
        height, width = len(self.rows) + 1, len(self.header)
        if self.header_rows > height:
            raise ValueError(f"header_rows {self.header_rows} exceeds the grid's {height} rows")
        if self.label_cols > width:
            raise ValueError(f"label_cols {self.label_cols} exceeds the grid's {width} columns")
        for m in self.merged:
            if m.row + m.rows > height or m.col + m.cols > width:
                raise ValueError(f"merged cell at ({m.row}, {m.col}) spanning {m.rows} x "
                                 f"{m.cols} lies outside the grid")
        if self.row_levels and len(self.row_levels) != height - self.header_rows:
            raise ValueError(f"row_levels gives {len(self.row_levels)} levels for "
                             f"{height - self.header_rows} body rows")
        return self

    @property
    def body_rows(self) -> tuple[tuple[str, ...], ...]:
        """The rows below the header rows."""
        return self.rows[self.header_rows - 1:]

    @property
    def column_headers(self) -> tuple[str, ...]:
        """Each column's header as one text: the texts of its header rows top to bottom, each
        once (a merged cell's text repeated below it is not repeated), joined by ``" / "``
        (``header`` itself for a table of one header row)."""
        if self.header_rows == 1:
            return self.header
        heads = (self.header, *self.rows[:self.header_rows - 1])
        joined = []
        for c in range(len(self.header)):
            parts: list[str] = []
            for row in heads:
                text = row[c].strip()
                if text and text not in parts:
                    parts.append(text)
            joined.append(" / ".join(parts))
        return tuple(joined)


class Series(Model):
    """One entity's chart values, aligned with the chart's years."""

    entity: str
    values: tuple[str, ...]


class Chart(Model):
    """The chart column's series (the column is not in the table) and how it is drawn."""

    column: Column
    years: tuple[int, ...]
    series: tuple[Series, ...]
    kind: str


class Inputs(Model):
    """Everything an item shows as data; absent modalities are empty or ``None``.
    ``visuals`` are the pictures in a grid table's cells (an ``mmtable`` item's); absent
    from the JSON when there are none."""

    text: tuple[TextChunk, ...] = ()
    table: Table | GridTable | None = None
    chart: Chart | None = None
    visuals: tuple[Visual, ...] = ()

    @model_serializer(mode="wrap")
    def _without_absent_visuals(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("visuals", 0) == []:
            del data["visuals"]
        return data
