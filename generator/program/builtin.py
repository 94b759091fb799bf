"""The built-in operators of the program language (docs/format.md).

Importing this module registers them in :data:`hopvista.program.operators.OPERATORS`, with
:func:`hopvista.program.operators.operator` as a plug-in registers its own: each declares its
node's fields, the inputs it reads, its wording variables and its lenient reading.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import pairwise
from typing import Any

from hopvista.program.executor import (
    Context,
    Undecidable,
    apply_sign,
    best,
    bounds,
    compare,
    mentions,
    select,
    trend,
    year_span,
)
from hopvista.program.fields import (
    CMPS,
    DIRECTIONS,
    ORDERS,
    SIGNS,
    Shape,
    as_list,
    condition,
    decimal,
    one_of,
    text,
    whole,
    whole_numbers,
)
from hopvista.program.lenient import lenient_pick, narrowing
from hopvista.program.numbers import program_number
from hopvista.program.operators import (
    OPERATORS,
    Bounds,
    Cell,
    Node,
    PathT,
    View,
    operator,
    shown_number,
)
from hopvista.program.schema import check_node


def _arguments(value: Any, path: str, shape: Shape) -> None:
    """The arguments of ``and``: one node of each of ``shape.args``, in that order."""
    for i, arg in enumerate(as_list(value, path, len(shape.args))):
        check_node(arg, (shape.args[i],), f"{path}.{i}", shape)


def _table_cells(node: Node, view: View, years: list[Any]) -> set[Cell]:
    return {("table", e, node["column"], y) for e in view.ids for y in years}


def _chart_cells(node: Node, view: View, years: list[Any]) -> set[Cell]:
    return {("chart", e, node["column"], y) for e in view.ids for y in years}


def _table_column(node: Node, view: View) -> list[str]:
    if node["column"] not in view.table_columns:
        return [f"{node['op']} reads {str(node['column'])[:40]!r}, not a table column"]
    return []


def _chart_column(node: Node, view: View) -> list[str]:
    if node["column"] != view.chart_column:
        return [f"{node['op']} reads {str(node['column'])[:40]!r}, not the chart column"]
    return []


def _all_years_words(key: str) -> Any:
    def variables(node: Node, view: View) -> dict[str, str]:
        out = {key: view.label(node["column"]), "first": view.show(view.periods[0]),
               "last": view.show(view.periods[-1])}
        if "threshold" in node:
            out["threshold"] = shown_number(node["threshold"])
        return out
    return variables


@operator("any", (), fields={})
def _any(node: Node, ctx: Context) -> frozenset[str]:
    """Every entity (what a dropped hop becomes)."""
    return frozenset(ctx.entities)


def _and_hops(node: Node, path: PathT) -> list[PathT]:
    found: list[PathT] = []
    for i, arg in enumerate(node["args"]):
        found += OPERATORS.get(arg["op"]).hop_paths(arg, (*path, "args", i))
    return found


def _and_bounds(node: Node, ctx: Context, hidden: str) -> Bounds:
    """Picked by every completion: picked by every argument in every one; by some: by some
    completion of each argument (an over-approximation when two arguments read ``hidden``)."""
    must, may = frozenset(ctx.entities), frozenset(ctx.entities)
    for arg in node["args"]:
        arg_must, arg_may = bounds(arg, ctx, hidden)
        must, may = must & arg_must, may & arg_may
    return must, may


def _and_pick(node: Node, ctx: Context) -> frozenset[str]:
    """Leniently, the entities every argument picks; the arguments that narrow (a trend) are
    applied last, so that one which would leave none keeps the entity closest to it."""
    args = [(arg, narrowing(arg)) for arg in node["args"]]
    picked = frozenset(ctx.entities)
    for arg, narrow in args:
        if narrow is None:
            picked &= lenient_pick(arg, ctx)
    for arg, narrow in args:
        if narrow is not None:
            picked = narrow(arg, ctx, picked)
    return picked


@operator("and", (), fields={"args": _arguments}, hop_paths=_and_hops, bounds=_and_bounds,
          lenient=_and_pick)
def _and(node: Node, ctx: Context) -> frozenset[str]:
    """The entities every argument picks."""
    picked = frozenset(ctx.entities)
    for arg in node["args"]:
        picked &= select(arg, ctx)
    return picked


def _ct_pick(node: Node, ctx: Context) -> frozenset[str]:
    """Leniently, the entity furthest past the threshold's side (highest for ``>``)."""
    values = {e: ctx.cell(e, node["column"], int(node["year"])) for e in ctx.entities}
    pick = max if node["cmp"] == ">" else min
    return frozenset([pick(values, key=lambda e: (values[e], e))])


