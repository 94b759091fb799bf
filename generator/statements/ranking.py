"""RK, ranking (chart): the entity with the highest or lowest chart value, by a clear margin.

``rk_when`` is the hop pair of CT+RK / AR+RK: "during the years when <condition on entity A>,
the entity with the highest <chart column> is X". It is emitted only when the same entity wins
clearly in every year that meets the condition, and the winner is not the same in every year
(so the condition is needed). Reading "during the years" as the total over those years gives
the same winner, since a winner of every year also wins their sum.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from functools import cache
from typing import cast

import numpy as np

from hopvista.display import fmt
from hopvista.instance import Instance
from hopvista.statements.arithmetic import SIGNS, combine
from hopvista.statements.registry import Words, selector
from hopvista.statements.selection import Margins, Selection, chart_cells, cuts, num, table_cells
from hopvista.statements.threshold import CMPS

ORDERS = ("max", "min")


def winner(instance: Instance, year: int, order: str, margins: Margins) -> str | None:
    """The clear winner of ``year`` on the chart, or ``None`` when the top two are too close."""
    sign = Decimal(1) if order == "max" else Decimal(-1)
    ranked = sorted(instance.ids, key=lambda e: sign * instance.chart_value(e, year),
                    reverse=True)
    gap = sign * (instance.chart_value(ranked[0], year) - instance.chart_value(ranked[1], year))
    return ranked[0] if gap >= margins.rank_gap and gap > 0 else None


def clearly_loses(instance: Instance, entity: str, year: int, order: str,
                  margins: Margins) -> bool:
    """Whether ``entity`` is clearly not the winner of ``year``."""
    sign = Decimal(1) if order == "max" else Decimal(-1)
    best = max(sign * instance.chart_value(e, year) for e in instance.ids)
    lag = best - sign * instance.chart_value(entity, year)
    return lag >= margins.rank_gap and lag > 0


@selector("RK", modalities=("chart",), variables=("column", "order", "period"),
          operators=("rk",))
def rk(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
       margins: Margins) -> Iterator[Selection]:
    """Valid one-hop RK selectors, in random order."""
    params = [(y, o) for y in instance.years for o in ORDERS]
    for k in rng.permutation(len(params)):
        year, order = params[int(k)]
        best = winner(instance, year, order, margins)
        if best is not None:
            yield Selection(
                kind="RK", picked=frozenset({best}),
                node={"op": "rk", "column": instance.chart_column.key, "year": year,
                      "order": order},
                cells=chart_cells(instance, [year]),
                words={"column": instance.chart_column.label, "order": words["order"][order],
                       "period": instance.show(year)},
                modalities=frozenset({"chart"}))


def rk_when(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
            margins: Margins, condition: str) -> Iterator[Selection]:
    """Valid "during the years when" selectors; ``condition`` is ``'CT'`` or ``'AR'``."""
    columns = [c.key for c in instance.table_columns]
    if condition == "CT":
        exprs: list[tuple[tuple[str, str], ...]] = [((c, "+"),) for c in columns]
    else:
        units = {c.key: c.unit for c in instance.table_columns}
        exprs = [((a, "+"), (b, s)) for a in columns for b in columns if a != b for s in SIGNS
                 if (s == "-" or a < b) and units[a] == units[b]]  # one unit: a meaningful sum
    params = [(a, x, op, o) for a in instance.ids for x in range(len(exprs)) for op in CMPS
              for o in ORDERS]
    years = list(instance.years)
    winners_by = {o: {y: winner(instance, y, o, margins) for y in years} for o in ORDERS}

    @cache
    def clearly_lost(entity: str, year: int, order: str) -> bool:
        return clearly_loses(instance, entity, year, order, margins)

    @cache
    def thresholds(anchor: str, x: int, op: str) -> list[tuple[Decimal, frozenset[str]]]:
        # The same for both orders: worked out once per anchor, condition and comparison.
        expr = exprs[x]
        if not _comparable(instance, anchor, [c for c, _ in expr], years):
            return []
        per_year = {}
        for y in years:
            value = instance.value(anchor, expr[0][0], y)
            for column, sign in expr[1:]:
                value = combine(value, sign, instance.value(anchor, column, y))
            per_year[str(y)] = value
        return cuts(per_year, op, range(1, len(years)))

    for k in rng.permutation(len(params)):
        anchor, x, op, order = params[int(k)]
        expr = exprs[x]
        winners = winners_by[order]
        for threshold, passing in thresholds(anchor, x, op):
            when = [y for y in years if str(y) in passing]
            best = {winners[y] for y in when}
            if len(best) != 1 or None in best:
                continue
            champion = cast(str, next(iter(best)))  # None was excluded just above
            if not any(clearly_lost(champion, y, order) for y in years if y not in when):
                continue
            # Without the table the years are unknown: the selector may pick any entity that
            # clearly wins the chart in some year (and none for certain).
            claimable = frozenset(w for w in winners.values() if w is not None)
            yield _rk_when_selection(instance, words, anchor, expr, op, threshold, order,
                                     champion, condition, claimable)


def _comparable(instance: Instance, anchor: str, columns: list[str], years: list[int],
                ratio: int = 10) -> bool:
    """Whether the columns combined in a condition are of one order of magnitude for the
    anchor (so "Interest Expense minus Total Assets" is never asked)."""
    if len(columns) < 2:
        return True
    scales = [sum(abs(instance.value(anchor, c, y)) for y in years) for c in columns]
    return min(scales) * ratio >= max(scales) > 0


def _rk_when_selection(instance: Instance, words: dict[str, dict[str, str]], anchor: str,
                       expr: tuple[tuple[str, str], ...], op: str, threshold: Decimal,
                       order: str, champion: str, condition: str,
                       claimable: frozenset[str]) -> Selection:
    years = list(instance.years)
    text = {"anchor": instance.name(anchor), "cond_column": instance.column(expr[0][0]).label,
            "cmp": words["cmp"][op], "threshold": fmt(threshold),
            "order": words["order"][order], "rank_column": instance.chart_column.label}
    if len(expr) > 1:
        text |= {"sign": words["sign"][expr[1][1]],
                 "cond_column2": instance.column(expr[1][0]).label}
    anchor_cells = tuple(cell for cell in table_cells(instance, [c for c, _ in expr], years)
                         if cell["entity"] == anchor)
    return Selection(
        kind=f"{condition}+RK", picked=frozenset({champion}),
        node={"op": "rk_when", "column": instance.chart_column.key, "order": order,
              "when": {"entity": anchor,
                       "terms": [{"column": c, "sign": s} for c, s in expr],
                       "cmp": op, "threshold": num(threshold)}},
        cells=anchor_cells + chart_cells(instance, years),
        words=text, modalities=frozenset({"table", "chart"}),
        withheld={"table": (frozenset(), claimable)})


_WHEN = ("anchor", "cond_column", "cmp", "threshold", "order", "rank_column")


@selector("CT+RK", modalities=("table", "chart"), variables=_WHEN, operators=("rk_when",),
          hops=2, min_periods=2)
def ct_rk(instance: Instance, rng: np.random.Generator, words: Words,
          margins: Margins) -> Iterator[Selection]:
    """CT+RK: "during the periods when {anchor}'s {cond_column} is {cmp} {threshold}, the
    {noun} with the {order} {rank_column} is {entity}"."""
    return rk_when(instance, rng, words, margins, "CT")


@selector("AR+RK", modalities=("table", "chart"), variables=(*_WHEN, "sign", "cond_column2"),
          operators=("rk_when",), hops=2, min_periods=2)
def ar_rk(instance: Instance, rng: np.random.Generator, words: Words,
          margins: Margins) -> Iterator[Selection]:
    """AR+RK: as CT+RK with the condition on {cond_column} {sign} {cond_column2}."""
    return rk_when(instance, rng, words, margins, "AR")
