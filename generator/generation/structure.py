"""The structure an item's table is shown in (``gen build --structure``).

The plan gives each item a structure type (:func:`hopvista.generation.plan.with_structures`);
once its statements are made, :func:`choose_structure` draws how its table shows it:

* ``simple``: one flat grid, as a build without ``--structure`` shows it;
* ``long``: one flat grid of many rows: the item shows up to :data:`LONG_ENTITIES` entities
  (:func:`shown_pack`), in its table, chart, texts and question; where its statements allow
  no more entities than the pack's, its table is shown in long format (one row per value);
* ``complex``: a header of two or three levels with merged cells: the pack's column groups
  (``group`` in ``domain.yaml``: statement sections) over the columns, and the periods as a
  header level (one row per entity) or each entity named once for its periods;
* ``text-mixed``: one column the statements read stated in sentences, one per row, in a
  notes column ("Nguyen Corp reported Net Sales of 1,204.5 USD millions in 2021.");
* ``multi-table``: the columns or rows split over 2 to 5 related tables, by column group
  (statement), by period, by entity or by runs of columns, each showing the join keys; of the
  splits the table allows, the one the most statements must read across is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from hopvista.augment.structures import NOTE_FORMS, NOTE_FORMS_WITHOUT_PERIODS
from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.generation.instance import Instance
from hopvista.model.structure import (
    STRUCTURES,
    ColumnGroup,
    Notes,
    TablePart,
    TableStructure,
)
from hopvista.statements.types import Statement
from hopvista.themes.charts import FCMR_PALETTE

MAX_TABLES = 5

LONG_ENTITIES = len(FCMR_PALETTE)
"""The entities a ``long`` item shows at first: as many as a chart has colours for (7)."""
LONG_STEP = 40
"""Attempts after which a ``long`` item's draw shows one entity fewer."""
LONG_ATTEMPTS = 200
"""Attempts after which a ``long`` item shows the pack's entities, one row per value."""


def unavailable(kind: str, pack: DomainPack) -> str | None:
    """Why domain ``pack`` cannot show its tables as ``kind``, or ``None``."""
    if kind not in STRUCTURES:
        return f"no such structure (structures: {', '.join(STRUCTURES)})"
    if kind == "complex" and not pack.has_periods and not _grouped_columns(pack):
        return (f"needs a period axis or column groups ('group' in domain.yaml), and domain "
                f"{pack.name!r} has neither")
    return None


def check_structures(structures: Sequence[str], pack: DomainPack) -> None:
    """Refuse (``UserError``) a structure type domain ``pack`` cannot show."""
    for kind in structures:
        why = unavailable(kind, pack)
        if why is not None:
            raise UserError(f"--structure {kind}: {why}")