@operator("ct", ("table",),
          fields={"column": text, "year": whole, "cmp": one_of(*CMPS), "threshold": decimal},
          lenient=_ct_pick, cells=lambda n, v: _table_cells(n, v, [n["year"]]),
          references=_table_column,
          variables=lambda n, v: {"column": v.label(n["column"]), "period": v.show(n["year"]),
                                  "threshold": shown_number(n["threshold"])})
def _ct(node: Node, ctx: Context) -> frozenset[str]:
    """CT: value in one period compared with a threshold."""
    t = program_number(node["threshold"])
    return frozenset(e for e in ctx.entities
                     if compare(ctx.cell(e, node["column"], node["year"]), node["cmp"], t))


@operator("ct_all", ("table",),
          fields={"column": text, "cmp": one_of(*CMPS), "threshold": decimal},
          cells=lambda n, v: _table_cells(n, v, v.periods),
          references=_table_column, variables=_all_years_words("cond_column"))
def _ct_all(node: Node, ctx: Context) -> frozenset[str]:
    """The condition of CT+TR: the comparison holds in every period."""
    t = program_number(node["threshold"])
    return frozenset(e for e in ctx.entities
                     if all([compare(ctx.cell(e, node["column"], y), node["cmp"], t)
                             for y in ctx.periods]))


def _ar_pick(node: Node, ctx: Context) -> frozenset[str]:
    """Leniently, the entity whose sum or difference comes closest to the result."""
    first, second = (int(y) for y in node["years"])
    target = program_number(node["result"])
    sign = 1 if node["sign"] == "+" else -1
    gaps = {e: abs(ctx.cell(e, node["column"], first)
                   + sign * ctx.cell(e, node["column"], second) - target)
            for e in ctx.entities}
    return frozenset([min(gaps, key=lambda e: (gaps[e], e))])


@operator("ar", ("table",),
          fields={"column": text, "years": whole_numbers(2), "sign": one_of(*SIGNS),
                  "result": decimal},
          lenient=_ar_pick, cells=lambda n, v: _table_cells(n, v, list(n["years"])),
          references=_table_column,
          variables=lambda n, v: {"column": v.label(n["column"]),
                                  "period1": v.show(n["years"][0]),
                                  "period2": v.show(n["years"][1]),
                                  "result": shown_number(n["result"])})
def _ar(node: Node, ctx: Context) -> frozenset[str]:
    """AR: one column in two periods, added or subtracted, equals the result."""
    y1, y2 = node["years"]
    r = program_number(node["result"])
    return frozenset(e for e in ctx.entities if apply_sign(
        ctx.cell(e, node["column"], y1), node["sign"], ctx.cell(e, node["column"], y2)) == r)


@operator("ar_sum", ("table",),
          fields={"column": text, "cmp": one_of(*CMPS), "threshold": decimal},
          cells=lambda n, v: _table_cells(n, v, v.periods),
          references=_table_column, variables=_all_years_words("cond_column"))
def _ar_sum(node: Node, ctx: Context) -> frozenset[str]:
    """The condition of AR+TR: the total over the periods compared with a threshold."""
    t = program_number(node["threshold"])
    return frozenset(e for e in ctx.entities if compare(
        sum((ctx.cell(e, node["column"], y) for y in ctx.periods), Decimal(0)), node["cmp"], t))


def _trend_years(node: Node, ctx: Context) -> list[int]:
    if node["op"] == "tr":
        return [y for y in ctx.periods if int(node["from"]) <= y <= int(node["to"])]
    return list(ctx.periods)


def _trend_score(node: Node, ctx: Context, entity: str) -> Decimal:
    """How clearly ``entity`` moves the node's way: its weakest step (negative when some
    step goes the other way)."""
    sign = 1 if node["direction"] == "increasing" else -1
    values = [ctx.point(entity, node["column"], y) for y in _trend_years(node, ctx)]
    return min(sign * (b - a) for a, b in pairwise(values))


