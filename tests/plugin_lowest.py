"""A statement type from outside hopvista, in one file: LOWEST, its operator and a source.

``tests/test_program_plugins.py`` loads this file as a plug-in would be loaded: the
registrations below are all it takes (its wording is in the test's pack). The ``lowest``
operator declares its node fields and its lenient reading, as the built-in operators do.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import numpy as np

from hopvista.domain import DomainPack
from hopvista.generation.instance import Instance
from hopvista.program.executor import Context, Undecidable
from hopvista.program.fields import text, whole
from hopvista.program.operators import Node, View, operator
from hopvista.program.statement_types import Words, selector
from hopvista.rng import derive
from hopvista.sources import source
from hopvista.statements.selection import Margins, Selection, table_cells
from hopvista.world import Entity, World

#: How often the proxy solvers read a ``lowest`` node leniently (by the node's column).
LENIENT_READS: list[str] = []


@selector("LOWEST", modalities=("table",), variables=("column", "period"),
          operators=("lowest",), fact_form=False)
def lowest(instance: Instance, rng: np.random.Generator, words: Words,
           margins: Margins) -> Iterator[Selection]:
    """The entity with the lowest value of a table column in the last period."""
    year = instance.periods[-1]
    columns = list(instance.table_columns)
    for i in rng.permutation(len(columns)):
        column = columns[int(i)]
        values = {e: instance.value(e, column.key, year) for e in instance.ids}
        ranked = sorted(values.values())
        if ranked[0] == ranked[1]:
            continue
        low = min(values, key=lambda e: values[e])
        yield Selection(picked=frozenset({low}),
                        node={"op": "lowest", "column": column.key, "year": year},
                        cells=table_cells(instance, [column.key], [year]),
                        words={"column": column.label, "period": instance.show(year)},
                        modalities=frozenset({"table"}))


def _cells(node: Node, view: View) -> set[tuple[Any, ...]]:
    return {("table", e, node["column"], node["year"]) for e in view.ids}


def _lowest_leniently(node: Node, ctx: Context) -> frozenset[str]:
    """On imputed values: the lowest entity, a tie going to the first id."""
    LENIENT_READS.append(node["column"])
    values = {e: ctx.cell(e, node["column"], node["year"]) for e in ctx.entities}
    return frozenset([min(values, key=lambda e: (values[e], e))])


@operator("lowest", ("table",), fields={"column": text, "year": whole}, cells=_cells,
          variables=lambda n, v: {"column": v.label(n["column"]), "period": v.show(n["year"])},
          lenient=_lowest_leniently)
def lowest_op(node: Node, ctx: Context) -> frozenset[str]:
    """The entity with the lowest value: undecidable on a tie."""
    values = {e: ctx.cell(e, node["column"], node["year"]) for e in ctx.entities}
    ranked = sorted(values.values())
    if ranked[0] == ranked[1]:
        raise Undecidable("a tie for the lowest value")
    return frozenset(e for e, v in values.items() if v == ranked[0])


@source("lowest_orchards")
def load_orchards(pack: DomainPack, seed: int, options: dict[str, Any]) -> World:
    """Twelve orchards, six seasons, the pack's columns, seeded values."""
    periods = list(range(2001, 2007))
    columns = pack.columns()
    entities = [Entity(f"O{i:02d}", name) for i, name in enumerate(
        ["Appleby", "Brookfield", "Cedar Hill", "Dunmore", "Elmstead", "Fairholt",
         "Glenrock", "Hawthorn", "Ivydale", "Juniper Vale", "Kestrel", "Larchmont"])]
    values = {}
    for i, entity in enumerate(entities):
        rng = derive(seed, "lowest_orchards", i)
        values[entity.id] = {
            key: [Decimal(str(round(float(rng.uniform(10, 500)), column.precision)))
                  for _ in periods]
            for key, column in columns.items()}
    return World(domain=pack.name, source="lowest_orchards", entities=entities,
                 periods=periods, columns=columns, values=values, chunks={},
                 provenance={"lowest_orchards": True})
