"""A table as a grid of logical cells, and the ways a variant may lay it out.

Every cell keeps its *logical* coordinates whatever the layout: row 0 is the header row, body
rows count from 1; column 0 is the first column (the entity of a generated table, then the
period, then the value columns; an imported table's columns in its own order). A layout only
decides where and how cells are shown: in which order, transposed, with merged (spanning)
cells, with a second header level, split into panels with their headers repeated. So a layout
never changes what a cell says, and the recorded box of every cell can be found by its logical
coordinates on any variant.

Functions here are pure: they return new objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hopvista.model.inputs import GridTable, Table

ENTITY, PERIOD, NUM, TEXT, HEAD = "entity", "period", "num", "text", "head"


@dataclass(frozen=True)
class Cell:
    """One logical cell: its coordinates, the text it shows and its kind (``entity``,
    ``period``, ``num``, ``text`` for a body cell; ``head`` for a header cell)."""

    row: int
    col: int
    text: str
    kind: str


@dataclass(frozen=True)
class Grid:
    """A logical table: ``rows[0]`` is the header row; ``label_cols`` leading columns label a
    row (entity and period of a generated table; the first column of an imported one).

    A hierarchical table (an imported HiTab table) has ``head_rows`` header rows (a
    multi-level header), ``merged`` cells as logical ``(row, col, rows, cols)`` whose covered
    cells hold the first cell's text, and ``levels``: ``(row, depth)`` of the body rows below
    the top level of the row hierarchy."""

    caption: str | None
    rows: tuple[tuple[Cell, ...], ...]
    label_cols: int = 1
    head_rows: int = 1
    merged: tuple[tuple[int, int, int, int], ...] = ()
    levels: tuple[tuple[int, int], ...] = ()

    @property
    def body(self) -> tuple[tuple[Cell, ...], ...]:
        """The body rows, in display order."""
        return self.rows[self.head_rows:]

    @property
    def width(self) -> int:
        """The number of columns."""
        return len(self.rows[0]) if self.rows else 0

    def cell(self, row: int, col: int) -> Cell:
        """The cell at logical ``(row, col)``."""
        for shown in self.rows:
            for cell in shown:
                if (cell.row, cell.col) == (row, col):
                    return cell
        raise KeyError((row, col))


def grid_of_table(table: Table | GridTable, names: Mapping[str, str]) -> Grid:
    """The logical grid of an item's table (``names``: entity id → display name).

    A generated table reads as the renderer shows it (:func:`hopvista.render.table.render_html`):
    header labels carry their unit unless all columns share one (then it is the caption).
    """
    if isinstance(table, GridTable):
        return _grid_of_grid_table(table)
    units = {c.unit for c in table.columns}
    shared = units.pop() if len(units) == 1 else None
    first = 1 if table.period_label is None else 2
    header = [Cell(0, 0, table.entity_label, HEAD)]
    if table.period_label is not None:
        header.append(Cell(0, 1, table.period_label, HEAD))
    for i, column in enumerate(table.columns):
        label = column.label if shared is not None or not column.unit \
            else f"{column.label} ({column.unit})"
        header.append(Cell(0, first + i, label, HEAD))
    period_format = str((table.model_extra or {}).get("period_format") or "{}")
    rows: list[tuple[Cell, ...]] = [tuple(header)]
    for r, row in enumerate(table.rows, start=1):
        cells = [Cell(r, 0, names.get(row.entity, row.entity), ENTITY)]
        if table.period_label is not None:
            cells.append(Cell(r, 1, period_format.replace("{}", str(row.year)), PERIOD))
        cells += [Cell(r, first + i, row.values[c.key], NUM) for i, c in enumerate(table.columns)]
        rows.append(tuple(cells))
    return Grid(shared or None, tuple(rows), first)


def _grid_of_grid_table(table: GridTable) -> Grid:
    """The logical grid of an imported table, with its header rows, merged cells and row
    levels."""
    def kind(r: int, c: int) -> str:
        if r < table.header_rows:
            return HEAD
        return ENTITY if c < table.label_cols else TEXT

    rows = tuple(tuple(Cell(r, c, text, kind(r, c)) for c, text in enumerate(row))
                 for r, row in enumerate((table.header, *table.rows)))
    levels = tuple((table.header_rows + i, level)
                   for i, level in enumerate(table.row_levels) if level)
    return Grid(table.caption, rows, table.label_cols, table.header_rows,
                tuple((m.row, m.col, m.rows, m.cols) for m in table.merged), levels)


# -- transformations of the grid (display order; logical coordinates kept) ------------------


def order_rows(grid: Grid, order: Sequence[int]) -> Grid:
    """The grid with its body rows shown in ``order`` (indices into ``grid.body``)."""
    if sorted(order) != list(range(len(grid.body))):
        raise ValueError("order_rows: not a permutation of the body rows")
    return replace(grid, rows=(*grid.rows[:grid.head_rows], *(grid.body[i] for i in order)))


def order_columns(grid: Grid, order: Sequence[int]) -> Grid:
    """The grid with its columns shown in ``order`` (display positions)."""
    if sorted(order) != list(range(grid.width)):
        raise ValueError("order_columns: not a permutation of the columns")
    return replace(grid, rows=tuple(tuple(row[i] for i in order) for row in grid.rows))


def blank(grid: Grid, cells: Iterable[tuple[int, int]], token: str) -> Grid:
    """The grid with the cells at logical ``cells`` showing ``token`` ("" for an empty cell)."""
    wanted = set(cells)
    return replace(grid, rows=tuple(
        tuple(replace(c, text=token) if (c.row, c.col) in wanted else c for c in row)
        for row in grid.rows))


# -- layouts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A cell as displayed. ``at`` is the logical cell it shows (``None`` for a cell a layout
    adds, such as a group header); ``covers`` the other logical cells a merged cell stands for;
    ``copy`` marks a header repeated for the reader (its first showing is the cell's own box)."""

    text: str
    kind: str
    at: tuple[int, int] | None
    head: bool
    rowspan: int = 1
    colspan: int = 1
    covers: tuple[tuple[int, int], ...] = ()
    copy: bool = False
    mark: str | None = None
    """Counterfactual markup drawn on the cell (``highlight``, ``underline``, ``bold``)."""
    colour: str | None = None
    """A highlight's colour by name (a key of :data:`hopvista.model.task.COLOURS`), when the
    look names colours; ``None``: the look's one colour."""
    indent: int = 0
    """How deep in the row hierarchy the row this label cell heads lies (shown indented)."""