def _trend_within(node: Node, ctx: Context, among: frozenset[str]) -> frozenset[str]:
    """Leniently, the entities of ``among`` that move the node's way every step; when none
    does, the one that comes closest."""
    if not among:
        return among
    scores = {e: _trend_score(node, ctx, e) for e in sorted(among)}
    moving = frozenset(e for e, s in scores.items() if s > 0)
    return moving or frozenset([max(scores, key=lambda e: (scores[e], e))])


def _trend_pick(node: Node, ctx: Context) -> frozenset[str]:
    """Leniently, the entities that move the node's way (:func:`_trend_within` of all)."""
    return _trend_within(node, ctx, frozenset(ctx.entities))


@operator("tr", ("chart",),
          fields={"column": text, "from": whole, "to": whole,
                  "direction": one_of(*DIRECTIONS)},
          lenient=_trend_pick, narrow=_trend_within,
          cells=lambda n, v: _chart_cells(n, v, [y for y in v.chart_periods
                                                 if n["from"] <= y <= n["to"]]),
          references=_chart_column,
          variables=lambda n, v: {"column": v.label(n["column"]), "period1": v.show(n["from"]),
                                  "period2": v.show(n["to"])})
def _tr(node: Node, ctx: Context) -> frozenset[str]:
    """TR: a strict, visually clear trend from one period to another."""
    return trend(ctx, node, year_span(ctx, node["from"], node["to"]))


@operator("tr_all", ("chart",), fields={"column": text, "direction": one_of(*DIRECTIONS)},
          lenient=_trend_pick, narrow=_trend_within,
          cells=lambda n, v: _chart_cells(n, v, v.chart_periods),
          references=_chart_column, variables=_all_years_words("trend_column"))
def _tr_all(node: Node, ctx: Context) -> frozenset[str]:
    """The trend of CT+TR / AR+TR: over every period."""
    return trend(ctx, node, ctx.periods)


@operator("rk", ("chart",), fields={"column": text, "year": whole, "order": one_of(*ORDERS)},
          cells=lambda n, v: _chart_cells(n, v, [n["year"]]),
          references=_chart_column,
          variables=lambda n, v: {"column": v.label(n["column"]), "period": v.show(n["year"])})
def _rk(node: Node, ctx: Context) -> frozenset[str]:
    """RK: the clear winner of one period on the chart."""
    scores = {e: ctx.point(e, node["column"], node["year"]) for e in ctx.entities}
    return frozenset({best(ctx, scores, node["order"], ctx.rank_gap)})


def _rk_when_cells(node: Node, view: View) -> set[Cell]:
    cells = _chart_cells(node, view, view.chart_periods)
    when = node.get("when")
    if when is not None:
        cells |= {("table", when["entity"], t["column"], y) for t in when["terms"]
                  for y in view.periods}
    return cells


def _rk_when_references(node: Node, view: View) -> list[str]:
    problems = _chart_column(node, view)
    when = node["when"]
    if when["entity"] not in view.ids:
        problems.append(f"condition on unknown entity {str(when['entity'])[:40]!r}")
    if any(t["column"] not in view.table_columns for t in when["terms"]):
        problems.append("condition reads a column that is not a table column")
    return problems


def _rk_when_variables(node: Node, view: View) -> dict[str, str]:
    when, terms = node["when"], node["when"]["terms"]
    out = {"anchor": view.names.get(when["entity"], when["entity"]),
           "cond_column": view.label(terms[0]["column"]),
           "rank_column": view.label(node["column"]),
           "threshold": shown_number(when["threshold"])}
    if len(terms) > 1:
        out["cond_column2"] = view.label(terms[1]["column"])
    return out


def _terms_value(ctx: Context, terms: list[dict[str, str]], entity: str, year: int
                 ) -> Decimal:
    """A condition's left-hand side for one entity and period: its terms' table values
    added or subtracted (``rk_when``'s ``when``, ``rk_among``'s ``among``)."""
    value = Decimal(0)
    for term in terms:
        value = apply_sign(value, term["sign"], ctx.cell(entity, term["column"], year))
    return value


def _rk_when_bounds(node: Node, ctx: Context, hidden: str) -> Bounds:
    """Without the table the condition's years are unknown (a completion can make any
    non-empty set of years meet it), so the node may pick any entity that clearly wins the
    chart in some year, and none for certain; without the chart, anything."""
    if hidden == "chart":
        return frozenset(), frozenset(ctx.entities)
    if hidden == "table" and node.get("when") is not None:
        winners = set()
        for year in ctx.periods:
            scores = {e: ctx.point(e, node["column"], year) for e in ctx.entities}
            try:
                winners.add(best(ctx, scores, node["order"], ctx.rank_gap))
            except Undecidable:
                continue
        return frozenset(), frozenset(winners)
    picked = _rk_when(node, ctx)
    return picked, picked


