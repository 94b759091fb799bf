"""CT, conditional threshold (table): the entity whose value passes a threshold.

One-hop CT reads one year; the CT hop of CT+TR / FC+CT+TR (``ct_all``) requires the
condition in every year shown.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hopvista.display import fmt
from hopvista.generation.instance import Instance
from hopvista.program.statement_types import Words, selector
from hopvista.statements.selection import (
    Margins,
    Selection,
    all_years_condition,
    cuts,
    num,
    table_cells,
)

CMPS = (">", "<")


def ct(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
       sizes: range = range(1, 2)) -> Iterator[Selection]:
    """Valid one-year CT selectors, in random order."""
    params = [(c.key, y, op)
              for c in instance.table_columns for y in instance.periods for op in CMPS]
    for i in rng.permutation(len(params)):
        column, year, op = params[int(i)]
        values = {e: instance.value(e, column, year) for e in instance.ids}
        for threshold, picked in cuts(values, op, sizes, rng):
            yield Selection(
                picked=picked,
                node={"op": "ct", "column": column, "year": year, "cmp": op,
                      "threshold": num(threshold)},
                cells=table_cells(instance, [column], [year]),
                words={"column": instance.column(column).label, "cmp": words["cmp"][op],
                       "threshold": fmt(threshold), "period": instance.show(year)},
                modalities=frozenset({"table"}))


def ct_all(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
           sizes: range) -> Iterator[Selection]:
    """Valid every-year CT selectors picking ``sizes`` entities, in random order."""
    params = [(c.key, op) for c in instance.table_columns for op in CMPS]
    years = list(instance.periods)
    for i in rng.permutation(len(params)):
        column, op = params[int(i)]
        series = {e: [instance.value(e, column, y) for y in years] for e in instance.ids}
        # every year above t <=> the minimum is above t (below: the maximum is below t)
        binding = {e: (min(v) if op == ">" else max(v)) for e, v in series.items()}
        every = {v for values in series.values() for v in values}
        for threshold, picked in cuts(binding, op, sizes, rng):
            if threshold in every:
                continue
            yield all_years_condition(instance, "ct_all", column, op, threshold,
                                      picked, words)


@selector("CT", modalities=("table",), variables=("column", "cmp", "threshold", "period"),
          operators=("ct",))
def ct_type(instance: Instance, rng: np.random.Generator, words: Words,
            margins: Margins) -> Iterator[Selection]:
    """CT: "the {noun} with {column} {cmp} {threshold} in {period} is {entity}"."""
    return ct(instance, rng, words)
