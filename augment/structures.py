"""A generated table's structure as a layout, and the attributes an item records.

:func:`structured_layout` turns a table's ``structure`` (:class:`TableStructure`) into the
:class:`~hopvista.augment.grid.Layout` its image shows: a header of two or three levels, merged
cells, or several related tables. Every cell keeps its logical coordinates
(:mod:`hopvista.augment.grid`), so the recorded box of every logical cell is found whatever the
structure, and a label proved from the logical table is proved from what is shown.
:func:`item_attributes` computes an item's attributes from its table's layout and its
statements' programs; a build records them and ``gen verify`` computes them again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from hopvista.augment.grid import (
    HEAD,
    TEXT,
    Cell,
    Grid,
    Layout,
    Panel,
    Shown,
    grid_of_table,
    merged,
    order_columns,
    plain,
    shown_cells,
)
from hopvista.model.inputs import Table
from hopvista.model.item import Item
from hopvista.model.structure import Attributes, ColumnGroup, TablePart, TableStructure
from hopvista.program.skills import reasoning_steps, statement_skills

GROUP = "group"
"""The kind of a header cell a structure adds over columns (a group's label): it shows no
logical cell of the table."""

NOTE_FORMS = (
    "{entity}: {label} of {value}{unit} for {period}.",
    "For {period}, {label} was {value}{unit}.",
    "{label} for {period}: {value}{unit} ({entity}).",
)
"""The sentences a ``text-mixed`` table's notes state a value in (``{unit}`` is the column's
unit after a space, or nothing). They read right whatever the entities and the period axis
are (companies and years, materials and temperatures)."""
NOTE_FORMS_WITHOUT_PERIODS = (
    "{entity}: {label} of {value}{unit}.",
    "{label} was {value}{unit}.",
)
"""The sentences of notes in a table without a period axis."""
NOTES_HEADER = "Notes"
MEASURE_HEADERS = ("Measure", "Value")
"""The headers a long-format table adds over its columns' labels and their values."""

RICHNESS_STEPS = (50, 100, 150, 250)
"""Numbers shown (table values, chart points, ten for each passage) above which an item's
information richness is 2, 3, 4 and 5."""


def structured_layout(table: Table, names: Mapping[str, str]) -> Layout:
    """The layout showing ``table`` as its ``structure`` says (one plain table without one)."""
    return laid_out(shown_grid(table, names), table)


def shown_grid(table: Table, names: Mapping[str, str]) -> Grid:
    """The logical grid of ``table`` with each cell's text as its image shows it: a
    ``text-mixed`` table's noted column holds its sentences and is shown last."""
    grid = grid_of_table(table, names)
    if table.structure is None or table.structure.notes is None:
        return grid
    return _with_notes(grid, table, names)


def reshapes(table: Table) -> bool:
    """Whether ``table``'s structure shows it other than as one plain grid (header levels,
    merged cells, related tables, long format); a ``text-mixed`` table's notes column does
    not (:func:`shown_grid`)."""
    structure = table.structure
    return structure is not None and structure.notes is None and bool(
        structure.long_format or structure.tables or structure.periods_across
        or structure.groups or structure.merged_entities)


def laid_out(grid: Grid, table: Table) -> Layout:
    """``grid`` (``table``'s shown grid, its body rows in any order that keeps each entity's
    rows together and its cells' texts as a variant shows them) laid out as ``table``'s
    structure says."""
    structure = table.structure
    if structure is None or not reshapes(table):
        return plain(grid)
    if structure.long_format:
        return _long_format(grid)
    if structure.tables:
        return _parts(grid, table, structure.tables)
    if structure.periods_across:
        return _across(grid, table, structure.groups)
    layout = _grouped(grid, table, structure.groups) if structure.groups else plain(grid)
    return merged(layout) if structure.merged_entities else layout


def note_forms(table: Table) -> tuple[str, ...]:
    """The sentence forms notes in ``table`` may take (with or without a period)."""
    return NOTE_FORMS if table.period_label is not None else NOTE_FORMS_WITHOUT_PERIODS


def note_texts(table: Table, names: Mapping[str, str]) -> dict[tuple[int, int], str]:
    """What a ``text-mixed`` table shows in its notes column, by logical cell: the header
    :data:`NOTES_HEADER`, and each row's sentence stating its value of the noted column
    (nothing for a table without notes)."""
    notes = table.structure.notes if table.structure is not None else None
    if notes is None:
        return {}
    col = _column_index(table)[notes.column]
    column = next(c for c in table.columns if c.key == notes.column)
    period_format = str((table.model_extra or {}).get("period_format") or "{}")
    unit = f" {column.unit}" if column.unit else ""
    texts = {(0, col): NOTES_HEADER}
    for r, row in enumerate(table.rows, start=1):
        fields = {"entity": names.get(row.entity, row.entity), "label": column.label,
                  "value": row.values[notes.column], "unit": unit,
                  "period": period_format.replace("{}", str(row.year))}
        sentence = notes.form
        for name, value in fields.items():
            sentence = sentence.replace("{" + name + "}", value)
        if sentence.endswith(".."):  # a name ending in a full stop ends the sentence
            sentence = sentence[:-1]
        texts[(r, col)] = sentence[:1].upper() + sentence[1:]
    return texts