def _rank_when_pick(node: Node, ctx: Context) -> frozenset[str]:
    """Leniently, the winner in every period the condition holds; when the imputed condition
    holds in none, or no entity wins them all, the entity that wins most of them (all periods
    when none)."""
    try:
        return select(node, ctx)
    except Undecidable:
        pass
    years = _condition_years(node, ctx) or list(ctx.periods)
    wins: dict[str, int] = dict.fromkeys(ctx.entities, 0)
    pick = max if node["order"] == "max" else min
    for y in years:
        scores = {e: ctx.point(e, node["column"], y) for e in ctx.entities}
        wins[pick(scores, key=lambda e: (scores[e], e))] += 1
    return frozenset([max(wins, key=lambda e: (wins[e], e))])


def _condition_years(node: Node, ctx: Context) -> list[int]:
    when = node.get("when")
    if when is None:
        return list(ctx.periods)
    threshold = program_number(when["threshold"])
    return [y for y in ctx.periods
            if compare(_terms_value(ctx, when["terms"], when["entity"], y), when["cmp"],
                       threshold)]


@operator("rk_when", ("table", "chart"),
          fields={"column": text, "order": one_of(*ORDERS), "when": condition(on_entity=True)},
          lenient=_rank_when_pick, cells=_rk_when_cells, references=_rk_when_references,
          variables=_rk_when_variables, bounds=_rk_when_bounds,
          conditions=("when",))
def _rk_when(node: Node, ctx: Context) -> frozenset[str]:
    """CT+RK / AR+RK: the winner in every period where the condition on an entity holds."""
    when = node.get("when")
    if when is None:
        years = list(ctx.periods)
    else:
        t = program_number(when["threshold"])
        years = [y for y in ctx.periods
                 if compare(_terms_value(ctx, when["terms"], when["entity"], y),
                            when["cmp"], t)]
    if not years:
        raise Undecidable("no period meets the condition")
    per_year = {best(ctx, {e: ctx.point(e, node["column"], y) for e in ctx.entities},
                     node["order"], ctx.rank_gap) for y in years}
    if len(per_year) != 1:
        return frozenset(per_year)
    totals = {e: sum((ctx.point(e, node["column"], y) for y in years), Decimal(0))
              for e in ctx.entities}
    if best(ctx, totals, node["order"], Decimal(0)) not in per_year:
        raise Undecidable("'every period' and 'in total' readings disagree")
    return frozenset(per_year)


def _one_period(ctx: Context) -> int:
    """The one period of an item without a period axis (``rk_among`` reads no other)."""
    if len(ctx.periods) != 1:
        raise Undecidable(f"rk_among reads an item of one period, not {len(ctx.periods)}")
    return ctx.periods[0]


def _members(node: Node, ctx: Context) -> frozenset[str]:
    """The entities meeting ``among`` in the one period (every entity without it); strict:
    any entity's value on the threshold is Undecidable."""
    year = _one_period(ctx)
    among = node.get("among")
    if among is None:
        return frozenset(ctx.entities)
    t = program_number(among["threshold"])
    return frozenset(e for e in ctx.entities
                     if compare(_terms_value(ctx, among["terms"], e, year), among["cmp"], t))


def _clear_top(ctx: Context, scores: dict[str, Decimal], order: str) -> str | None:
    """The clear winner of ``scores`` (3.3), or ``None`` when the top two are too close."""
    try:
        return best(ctx, scores, order, ctx.rank_gap)
    except Undecidable:
        return None


def _rk_among_cells(node: Node, view: View) -> set[Cell]:
    cells = _chart_cells(node, view, view.chart_periods)
    among = node.get("among")
    if among is not None:
        cells |= {("table", e, t["column"], y) for e in view.ids for t in among["terms"]
                  for y in view.periods}
    return cells


def _rk_among_references(node: Node, view: View) -> list[str]:
    problems = _chart_column(node, view)
    if any(t["column"] not in view.table_columns for t in node["among"]["terms"]):
        problems.append("condition reads a column that is not a table column")
    return problems


