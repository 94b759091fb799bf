"""TR, trend (chart): the entity whose chart series moves strictly one way, every step clearly.

A member's every step goes the stated way by at least the trend margin; every non-member has a
step that clearly goes the other way. Anything in between is visually ambiguous, and a selector
that would need it is not emitted. ``tr_all`` is the TR hop of CT+TR / AR+TR: all years.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from itertools import pairwise

import numpy as np

from hopvista.generation.instance import Instance
from hopvista.program.statement_types import selector
from hopvista.statements.selection import Margins, Selection, chart_cells

DIRECTIONS = ("increasing", "decreasing")


def trend_members(instance: Instance, first: int, last: int, direction: str,
                  margins: Margins) -> frozenset[str] | None:
    """Entities that clearly move ``direction`` over ``first..last``; ``None`` if any is unclear."""
    sign = Decimal(1) if direction == "increasing" else Decimal(-1)
    i, j = instance.periods.index(first), instance.periods.index(last)
    members = set()
    for entity in instance.ids:
        series = instance.chart[entity][i:j + 1]
        steps = [sign * (b - a) for a, b in pairwise(series)]
        if all(step >= margins.trend_step and step > 0 for step in steps):
            members.add(entity)
        elif not any(step <= -margins.trend_step and step < 0 for step in steps):
            return None
    return frozenset(members)


def _selection(instance: Instance, kind: str, picked: frozenset[str], first: int, last: int,
               direction: str, words: dict[str, dict[str, str]]) -> Selection:
    label = instance.chart_column.label
    years = [y for y in instance.periods if first <= y <= last]
    node = {"op": "tr", "column": instance.chart_column.key, "from": first, "to": last,
            "direction": direction}
    if kind == "TR":
        text = {"column": label, "period1": instance.show(first),
                "period2": instance.show(last)}
    else:
        node = {"op": "tr_all", "column": instance.chart_column.key, "direction": direction}
        text = {"trend_column": label, "first": instance.show(first),
                "last": instance.show(last)}
    text |= {"direction": words["direction"][direction],
             "direction_verb": words["direction_verb"][direction]}
    return Selection(picked=picked, node=node, cells=chart_cells(instance, years),
                     words=text, modalities=frozenset({"chart"}))


@selector("TR", modalities=("chart",),
          variables=("column", "period1", "period2", "direction", "direction_verb"),
          operators=("tr",), min_periods=3)
def tr(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
       margins: Margins) -> Iterator[Selection]:
    """Valid one-hop TR selectors over spans of at least three years, in random order."""
    years = instance.periods
    params = [(a, b, d) for i, a in enumerate(years) for b in years[i + 2:] for d in DIRECTIONS]
    for k in rng.permutation(len(params)):
        first, last, direction = params[int(k)]
        members = trend_members(instance, first, last, direction, margins)
        if members is not None and len(members) == 1:
            yield _selection(instance, "TR", members, first, last, direction, words)


def tr_all(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
           margins: Margins, sizes: range) -> Iterator[Selection]:
    """Valid all-years TR selectors picking ``sizes`` entities, in random order."""
    first, last = instance.periods[0], instance.periods[-1]
    for k in rng.permutation(len(DIRECTIONS)):
        direction = DIRECTIONS[int(k)]
        members = trend_members(instance, first, last, direction, margins)
        if members is not None and len(members) in sizes:
            yield _selection(instance, "TR_ALL", members, first, last, direction, words)