@dataclass(frozen=True)
class Panel:
    """One table as displayed: ``rows`` of shown cells, the first ``head_rows`` of them in the
    table head, and its caption."""

    rows: tuple[tuple[Shown, ...], ...]
    head_rows: int
    caption: str | None


@dataclass(frozen=True)
class Layout:
    """What a variant shows: one or more panels and how they are arranged (``stack``: one
    above the other; ``side``: side by side)."""

    panels: tuple[Panel, ...]
    arrange: str = "stack"


def _shown(cell: Cell, copy: bool = False) -> Shown:
    return Shown(cell.text, cell.kind, (cell.row, cell.col), cell.kind == HEAD, copy=copy)


def plain(grid: Grid) -> Layout:
    """The grid as one table: its header rows, then its body rows; a hierarchical table's
    merged cells span what they cover and its row labels are indented by level."""
    rows = [[_indented(c, grid) for c in row] for row in grid.rows]
    return Layout((Panel(_spanned(rows, grid), grid.head_rows, grid.caption),))


def _indented(cell: Cell, grid: Grid) -> Shown:
    """A cell as shown, indented when it is the last label cell of a row below the top level
    of the row hierarchy."""
    shown = _shown(cell)
    if grid.levels and cell.kind != HEAD and cell.col == grid.label_cols - 1:
        return replace(shown, indent=dict(grid.levels).get(cell.row, 0))
    return shown


