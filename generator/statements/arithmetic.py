"""AR, arithmetic (table): the entity for which a sum or difference of values equals a result.

One-hop AR combines one column in two years; the AR hop of AR+TR / FC+AR+TR (``ar_sum``) is
the cumulative sum of a column over every year shown compared with a threshold.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

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
from hopvista.statements.threshold import CMPS

SIGNS = ("+", "-")


def combine(a: Decimal, sign: str, b: Decimal) -> Decimal:
    """``a + b`` or ``a - b`` in exact decimal arithmetic."""
    return a + b if sign == "+" else a - b


def ar(instance: Instance, rng: np.random.Generator,
       words: dict[str, dict[str, str]]) -> Iterator[Selection]:
    """Valid one-hop AR selectors (a unique result), in random order.

    Sums take the earlier year first; differences are later year minus earlier year.
    """
    years = instance.periods
    params = [(c.key, y1, y2, sign) for c in instance.table_columns
              for i, y1 in enumerate(years) for y2 in years[i + 1:] for sign in SIGNS]
    for i in rng.permutation(len(params)):
        column, early, late, sign = params[int(i)]
        first, second = (early, late) if sign == "+" else (late, early)
        results = {e: combine(instance.value(e, column, first), sign,
                              instance.value(e, column, second)) for e in instance.ids}
        order = list(instance.ids)
        for j in rng.permutation(len(order)):
            entity = order[int(j)]
            result = results[entity]
            if sum(1 for r in results.values() if r == result) != 1:
                continue
            yield Selection(
                picked=frozenset({entity}),
                node={"op": "ar", "column": column, "years": [first, second], "sign": sign,
                      "result": num(result)},
                cells=table_cells(instance, [column], [first, second]),
                words={"column": instance.column(column).label,
                       "period1": instance.show(first), "period2": instance.show(second),
                       "sign": words["sign"][sign],
                       "result": fmt(result)},
                modalities=frozenset({"table"}))


def ar_sum(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
           sizes: range) -> Iterator[Selection]:
    """Valid cumulative-sum selectors picking ``sizes`` entities, in random order."""
    years = list(instance.periods)
    params = [(c.key, op) for c in instance.table_columns for op in CMPS]
    for i in rng.permutation(len(params)):
        column, op = params[int(i)]
        totals = {e: sum((instance.value(e, column, y) for y in years), Decimal(0))
                  for e in instance.ids}
        for threshold, picked in cuts(totals, op, sizes, rng):
            yield all_years_condition(instance, "ar_sum", column, op, threshold,
                                      picked, words)


@selector("AR", modalities=("table",),
          variables=("column", "period1", "period2", "sign", "result"), operators=("ar",),
          min_periods=2)
def ar_type(instance: Instance, rng: np.random.Generator, words: Words,
            margins: Margins) -> Iterator[Selection]:
    """AR: "the {noun} where {column} in {period1} {sign} {period2} equals {result} is ..."."""
    return ar(instance, rng, words)
