"""RK, ranking (chart): the entity with the highest or lowest chart value, by a clear margin.

``rk_when`` is the hop pair of CT+RK / AR+RK: "during the years when <condition on entity A>,
the entity with the highest <chart column> is X". It is emitted only when the same entity wins
clearly in every year that meets the condition, and the winner is not the same in every year
(so the condition is needed). Reading "during the years" as the total over those years gives
the same winner, since a winner of every year also wins their sum.

On an instance of one period (a domain without a period axis) the pair is ``rk_among``:
"among the entities whose <condition> holds, the one with the highest <chart column> is X".
The condition (on the table) picks two or more entities but not all, the chart's clear
winner among them is not the clear winner among all (so the condition changes the answer),
and a false statement names another entity that meets the condition and clearly beats some
entity on the chart (so it stays possibly true without the chart, and without the table:
docs/format.md, sections 3.4 and 3.8).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from decimal import Decimal
from functools import cache
from typing import cast

import numpy as np

from hopvista.display import fmt
from hopvista.generation.instance import Instance
from hopvista.program.statement_types import Words, selector
from hopvista.statements.arithmetic import SIGNS, combine
from hopvista.statements.selection import Margins, Selection, chart_cells, cuts, num, table_cells
from hopvista.statements.threshold import CMPS

ORDERS = ("max", "min")


def winner(instance: Instance, year: int, order: str, margins: Margins,
           among: Iterable[str] | None = None) -> str | None:
    """The clear winner of ``year`` on the chart (among the entities ``among``, two or more;
    default all), or ``None`` when the top two are too close."""
    sign = Decimal(1) if order == "max" else Decimal(-1)
    ranked = sorted(instance.ids if among is None else [e for e in instance.ids if e in among],
                    key=lambda e: sign * instance.chart_value(e, year), reverse=True)
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
    params = [(y, o) for y in instance.periods for o in ORDERS]
    for k in rng.permutation(len(params)):
        year, order = params[int(k)]
        best = winner(instance, year, order, margins)
        if best is not None:
            yield Selection(
                picked=frozenset({best}),
                node={"op": "rk", "column": instance.chart_column.key, "year": year,
                      "order": order},
                cells=chart_cells(instance, [year]),
                words={"column": instance.chart_column.label, "order": words["order"][order],
                       "period": instance.show(year)},
                modalities=frozenset({"chart"}))


Expr = tuple[tuple[str, str], ...]
"""A condition's terms: (column, sign) pairs, the first sign ``+``."""


def _expressions(instance: Instance, condition: str) -> list[Expr]:
    """The conditions' left-hand sides: a table column (``'CT'``), or two table columns of
    one unit added or subtracted (``'AR'``: sums once per unordered pair, differences both
    ways)."""
    columns = [c.key for c in instance.table_columns]
    if condition == "CT":
        return [((c, "+"),) for c in columns]
    units = {c.key: c.unit for c in instance.table_columns}
    return [((a, "+"), (b, s)) for a in columns for b in columns if a != b for s in SIGNS
            if (s == "-" or a < b) and units[a] == units[b]]  # one unit: a meaningful sum


def _combined(instance: Instance, entity: str, expr: Expr, year: int) -> Decimal:
    value = instance.value(entity, expr[0][0], year)
    for column, sign in expr[1:]:
        value = combine(value, sign, instance.value(entity, column, year))
    return value


def rk_when(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
            margins: Margins, condition: str) -> Iterator[Selection]:
    """Valid "during the years when" selectors; ``condition`` is ``'CT'`` or ``'AR'``."""
    exprs = _expressions(instance, condition)
    params = [(a, x, op, o) for a in instance.ids for x in range(len(exprs)) for op in CMPS
              for o in ORDERS]
    years = list(instance.periods)
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
        per_year = {str(y): _combined(instance, anchor, expr, y) for y in years}
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
    years = list(instance.periods)
    text = {"anchor": instance.name(anchor), "cond_column": instance.column(expr[0][0]).label,
            "cmp": words["cmp"][op], "threshold": fmt(threshold),
            "order": words["order"][order], "rank_column": instance.chart_column.label}
    if len(expr) > 1:
        text |= {"sign": words["sign"][expr[1][1]],
                 "cond_column2": instance.column(expr[1][0]).label}
    anchor_cells = tuple(cell for cell in table_cells(instance, [c for c, _ in expr], years)
                         if cell["entity"] == anchor)
    return Selection(
        picked=frozenset({champion}),
        node={"op": "rk_when", "column": instance.chart_column.key, "order": order,
              "when": {"entity": anchor,
                       "terms": [{"column": c, "sign": s} for c, s in expr],
                       "cmp": op, "threshold": num(threshold)}},
        cells=anchor_cells + chart_cells(instance, years),
        words=text, modalities=frozenset({"table", "chart"}),
        withheld={"table": (frozenset(), claimable)})


