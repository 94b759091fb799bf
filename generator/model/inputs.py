"""What an item shows the model as data: text chunks, a table, a chart (docs/format.md, 2.2).

Numbers are *displayed strings* (``"1,105.5"``): labels are computed from what is shown.
Two table shapes exist: the generator's entity × period panel (:class:`Table`), and a plain
grid of header and rows (:class:`GridTable`) for tables read from existing datasets (short
answer table QA).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

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


class GridTable(Closed):
    """A table as a grid of cell texts (an imported dataset's table): ``header`` is the first
    row, each of ``rows`` has as many cells as the header."""

    caption: str | None = None
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


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