def _with_notes(grid: Grid, table: Table, names: Mapping[str, str]) -> Grid:
    """The grid with the noted column's cells showing their sentences, moved to the end."""
    texts = note_texts(table, names)
    col = next(c for _, c in texts)
    rows = tuple(
        tuple(replace(cell, text=texts[(cell.row, cell.col)], kind=cell.kind if cell.row == 0
                      else TEXT) if (cell.row, cell.col) in texts else cell for cell in row)
        for row in grid.rows)
    order = [c for c in range(grid.width) if c != col] + [col]
    return order_columns(replace(grid, rows=rows), order)


def _column_index(table: Table) -> dict[str, int]:
    """Each value column's logical column number."""
    first = 1 if table.period_label is None else 2
    return {c.key: first + i for i, c in enumerate(table.columns)}


def _own(cell: Cell, **changes: Any) -> Shown:
    """``cell`` shown as itself (a header cell as a header)."""
    shown = Shown(cell.text, cell.kind, (cell.row, cell.col), cell.kind == HEAD)
    return replace(shown, **changes)


def _group_cell(label: str, span: int) -> Shown:
    return Shown(label, GROUP, None, True, colspan=span)


def _grouped(grid: Grid, table: Table, groups: Sequence[ColumnGroup]) -> Layout:
    """Two header levels: each group's label over its columns' labels; the label columns
    span both levels. Columns are shown group by group."""
    index = _column_index(table)
    labels = grid.label_cols
    header = grid.rows[0]
    order = [index[key] for group in groups for key in group.columns]
    top = [_own(header[c], rowspan=2) for c in range(labels)]
    top += [_group_cell(group.label, len(group.columns)) for group in groups]
    second = [_own(header[c]) for c in order]
    body = [tuple([_own(row[c]) for c in range(labels)] + [_own(row[c]) for c in order])
            for row in grid.body]
    return Layout((Panel((tuple(top), tuple(second), *body), 2, grid.caption),))


def _across(grid: Grid, table: Table, groups: Sequence[ColumnGroup]) -> Layout:
    """One row per entity under a header of two levels (each column's label over its
    periods) or three (a group's label over those): the first column's periods stand for the
    period of every row, the later columns' repeat them."""
    index = _column_index(table)
    header = grid.rows[0]
    runs: dict[str, list[tuple[Cell, ...]]] = {}
    for row in grid.body:
        runs.setdefault(row[0].text, []).append(row)
    entities = list(runs.values())
    periods = len(entities[0])
    keys = [key for group in groups for key in group.columns] if groups else \
        [c.key for c in table.columns]
    levels = 3 if groups else 2
    top: list[Shown] = [_own(header[0], rowspan=levels - 1)]
    if groups:
        top += [_group_cell(group.label, len(group.columns) * periods) for group in groups]
    labels = [_own(header[index[key]], colspan=periods) for key in keys]
    years: list[Shown] = [_own(header[1])]
    for n, _key in enumerate(keys):
        for k in range(periods):
            first = entities[0][k][1]
            covers = tuple((rows[k][1].row, 1) for rows in entities[1:]) if n == 0 else ()
            years.append(_own(first, head=True, covers=covers, copy=n > 0))
    head = [tuple(top), tuple(labels), tuple(years)] if groups else \
        [tuple(top + labels), tuple(years)]
    body = []
    for rows in entities:
        cells = [_own(rows[0][0], covers=tuple((r[0].row, 0) for r in rows[1:]))]
        cells += [_own(rows[k][index[key]]) for key in keys for k in range(periods)]
        body.append(tuple(cells))
    return Layout((Panel((*head, *body), len(head), grid.caption),))


def _first_shown() -> Callable[[Cell], Shown]:
    """A function showing a cell as its own, and as a copy once it has been shown."""
    seen: set[tuple[int, int]] = set()

    def show(cell: Cell) -> Shown:
        at = (cell.row, cell.col)
        copy = at in seen
        seen.add(at)
        return _own(cell, copy=copy)

    return show


def _long_format(grid: Grid) -> Layout:
    """One row per value cell: the row's labels (entity, period), its column's label and the
    value, under the row labels' headers and :data:`MEASURE_HEADERS`. A label shown before
    is a copy."""
    labels = grid.label_cols
    header = grid.rows[0]
    show = _first_shown()

    top = [show(header[c]) for c in range(labels)]
    top += [Shown(text, GROUP, None, True) for text in MEASURE_HEADERS]
    body = [tuple([show(row[c]) for c in range(labels)] + [show(header[c]), show(row[c])])
            for row in grid.body for c in range(labels, grid.width)]
    return Layout((Panel((tuple(top), *body), 1, grid.caption),))


