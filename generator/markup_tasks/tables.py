"""Where markup tasks get their tables: a domain's world, or an existing dataset's records.

``--tables DOMAIN`` (a built-in domain or a pack folder; ``financial`` by default) draws a
fresh table per task from the domain's source: four to eight entities, and either three to
five columns of one period or one column over the periods. ``--tables PATH`` reads an
existing dataset (:mod:`hopvista.sources.imports`, any format it knows) and uses the tables
of its records that a task can be drawn on: at least three body rows and a value column,
distinct non-empty row labels and column headers, the corner above the labels
possibly empty (a multi-level header read as one row: each
column's header texts top to bottom, ``2019 / men``). A larger table is cut to its first
:data:`MAX_ROWS` rows and :data:`MAX_COLS` columns (the task is about the table it shows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hopvista.augment.grid import grid_of_table
from hopvista.building.config import BuildConfig
from hopvista.building.workers import load_state
from hopvista.display import fmt
from hopvista.errors import UserError
from hopvista.markup_tasks.subtasks import TaskTable, Unsuitable
from hopvista.model.inputs import GridTable, Table
from hopvista.rng import Streams
from hopvista.sources.imports import Skipped, read_records

MAX_ROWS, MAX_COLS = 16, 7
MIN_ROWS = 3


@dataclass(frozen=True)
class TableSupply:
    """Tables for tasks: ``draw(streams, attempt)`` returns one; ``description`` says in a
    few words where they come from (the manifest records it)."""

    draw: Callable[[Streams, int], TaskTable]
    description: dict[str, object]


def usable(cells: list[list[str]], caption: str | None, source: str) -> TaskTable | None:
    """The table as a task table (cut to the size limits), or ``None`` when no task can be
    drawn on it."""
    cells = [[" ".join(str(text).split()) for text in row[:MAX_COLS]]
             for row in cells[:MAX_ROWS + 1]]
    if len(cells) < MIN_ROWS + 1 or len(cells[0]) < 2:
        return None
    width = len(cells[0])
    if any(len(row) != width for row in cells):
        return None
    labels = [row[0] for row in cells[1:]]
    headers = cells[0][1:]  # the corner above the row labels may be empty (no task names it)
    if not all(labels) or len(set(labels)) != len(labels) or not all(headers) or \
            len(set(headers)) != len(headers):
        return None
    return TaskTable(tuple(tuple(row) for row in cells), caption, source)


def _texts(table: Table | GridTable) -> tuple[list[list[str]], str | None]:
    """A record's table as rows of texts under one header row (a multi-level header's texts
    joined per column: :attr:`GridTable.column_headers`), and its caption."""
    if isinstance(table, GridTable):
        return [list(table.column_headers), *(list(row) for row in table.body_rows)], \
            table.caption
    grid = grid_of_table(table, {})
    return [[cell.text for cell in row] for row in grid.rows], grid.caption


def imported_tables(path: Path, fmt: str | None) -> TableSupply:
    """Tables of the records of an existing dataset at ``path``."""

    name, records = read_records(path, fmt)
    found: list[TaskTable] = []
    seen: set[tuple[tuple[str, ...], ...]] = set()
    for record in records:
        if isinstance(record, Skipped) or record.item.inputs.table is None:
            continue
        table = usable(*_texts(record.item.inputs.table),
                       f"{name}:{record.item.provenance.source}")
        if table is not None and table.cells not in seen:
            seen.add(table.cells)
            found.append(table)
    if not found:
        raise UserError(f"{path}: no table a markup task can be drawn on ({name}: each needs "
                        f"{MIN_ROWS}+ rows, distinct row labels and headers)")

    def draw(streams: Streams, attempt: int) -> TaskTable:
        return found[streams.integer(f"table.{attempt}", 0, len(found) - 1)]

    return TableSupply(draw, {"format": name, "name": path.name, "tables": len(found)})


def domain_tables(domain: str, seed: int, source: str | None = None,
                  data: str | None = None) -> TableSupply:
    """Tables drawn from the world of ``domain`` (its default source unless ``source``)."""

    config = BuildConfig(domain=domain, seed=seed, source=source, data=data)
    pack, world = load_state(config)
    columns = [c for c in world.columns.values()]
    if not columns:
        raise UserError(f"domain {pack.name!r}: no numeric column to show")
    entity_label = pack.spec.entity.label

    def heading(key: str) -> str:
        column = world.columns[key]
        return f"{column.label} ({column.unit})" if column.unit else column.label

    def draw(streams: Streams, attempt: int) -> TaskTable:
        stream = streams.stream(f"table.{attempt}")
        k = int(stream.integers(4, 9))
        entities = [world.entities[int(i)] for i in stream.permutation(len(world.entities))]
        caption: str | None
        by_period = pack.has_periods and len(world.periods) >= 3 and stream.random() < 0.5
        if by_period:
            key = columns[int(stream.integers(len(columns)))].key
            periods = world.periods[-int(stream.integers(3, min(6, len(world.periods)) + 1)):]
            rows = [e for e in entities
                    if all(world.value(e.id, key, p) is not None for p in periods)][:k]
            column = world.columns[key]
            cells = [[entity_label, *(pack.show_period(p) for p in periods)]]
            cells += [[e.name, *(fmt(world.value(e.id, key, p), column.precision)  # type: ignore[arg-type]
                                 for p in periods)] for e in rows]
            caption = heading(key)
        else:
            period = world.periods[int(stream.integers(len(world.periods)))]
            order = stream.permutation(len(columns))
            keys = [columns[int(i)].key for i in order[:int(stream.integers(3, 6))]]
            rows = [e for e in entities
                    if all(world.value(e.id, key, period) is not None for key in keys)][:k]
            cells = [[entity_label, *(heading(key) for key in keys)]]
            cells += [[e.name, *(fmt(world.value(e.id, key, period),  # type: ignore[arg-type]
                                     world.columns[key].precision) for key in keys)]
                      for e in rows]
            caption = pack.show_period(period) if pack.has_periods else None
        table = usable(cells, caption, f"{pack.name}/{config.source_name(pack)}")
        if table is None:
            raise Unsuitable("the drawn table has too few rows or repeated names")
        return table

    return TableSupply(draw, {"domain": pack.name, "source": config.source_name(pack)})