def _rk_among_variables(node: Node, view: View) -> dict[str, str]:
    terms = node["among"]["terms"]
    out = {"cond_column": view.label(terms[0]["column"]),
           "rank_column": view.label(node["column"]),
           "threshold": shown_number(node["among"]["threshold"])}
    if len(terms) > 1:
        out["cond_column2"] = view.label(terms[1]["column"])
    return out


def _rk_among_bounds(node: Node, ctx: Context, hidden: str) -> Bounds:
    """Without the chart, the set S meeting the condition is known and its winner is not:
    any member of S, when S holds two or more entities but not all (with all of them, the
    winner of S is the winner of all, which rk_among does not pick). Without the table, S
    is unknown (a completion can make any set meet the condition): any entity that clearly
    beats some other one on the chart (S = the two of them) and is not the clear winner of
    all. None for certain either way."""
    none: frozenset[str] = frozenset()
    if hidden == "chart":
        members = _members(node, ctx)
        if len(members) < 2 or members == frozenset(ctx.entities):
            return none, none
        return none, members
    if hidden == "table":
        if node.get("among") is None:
            return none, none
        year = _one_period(ctx)
        scores = {e: ctx.point(e, node["column"], year) for e in ctx.entities}
        top = _clear_top(ctx, scores, node["order"])
        sign = Decimal(1) if node["order"] == "max" else Decimal(-1)
        may = frozenset(e for e in ctx.entities if e != top and any(
            sign * (scores[e] - scores[f]) >= ctx.rank_gap and scores[e] != scores[f]
            for f in ctx.entities if f != e))
        return none, may
    picked = _rk_among(node, ctx)
    return picked, picked


def _rank_among_pick(node: Node, ctx: Context) -> frozenset[str]:
    """Leniently, the winner on the chart among the entities whose condition holds, by the
    imputed values with no margin and none of rk_among's presuppositions; when the condition
    holds for none, the entity closest to meeting it."""
    (year,) = ctx.periods
    among = node["among"]
    threshold = program_number(among["threshold"])
    values = {e: _terms_value(ctx, among["terms"], e, year) for e in ctx.entities}
    above = among["cmp"] == ">"
    members = [e for e in ctx.entities if (values[e] > threshold if above
                                           else values[e] < threshold)]
    if not members:
        gaps = {e: abs(values[e] - threshold) for e in ctx.entities}
        return frozenset([min(gaps, key=lambda e: (gaps[e], e))])
    scores = {e: ctx.point(e, node["column"], year) for e in members}
    pick = max if node["order"] == "max" else min
    return frozenset([pick(scores, key=lambda e: (scores[e], e))])


@operator("rk_among", ("table", "chart"),
          fields={"column": text, "order": one_of(*ORDERS), "among": condition(on_entity=False)},
          lenient=_rank_among_pick, cells=_rk_among_cells,
          references=_rk_among_references, variables=_rk_among_variables,
          bounds=_rk_among_bounds, conditions=("among",))
def _rk_among(node: Node, ctx: Context) -> frozenset[str]:
    """CT+RK / AR+RK without a period axis: among the entities whose condition holds (two or
    more), the clear winner on the chart, provided it is not the clear winner among all the
    entities (the condition must change the winner). Without ``among`` (its hop dropped) the
    ranking is over every entity, which that rule makes Undecidable."""
    members = _members(node, ctx)
    if len(members) < 2:
        raise Undecidable(f"{len(members)} entities meet the condition; a ranking among "
                          "them needs two or more")
    year = _one_period(ctx)
    scores = {e: ctx.point(e, node["column"], year) for e in ctx.entities}
    winner = best(ctx, {e: scores[e] for e in ctx.entities if e in members}, node["order"],
                  ctx.rank_gap)
    if _clear_top(ctx, scores, node["order"]) == winner:
        raise Undecidable("the winner among the entities meeting the condition is the clear "
                          "winner among all of them: the condition changes nothing")
    return frozenset({winner})


@operator("fact", ("text",), fields={"needle": text},
          cells=lambda n, v: {("text", e, chunk) for e, chunk in v.texts.items()})
def _fact(node: Node, ctx: Context) -> frozenset[str]:
    """FC: the entities whose text states the needle."""
    return frozenset(e for e in ctx.entities if mentions(ctx.texts[e], node["needle"]))