def _parts(grid: Grid, table: Table, parts: Sequence[TablePart]) -> Layout:
    """One table per part, one above the other: the join keys (the row's label cells) and the
    part's columns for its rows. A cell shown before (a header, a join key) is a copy."""
    index = _column_index(table)
    labels = grid.label_cols
    show = _first_shown()

    panels = []
    for part in parts:
        columns = list(range(labels)) + [index[key] for key in part.columns]
        rows = [tuple(show(grid.rows[0][c]) for c in columns)]
        for row in grid.body:
            logical = table.rows[row[0].row - 1]
            if logical.entity in part.entities and logical.year in part.years:
                rows.append(tuple(show(row[c]) for c in columns))
        caption = part.title if grid.caption is None else f"{part.title} ({grid.caption})"
        panels.append(Panel(tuple(rows), 1, caption))
    return Layout(tuple(panels))


def layout_problem(table: Table, layout: Layout) -> str | None:
    """Why ``layout`` does not show every logical cell of ``table`` exactly once in its own
    showing (copies aside), or ``None``."""
    grid_cells = {(c.row, c.col) for row in grid_of_table(table, {}).rows for c in row}
    own: list[tuple[int, int]] = []
    for panel in layout.panels:
        for shown in panel.rows:
            for cell in shown:
                if cell.at is not None and not cell.copy:
                    own.append(cell.at)
                own.extend(cell.covers)
    if len(own) != len(set(own)):
        return "shows a cell twice"
    missing = grid_cells - shown_cells(layout)
    if missing:
        row, col = min(missing)
        return f"does not show row {row} col {col}"
    extra = set(own) - grid_cells
    if extra:
        row, col = min(extra)
        return f"shows row {row} col {col}, which the table does not have"
    return None


def structure_problem(table: Table) -> str | None:
    """Why ``table.structure`` does not describe ``table`` (its groups and parts name the
    table's columns, entities and periods, each value column in one group, each value cell in
    one part), or ``None``."""
    structure = table.structure
    if structure is None:
        return None
    keys = [c.key for c in table.columns]
    if structure.groups:
        grouped = [key for group in structure.groups for key in group.columns]
        if sorted(grouped) != sorted(keys):
            return "structure.groups do not hold every column of the table once"
    if structure.periods_across and table.period_label is None:
        return "structure.periods_across, but the table has no periods"
    if structure.tables:
        if not 2 <= len(structure.tables) <= 5:
            return f"structure.tables holds {len(structure.tables)} tables, not 2 to 5"
        shown = [(e, y, key) for part in structure.tables for key in part.columns
                 for e in part.entities for y in part.years]
        wanted = [(row.entity, row.year, key) for row in table.rows for key in keys]
        if sorted(shown) != sorted(wanted):
            return "structure.tables do not show every value cell of the table once"
    elif structure.type == "multi-table":
        return "a multi-table structure without structure.tables"
    if structure.notes is not None:
        if structure.notes.column not in keys:
            return f"structure.notes.column {structure.notes.column!r} is not a column of the table"
        if structure.notes.form not in note_forms(table):
            return "structure.notes.form is not one of the sentence forms notes take"
    elif structure.type == "text-mixed":
        return "a text-mixed structure without structure.notes"
    if structure.long_format and structure.type != "long":
        return "structure.long_format, but the structure is not long"
    if structure.type == "complex" and not (structure.groups or structure.periods_across):
        return "a complex structure without header levels (groups or periods_across)"
    return None


def _richness(item: Item) -> int:
    """Information richness 1-5 from the numbers the item shows (:data:`RICHNESS_STEPS`)."""
    inputs = item.inputs
    table = inputs.table
    numbers = sum(len(row.values) for row in table.rows) if isinstance(table, Table) else 0
    if inputs.chart is not None:
        numbers += sum(len(series.values) for series in inputs.chart.series)
    numbers += 10 * len(inputs.text)
    return 1 + sum(numbers > step for step in RICHNESS_STEPS)


def item_attributes(item: Item) -> Attributes:
    """The attributes of a generated item whose table has a structure: its structure type,
    the layout features of its table as shown, its richness, skills and reasoning steps."""
    table = item.inputs.table
    if not isinstance(table, Table) or table.structure is None:
        raise ValueError("item_attributes: the item's table has no structure")
    layout = structured_layout(table, {e.id: e.name for e in item.entities})
    statements = [s.model_dump(mode="json") for s in item.statements]
    merged_cells = sum(1 for panel in layout.panels for row in panel.rows for cell in row
                       if cell.rowspan > 1 or cell.colspan > 1)
    return Attributes.model_validate({
        "structure": table.structure.type,
        "layout": {"header_levels": max(p.head_rows for p in layout.panels),
                   "merged_cells": merged_cells, "tables": len(layout.panels),
                   "rows": len(table.rows), "columns": len(table.columns)},
        "richness": _richness(item),
        "skills": statement_skills(statements),
        "steps": max(1, reasoning_steps(statements)),
    })


def with_structure(table: Table, structure: TableStructure) -> Table:
    """``table`` shown as ``structure`` says (a new table)."""
    return table.model_copy(update={"structure": structure})