def _spanned(rows: list[list[Shown]], grid: Grid) -> tuple[tuple[Shown, ...], ...]:
    """Displayed rows with each of ``grid.merged`` shown as one cell where it can be: its cells
    side by side as logically, all holding its first cell's text, all in the head or all in
    the body. Any other region is shown cell by cell (each cell shows its own text)."""
    where = {cell.at: (i, j) for i, row in enumerate(rows) for j, cell in enumerate(row)}
    gone: set[tuple[int, int]] = set()
    for top, left, height, width in grid.merged:
        first = where.get((top, left))
        if first is None:
            continue
        i0, j0 = first
        core = rows[i0][j0]
        spots = {(top + dr, left + dc): (i0 + dr, j0 + dc)
                 for dr in range(height) for dc in range(width)}
        fits = all(where.get(at) == spot and rows[spot[0]][spot[1]].text == core.text
                   and spot not in gone for at, spot in spots.items())
        if not fits or (i0 < grid.head_rows < i0 + height):
            continue
        covers = tuple(at for at in spots if at != (top, left))
        rows[i0][j0] = replace(core, rowspan=height, colspan=width, covers=covers)
        gone |= {spot for at, spot in spots.items() if at != (top, left)}
    return tuple(tuple(cell for j, cell in enumerate(row) if (i, j) not in gone)
                 for i, row in enumerate(rows))


def transposed(grid: Grid) -> Layout:
    """The grid with rows and columns swapped: each logical column becomes a displayed row
    whose first cell is its header."""
    rows = tuple(
        tuple(replace(_shown(row[c]), head=row[c].kind == HEAD or i < 1)
              for i, row in enumerate(grid.rows))
        for c in range(grid.width))
    return Layout((Panel(rows, 0, grid.caption),))


def merged(layout: Layout, column: int = 0) -> Layout:
    """Runs of equal text in displayed ``column`` of each panel's body merged into one spanning
    cell (an entity named once for its periods). The merged cell shows the first logical cell of
    the run and covers the others."""
    panels = []
    for panel in layout.panels:
        head, body = panel.rows[:panel.head_rows], [list(r) for r in panel.rows[panel.head_rows:]]
        if any(c.rowspan > 1 for r in body for c in r):  # the table's own merged cells stay
            panels.append(panel)
            continue
        out: list[list[Shown]] = []
        start = 0
        while start < len(body):
            end = start + 1
            first = body[start][column]
            while end < len(body) and body[end][column].text == first.text and \
                    body[end][column].at is not None and first.at is not None:
                end += 1
            covers = tuple(at for i in range(start + 1, end)
                           if (at := body[i][column].at) is not None)
            for i in range(start, end):
                row = list(body[i])
                if i == start:
                    row[column] = replace(first, rowspan=end - start, covers=covers)
                else:
                    del row[column]
                out.append(row)
            start = end
        panels.append(replace(panel, rows=(*head, *(tuple(r) for r in out))))
    return replace(layout, panels=tuple(panels))


def pivoted(grid: Grid) -> Layout | None:
    """A generated entity × period table pivoted to one row per entity with a two-level header:
    each value column's label spans its periods, the periods below it. ``None`` when the grid
    has no period column, or its entities do not show the same periods in the same order.

    The first column group's period cells stand for (cover) the same period of every entity;
    the later groups repeat them (copies)."""
    if grid.label_cols != 2 or grid.head_rows != 1:
        return None
    header = grid.rows[0]
    entities: dict[str, list[tuple[Cell, ...]]] = {}
    for row in grid.body:
        entities.setdefault(row[0].text, []).append(row)
    groups = list(entities.values())
    periods = [r[1].text for r in groups[0]]
    if any([r[1].text for r in rows] != periods for rows in groups):
        return None
    count = len(periods)
    top = [_shown(header[0])]
    second: list[Shown] = [_shown(header[1])]  # the period heading labels the periods row
    for g, c in enumerate(range(2, grid.width)):
        top.append(replace(_shown(header[c]), colspan=count))
        for k in range(count):
            covers = tuple((rows[k][1].row, 1) for rows in groups[1:]) if g == 0 else ()
            second.append(replace(_shown(groups[0][k][1], copy=g > 0), head=True,
                                  covers=covers))
    rows: list[tuple[Shown, ...]] = [tuple(top), tuple(second)]
    for ordered in groups:
        cells = [replace(_shown(ordered[0][0]),
                         covers=tuple((r[0].row, r[0].col) for r in ordered[1:]))]
        for c in range(2, grid.width):
            cells += [_shown(ordered[k][c]) for k in range(count)]
        rows.append(tuple(cells))
    return Layout((Panel(tuple(rows), 2, grid.caption),))