def shown_pack(kind: str | None, pack: DomainPack, world_entities: int, attempt: int
               ) -> DomainPack:
    """The pack attempt ``attempt`` (from 1) of an item of structure ``kind`` draws its
    instance with: for ``long``, one whose instances show :data:`LONG_ENTITIES` entities (at
    most the world's), one fewer after every :data:`LONG_STEP` attempts down to two more than
    the pack's, so the table has many rows wherever the data allow the item's statements;
    after :data:`LONG_ATTEMPTS` attempts, the pack's own (its table is then shown in long
    format, as always for a pack of :data:`LONG_ENTITIES` entities or more); the pack
    itself for every other kind."""
    instance = pack.spec.instance
    if kind != "long" or attempt > LONG_ATTEMPTS or instance.entities >= LONG_ENTITIES:
        return pack
    count = min(max(LONG_ENTITIES - (attempt - 1) // LONG_STEP, instance.entities + 2),
                world_entities)
    shown = instance.model_copy(update={"entities": count})
    return replace(pack, spec=pack.spec.model_copy(update={"instance": shown}))


def _grouped_columns(pack: DomainPack) -> dict[str, str]:
    """Each column key to its group in the pack, when every column has one; else empty."""
    groups = {c.key: c.group for c in pack.spec.columns}
    if any(group is None for group in groups.values()):
        return {}
    return {key: str(group) for key, group in groups.items()}


def column_groups(pack: DomainPack, keys: Sequence[str]) -> tuple[ColumnGroup, ...]:
    """The pack's groups of the columns ``keys``, in order of their first column (none when
    a column has no group)."""
    grouped = _grouped_columns(pack)
    if not grouped:
        return ()
    members: dict[str, list[str]] = {}
    for key in keys:
        members.setdefault(grouped[key], []).append(key)
    return tuple(ColumnGroup(label=label, columns=tuple(cols)) for label, cols in members.items())


def choose_structure(kind: str, pack: DomainPack, instance: Instance,
                     statements: Sequence[Statement], rng: np.random.Generator
                     ) -> TableStructure:
    """How the item's table shows structure ``kind``, drawn from ``rng``."""
    keys = [c.key for c in instance.table_columns]
    groups = column_groups(pack, keys)
    periods = instance.period_label is not None and len(instance.periods) > 1
    if kind == "complex":
        return _complex(groups, periods, rng)
    if kind == "multi-table":
        return _multi_table(instance, groups, statements, rng)
    if kind == "text-mixed":
        return _text_mixed(instance, statements, rng)
    if kind == "long":
        return TableStructure(type="long", long_format=len(instance.entities)
                              <= pack.spec.instance.entities)
    return TableStructure(type="simple")


def _complex(groups: tuple[ColumnGroup, ...], periods: bool, rng: np.random.Generator
             ) -> TableStructure:
    """Periods across the header (two levels, three with groups) or, with groups, the groups
    over the columns and each entity named once for its periods."""
    across = periods and (not groups or bool(rng.integers(2)))
    return TableStructure(type="complex", groups=groups, periods_across=across,
                          merged_entities=periods and not across)


def _text_mixed(instance: Instance, statements: Sequence[Statement],
                rng: np.random.Generator) -> TableStructure:
    """One column the statements read (any, when none reads the table) stated in sentences,
    in a form drawn from ``rng``."""
    keys = [c.key for c in instance.table_columns]
    read = sorted({str(cell["column"]) for s in statements for cell in s.cells
                   if cell.get("modality") == "table" and cell.get("column") in keys},
                  key=keys.index)
    choices = read or keys
    column = choices[int(rng.integers(len(choices)))]
    forms = NOTE_FORMS if instance.period_label is not None else NOTE_FORMS_WITHOUT_PERIODS
    return TableStructure(type="text-mixed",
                          notes=Notes(column=column, form=forms[int(rng.integers(len(forms)))]))


def _multi_table(instance: Instance, groups: tuple[ColumnGroup, ...],
                 statements: Sequence[Statement], rng: np.random.Generator) -> TableStructure:
    """The split the most statements read across (ties drawn from ``rng``)."""
    splits = _splits(instance, groups)
    if not splits:
        raise ValueError("multi-table: the table has one column, one entity and one period")
    scores = [_read_across(parts, statements) for parts in splits]
    best = [parts for parts, score in zip(splits, scores, strict=True) if score == max(scores)]
    return TableStructure(type="multi-table", tables=best[int(rng.integers(len(best)))])


def _splits(instance: Instance, groups: tuple[ColumnGroup, ...]
            ) -> list[tuple[TablePart, ...]]:
    """Every split of the table into 2 to 5 related tables that it allows."""
    keys = tuple(c.key for c in instance.table_columns)
    entities, years = instance.ids, instance.periods
    splits: list[tuple[TablePart, ...]] = []
    if 2 <= len(groups) <= MAX_TABLES:
        splits.append(tuple(TablePart(title=g.label, columns=g.columns, entities=entities,
                                      years=years, split="statement") for g in groups))
    elif len(keys) > 1:
        splits.append(tuple(TablePart(title=f"Table {n + 1}", columns=run, entities=entities,
                                      years=years, split="columns")
                            for n, run in enumerate(_runs(keys, 2))))
    if instance.period_label is not None and len(years) > 1:
        splits.append(tuple(
            TablePart(title=_period_title(instance, run), columns=keys, entities=entities,
                      years=run, split="period")
            for run in _runs(years, min(3, len(years)))))
    if len(entities) >= 2:
        splits.append(tuple(
            TablePart(title=", ".join(instance.name(e) for e in run), columns=keys,
                      entities=run, years=years, split="entity")
            for run in _runs(entities, min(MAX_TABLES, len(entities)))))
    return splits


def _runs(values: Sequence[Any], parts: int) -> list[tuple[Any, ...]]:
    """``values`` cut into ``parts`` consecutive runs, as equal as may be (longer first)."""
    size, extra = divmod(len(values), parts)
    runs, start = [], 0
    for n in range(parts):
        end = start + size + (1 if n < extra else 0)
        runs.append(tuple(values[start:end]))
        start = end
    return runs


def _period_title(instance: Instance, years: Sequence[int]) -> str:
    """A part's title for its periods ("Year 2019-2021", "Year 2023")."""
    label = instance.period_label or ""
    first, last = instance.show(years[0]), instance.show(years[-1])
    return f"{label} {first}" if first == last else f"{label} {first}\u2013{last}"


def _read_across(parts: Sequence[TablePart], statements: Sequence[Statement]) -> int:
    """How many statements read table cells of two or more of the parts."""
    count = 0
    for statement in statements:
        touched = {n for cell in statement.cells if cell.get("modality") == "table"
                   for n, part in enumerate(parts)
                   if cell.get("column") in part.columns and cell.get("entity") in part.entities
                   and cell.get("year") in part.years}
        count += len(touched) > 1
    return count
