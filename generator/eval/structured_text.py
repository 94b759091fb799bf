"""A structured table as a text setting shows it: the structure its image shows, in JSON.

A generated table with a ``structure`` (``gen build --structure``, docs/format.md section 2.6)
is shown as text the way its image shows it, so a text setting asks the question the image
asks (:func:`structured_rows`):

* ``multi-table``: an object keyed by each related table's title, in display order, each
  table one object per row holding its join keys (the entity and, with a period axis, the
  period) and its own columns;
* ``text-mixed``: the noted column's values only as the sentences of a ``Notes`` column, last;
* ``complex``: the header levels as nested keys (a column group over its columns, a column
  over its periods when the periods are a header level); an entity named once for its
  periods is named on each of its rows;
* ``long`` in long format: one object per value (the row's entity and period, ``Measure``:
  the column's heading, ``Value``).

Any other table (no structure, ``simple``, a ``long`` table of many rows, a variant's) is the
flat grid of :func:`hopvista.eval.prompts.table_json`.
:func:`hopvista.eval.table_text.table_text` writes these as pipe-separated rows or Markdown:
nested keys joined by ``" / "`` as :attr:`hopvista.model.inputs.GridTable.column_headers`
joins a hierarchical header, and each related table under its title.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hopvista.augment.structures import MEASURE_HEADERS, NOTES_HEADER, note_texts
from hopvista.model import Item
from hopvista.model.inputs import Column, Table, TableRow
from hopvista.model.structure import ColumnGroup, TablePart

Record = dict[str, Any]


def column_heading(label: str, unit: str) -> str:
    """A column's heading in a table given as text: its label with its unit."""
    return f"{label} ({unit})" if unit else label


def structured_rows(item: Item) -> list[Record] | dict[str, list[Record]] | None:
    """The item's table as its structure shows it (the module's docstring), ready for JSON;
    ``None`` when the table is shown as one flat grid. A variant ``gen augment`` made of a
    structured base shows the base's structure too (docs/augment.md, "Structured bases")."""
    table = item.inputs.table
    if not isinstance(table, Table) or table.structure is None:
        return None
    structure = table.structure
    names = {e.id: e.name for e in item.entities}
    if structure.notes is not None:
        return _with_notes(table, names, structure.notes.column)
    if structure.long_format:
        return _long_format(table, names)
    if structure.tables:
        return _related_tables(table, names, structure.tables)
    if structure.periods_across:
        return _periods_across(table, names, structure.groups)
    if structure.groups:
        return [_join_keys(table, names, row) | _grouped(table, row, structure.groups)
                for row in table.rows]
    return None


def _join_keys(table: Table, names: Mapping[str, str], row: TableRow) -> Record:
    """The cells that label ``row``: its entity's name and, with a period axis, its period."""
    keys: Record = {table.entity_label: names.get(row.entity, row.entity)}
    if table.period_label:
        keys[table.period_label] = row.year
    return keys


def _values(row: TableRow, columns: Sequence[Column]) -> Record:
    """``row``'s values of ``columns`` by heading."""
    return {column_heading(c.label, c.unit): row.values[c.key]
            for c in columns if c.key in row.values}


def _columns(table: Table, keys: Sequence[str]) -> list[Column]:
    """The columns of ``keys``, in that order."""
    by_key = {c.key: c for c in table.columns}
    return [by_key[key] for key in keys]


def _grouped(table: Table, row: TableRow, groups: Sequence[ColumnGroup]) -> Record:
    """``row``'s values under each group's label, group by group."""
    return {group.label: _values(row, _columns(table, group.columns)) for group in groups}


def _periods_across(table: Table, names: Mapping[str, str],
                    groups: Sequence[ColumnGroup]) -> list[Record]:
    """One object per entity: each column's values by period, under its group's label when
    the table has groups."""
    period_format = str((table.model_extra or {}).get("period_format") or "{}")
    by_entity: dict[str, list[TableRow]] = {}
    for row in table.rows:
        by_entity.setdefault(row.entity, []).append(row)

    def by_period(rows: Sequence[TableRow], columns: Sequence[Column]) -> Record:
        return {column_heading(c.label, c.unit): {
            period_format.replace("{}", str(row.year)): row.values[c.key]
            for row in rows if c.key in row.values} for c in columns}

    records = []
    for entity, rows in by_entity.items():
        record: Record = {table.entity_label: names.get(entity, entity)}
        if groups:
            record |= {g.label: by_period(rows, _columns(table, g.columns)) for g in groups}
        else:
            record |= by_period(rows, table.columns)
        records.append(record)
    return records


def _with_notes(table: Table, names: Mapping[str, str], noted: str) -> list[Record]:
    """One object per row, the noted column's value given only as its sentence, last."""
    sentences = {r: text for (r, _), text in note_texts(table, names).items() if r}
    shown = [c for c in table.columns if c.key != noted]
    return [_join_keys(table, names, row) | _values(row, shown) | {NOTES_HEADER: sentences[r]}
            for r, row in enumerate(table.rows, start=1)]


def _long_format(table: Table, names: Mapping[str, str]) -> list[Record]:
    """One object per value: the row's join keys, the column's heading and the value."""
    measure, value = MEASURE_HEADERS
    return [_join_keys(table, names, row) | {measure: column_heading(c.label, c.unit),
                                             value: row.values[c.key]}
            for row in table.rows for c in table.columns if c.key in row.values]


def _related_tables(table: Table, names: Mapping[str, str],
                    parts: Sequence[TablePart]) -> dict[str, list[Record]]:
    """Each related table by its title: its rows' join keys and its own columns."""
    tables: dict[str, list[Record]] = {}
    for part in parts:
        title, n = part.title, 1
        while title in tables:
            n += 1
            title = f"{part.title} ({n})"
        columns = _columns(table, part.columns)
        tables[title] = [_join_keys(table, names, row) | _values(row, columns)
                         for row in table.rows
                         if row.entity in part.entities and row.year in part.years]
    return tables