def split_rows(grid: Grid, parts: int) -> Layout:
    """The body cut into ``parts`` consecutive panels (as equal as may be, never cutting an
    entity's run of rows when the grid has periods), each under a copy of the header row."""
    bounds = _cuts([row[0].text for row in grid.body], parts, grid.label_cols == 2)
    panels = []
    for n, (start, end) in enumerate(bounds):
        head = [[_shown(c, copy=n > 0) for c in row] for row in grid.rows[:grid.head_rows]]
        rows = [[_indented(c, grid) for c in row] for row in grid.body[start:end]]
        panels.append(Panel(_spanned([*head, *rows], grid), grid.head_rows,
                            grid.caption if n == 0 else None))
    return Layout(tuple(panels))


def split_columns(grid: Grid, parts: int) -> Layout:
    """The value columns cut into ``parts`` panels, each repeating the row-label columns."""
    labels, values = grid.label_cols, list(range(grid.label_cols, grid.width))
    bounds = _cuts([str(i) for i in values], parts, False)
    panels = []
    for n, (start, end) in enumerate(bounds):
        keep = list(range(labels)) + values[start:end]
        rows = [[replace(_indented(row[i], grid), copy=n > 0 and i < labels) for i in keep]
                for row in grid.rows]
        panels.append(Panel(_spanned(rows, grid), grid.head_rows,
                            grid.caption if n == 0 else None))
    return Layout(tuple(panels), arrange="side")


def _cuts(keys: Sequence[str], parts: int, whole_runs: bool) -> list[tuple[int, int]]:
    """``parts`` consecutive (start, end) ranges over ``keys``; with ``whole_runs`` a cut only
    falls where the key changes."""
    n = len(keys)
    allowed = [i for i in range(1, n) if not whole_runs or keys[i] != keys[i - 1]]
    parts = max(1, min(parts, len(allowed) + 1))
    cuts: list[int] = []
    for k in range(1, parts):
        target = round(k * n / parts)
        best = min((i for i in allowed if i not in cuts and (not cuts or i > cuts[-1])),
                   key=lambda i: abs(i - target), default=None)
        if best is not None:
            cuts.append(best)
    edges = [0, *cuts, n]
    return [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]


def layout_json(layout: Layout) -> dict[str, Any]:
    """A compact record of a layout: panels' sizes and arrangement (for a variant's record)."""
    return {"arrange": layout.arrange, "panels": [
        {"rows": len(p.rows), "head_rows": p.head_rows,
         "cols": max((sum(c.colspan for c in r) for r in p.rows), default=0)}
        for p in layout.panels]}


def shown_cells(layout: Layout) -> set[tuple[int, int]]:
    """Every logical cell the layout shows (merged cells count for what they cover)."""
    found: set[tuple[int, int]] = set()
    for panel in layout.panels:
        for row in panel.rows:
            for cell in row:
                if cell.at is not None:
                    found.add(cell.at)
                found.update(cell.covers)
    return found


def marked(layout: Layout, marks: Mapping[tuple[int, int], str],
           colours: Mapping[tuple[int, int], str | None] | None = None) -> Layout:
    """The layout with markup ``marks`` (logical cell → style, and a highlight's colour name
    in ``colours``) on each cell's own showing (never on a repeated copy)."""
    def mark(cell: Shown) -> Shown:
        if cell.copy or cell.at is None or cell.at not in marks:
            return cell
        return replace(cell, mark=marks[cell.at], colour=(colours or {}).get(cell.at))

    return replace(layout, panels=tuple(
        replace(panel, rows=tuple(tuple(mark(c) for c in row) for row in panel.rows))
        for panel in layout.panels))


# -- wrapping a table too wide or too tall for one image --------------------------------------


def _placed(panel: Panel) -> list[list[tuple[int, Shown]]]:
    """Each displayed row's cells with the displayed column each starts at (cells spanning
    rows from above take their columns)."""
    taken: set[tuple[int, int]] = set()
    placed: list[list[tuple[int, Shown]]] = []
    for r, row in enumerate(panel.rows):
        col, cells = 0, []
        for cell in row:
            while (r, col) in taken:
                col += 1
            cells.append((col, cell))
            taken.update((r + dr, col + dc) for dr in range(cell.rowspan)
                         for dc in range(cell.colspan))
            col += cell.colspan
        placed.append(cells)
    return placed