def rk_among(instance: Instance, rng: np.random.Generator, words: dict[str, dict[str, str]],
             margins: Margins, condition: str) -> Iterator[Selection]:
    """Valid "among the entities whose …" selectors on an instance of one period;
    ``condition`` is ``'CT'`` or ``'AR'`` (see the module docstring)."""
    (year,) = instance.periods
    everyone = frozenset(instance.ids)
    exprs = [x for x in _expressions(instance, condition)
             if _comparable_all(instance, [c for c, _ in x], year)]
    params = [(x, op, o) for x in range(len(exprs)) for op in CMPS for o in ORDERS]
    tops = {o: winner(instance, year, o, margins) for o in ORDERS}
    # Without the table the condition's set is unknown (any set can meet it): the selector
    # may pick any entity that clearly beats another on the chart (the set of those two) and
    # is not the clear winner of all, whom it never picks; none for certain.
    beaters = {o: frozenset(e for e in instance.ids if e != tops[o] and any(
        clearly_beats(instance, e, f, year, o, margins) for f in instance.ids if f != e))
        for o in ORDERS}
    for k in rng.permutation(len(params)):
        x, op, order = params[int(k)]
        expr = exprs[x]
        values = {e: _combined(instance, e, expr, year) for e in instance.ids}
        found = cuts(values, op, range(2, len(instance.ids)))
        for j in rng.permutation(len(found)):
            threshold, members = found[int(j)]
            best = winner(instance, year, order, margins, members)
            if best is None or best == tops[order]:
                continue  # no clear winner among them, or the condition changes nothing
            yield _rk_among_selection(instance, words, expr, op, threshold, order, best,
                                      condition, members, beaters[order], everyone)


def clearly_beats(instance: Instance, entity: str, other: str, year: int, order: str,
                  margins: Margins) -> bool:
    """Whether ``entity`` is clearly ahead of ``other`` on the chart in ``year``."""
    sign = Decimal(1) if order == "max" else Decimal(-1)
    lead = sign * (instance.chart_value(entity, year) - instance.chart_value(other, year))
    return lead >= margins.rank_gap and lead > 0


def _comparable_all(instance: Instance, columns: list[str], year: int,
                    ratio: int = 10) -> bool:
    """Whether the columns combined in a condition are of one order of magnitude over the
    entities (so "Hardness plus Melting Point" is never asked)."""
    if len(columns) < 2:
        return True
    scales = [sum(abs(instance.value(e, c, year)) for e in instance.ids) for c in columns]
    return min(scales) * ratio >= max(scales) > 0


def _rk_among_selection(instance: Instance, words: dict[str, dict[str, str]], expr: Expr,
                        op: str, threshold: Decimal, order: str, champion: str,
                        condition: str, members: frozenset[str], beaters: frozenset[str],
                        everyone: frozenset[str]) -> Selection:
    years = list(instance.periods)
    text = {"cond_column": instance.column(expr[0][0]).label, "cmp": words["cmp"][op],
            "threshold": fmt(threshold), "order": words["order"][order],
            "rank_column": instance.chart_column.label}
    if len(expr) > 1:
        text |= {"sign": words["sign"][expr[1][1]],
                 "cond_column2": instance.column(expr[1][0]).label}
    none: frozenset[str] = frozenset()
    return Selection(
        picked=frozenset({champion}),
        node={"op": "rk_among", "column": instance.chart_column.key, "order": order,
              "among": {"terms": [{"column": c, "sign": s} for c, s in expr],
                        "cmp": op, "threshold": num(threshold)}},
        cells=table_cells(instance, [c for c, _ in expr], years) + chart_cells(instance, years),
        words=text, modalities=frozenset({"table", "chart"}),
        # without the chart any member may win; without the table, see rk_among
        withheld={"chart": (none, members), "table": (none, beaters)},
        # the claimed entity is drawn before the label (hopvista.statements.types._entity_first)
        # per order and size of the set
        meta={"claim_first": (order, len(members))})


_WHEN = ("anchor", "cond_column", "cmp", "threshold", "order", "rank_column")
_AMONG = ("cond_column", "cmp", "threshold", "order", "rank_column")


@selector("CT+RK", modalities=("table", "chart"), variables=_WHEN,
          operators=("rk_when", "rk_among"), hops=2, min_periods=2, one_period=_AMONG)
def ct_rk(instance: Instance, rng: np.random.Generator, words: Words,
          margins: Margins) -> Iterator[Selection]:
    """CT+RK: "during the periods when {anchor}'s {cond_column} is {cmp} {threshold}, the
    {noun} with the {order} {rank_column} is {entity}"; on one period, "among the {plural}
    whose {cond_column} is {cmp} {threshold}, the one with the {order} {rank_column} is
    {entity}"."""
    if len(instance.periods) == 1:
        return rk_among(instance, rng, words, margins, "CT")
    return rk_when(instance, rng, words, margins, "CT")


@selector("AR+RK", modalities=("table", "chart"), variables=(*_WHEN, "sign", "cond_column2"),
          operators=("rk_when", "rk_among"), hops=2, min_periods=2,
          one_period=(*_AMONG, "sign", "cond_column2"), condition_terms=2)
def ar_rk(instance: Instance, rng: np.random.Generator, words: Words,
          margins: Margins) -> Iterator[Selection]:
    """AR+RK: as CT+RK with the condition on {cond_column} {sign} {cond_column2}."""
    if len(instance.periods) == 1:
        return rk_among(instance, rng, words, margins, "AR")
    return rk_when(instance, rng, words, margins, "AR")