def _repeated(cell: Shown) -> Shown:
    """A cell shown again for the reader: a copy, standing for no other cell, unmarked."""
    return replace(cell, copy=True, covers=(), mark=None, colour=None)


def _label_columns(placed: list[list[tuple[int, Shown]]], head_rows: int, width: int) -> int:
    """How many leading columns label the rows (every body cell in them a heading, an entity
    or a period), at most two and fewer than ``width``: they are repeated in every band."""
    keep = 0
    while keep < min(2, width - 1):
        starts = [cell for row in placed[head_rows:] for col, cell in row if col == keep]
        if not starts or not all(c.head or c.kind in (ENTITY, PERIOD) for c in starts):
            break
        keep += 1
    return keep


def _bands(start: int, end: int, bands: int, allowed: Sequence[int]) -> list[tuple[int, int]]:
    """``bands`` consecutive ranges over ``[start, end)`` as equal as may be, cut only at
    ``allowed`` positions (fewer when there are not enough of them)."""
    cuts: list[int] = []
    for k in range(1, bands):
        target = start + round(k * (end - start) / bands)
        best = min((i for i in allowed if (not cuts or i > cuts[-1])),
                   key=lambda i: abs(i - target), default=None)
        if best is not None and best not in cuts:
            cuts.append(best)
    edges = [start, *cuts, end]
    return [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]


def wrap_columns(layout: Layout, bands: int) -> Layout | None:
    """The layout with each panel's columns cut into ``bands`` panels one above the other,
    each repeating the row-label columns (copies), cut only where no cell spans the cut: a
    table too wide for one image, as a document wraps it. ``None`` when no panel can be cut."""
    panels: list[Panel] = []
    cut = False
    for panel in layout.panels:
        placed = _placed(panel)
        width = max((col + cell.colspan for row in placed for col, cell in row), default=0)
        crossing = {b for row in placed for col, cell in row
                    for b in range(col + 1, col + cell.colspan)}
        keep = _label_columns(placed, panel.head_rows, width)
        if keep in crossing:
            keep = 0
        allowed = [b for b in range(keep + 1, width) if b not in crossing]
        ranges = _bands(keep, width, bands, allowed)
        cut = cut or len(ranges) > 1
        for n, (start, end) in enumerate(ranges):
            rows = tuple(
                tuple([c if n == 0 else _repeated(c) for col, c in row if col < keep]
                      + [c for col, c in row if start <= col < end])
                for row in placed)
            panels.append(Panel(rows, panel.head_rows, panel.caption if n == 0 else None))
    return Layout(tuple(panels), "stack") if cut else None


def wrap_rows(layout: Layout, bands: int) -> Layout | None:
    """The layout with each panel's body rows cut into ``bands`` panels side by side, each
    under a copy of the header rows, cut only where no cell spans the cut: a table too tall
    for one image, in columns as a newspaper sets it. ``None`` when no panel can be cut."""
    panels: list[Panel] = []
    cut = False
    for panel in layout.panels:
        body = panel.rows[panel.head_rows:]
        placed = _placed(panel)[panel.head_rows:]
        crossing = {b for r, row in enumerate(placed) for _, cell in row
                    for b in range(r + 1, r + cell.rowspan)}
        allowed = [b for b in range(1, len(body)) if b not in crossing]
        ranges = _bands(0, len(body), bands, allowed)
        cut = cut or len(ranges) > 1
        for n, (start, end) in enumerate(ranges):
            head = panel.rows[:panel.head_rows] if n == 0 else tuple(
                tuple(_repeated(c) for c in row) for row in panel.rows[:panel.head_rows])
            panels.append(Panel((*head, *body[start:end]), panel.head_rows,
                                panel.caption if n == 0 else None))
    return Layout(tuple(panels), "side") if cut else None


def restacked(layout: Layout, arrange: str) -> Layout | None:
    """The layout's panels arranged ``arrange`` (``stack`` or ``side``) instead; ``None`` when
    it has one panel or is arranged so already."""
    if len(layout.panels) < 2 or layout.arrange == arrange:
        return None
    return replace(layout, arrange=arrange)
