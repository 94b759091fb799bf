"""The built-in operators of the program language (docs/format.md), as the verifier reads them.

Importing this module registers them in :data:`hopvista.verify.operators.OPERATORS`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hopvista.verify.executor import (
    Context,
    Undecidable,
    apply_sign,
    best,
    bounds,
    compare,
    mentions,
    program_number,
    select,
    trend,
    year_span,
)
from hopvista.verify.operators import Bounds, Cell, Node, PathT, View, operator, shown_number


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
        out = {key: view.label(node["column"]), "first": view.show(view.years[0]),
               "last": view.show(view.years[-1])}
        if "threshold" in node:
            out["threshold"] = shown_number(node["threshold"])
        return out
    return variables


@operator("any", ())
def _any(node: Node, ctx: Context) -> frozenset[str]:
    """Every entity (what a dropped hop becomes)."""
    return frozenset(ctx.entities)


def _and_hops(node: Node, path: PathT) -> list[PathT]:
    from hopvista.verify.operators import OPERATORS

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


@operator("and", (), hop_paths=_and_hops, bounds=_and_bounds)
def _and(node: Node, ctx: Context) -> frozenset[str]:
    """The entities every argument picks."""
    picked = frozenset(ctx.entities)
    for arg in node["args"]:
        picked &= select(arg, ctx)
    return picked


@operator("ct", ("table",), cells=lambda n, v: _table_cells(n, v, [n["year"]]),
          references=_table_column,
          variables=lambda n, v: {"column": v.label(n["column"]), "period": v.show(n["year"]),
                                  "threshold": shown_number(n["threshold"])})
def _ct(node: Node, ctx: Context) -> frozenset[str]:
    """CT: value in one period compared with a threshold."""
    t = program_number(node["threshold"])
    return frozenset(e for e in ctx.entities
                     if compare(ctx.cell(e, node["column"], node["year"]), node["cmp"], t))


@operator("ct_all", ("table",), cells=lambda n, v: _table_cells(n, v, v.years),
          references=_table_column, variables=_all_years_words("cond_column"))
def _ct_all(node: Node, ctx: Context) -> frozenset[str]:
    """The condition of CT+TR: the comparison holds in every period."""
    t = program_number(node["threshold"])
    return frozenset(e for e in ctx.entities
                     if all([compare(ctx.cell(e, node["column"], y), node["cmp"], t)
                             for y in ctx.years]))


@operator("ar", ("table",), cells=lambda n, v: _table_cells(n, v, list(n["years"])),
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


@operator("ar_sum", ("table",), cells=lambda n, v: _table_cells(n, v, v.years),
          references=_table_column, variables=_all_years_words("cond_column"))
def _ar_sum(node: Node, ctx: Context) -> frozenset[str]:
    """The condition of AR+TR: the total over the periods compared with a threshold."""
    t = program_number(node["threshold"])
    return frozenset(e for e in ctx.entities if compare(
        sum((ctx.cell(e, node["column"], y) for y in ctx.years), Decimal(0)), node["cmp"], t))


@operator("tr", ("chart",),
          cells=lambda n, v: _chart_cells(n, v, [y for y in v.chart_years
                                                 if n["from"] <= y <= n["to"]]),
          references=_chart_column,
          variables=lambda n, v: {"column": v.label(n["column"]), "period1": v.show(n["from"]),
                                  "period2": v.show(n["to"])})
def _tr(node: Node, ctx: Context) -> frozenset[str]:
    """TR: a strict, visually clear trend from one period to another."""
    return trend(ctx, node, year_span(ctx, node["from"], node["to"]))


@operator("tr_all", ("chart",), cells=lambda n, v: _chart_cells(n, v, v.chart_years),
          references=_chart_column, variables=_all_years_words("trend_column"))
def _tr_all(node: Node, ctx: Context) -> frozenset[str]:
    """The trend of CT+TR / AR+TR: over every period."""
    return trend(ctx, node, ctx.years)


@operator("rk", ("chart",), cells=lambda n, v: _chart_cells(n, v, [n["year"]]),
          references=_chart_column,
          variables=lambda n, v: {"column": v.label(n["column"]), "period": v.show(n["year"])})
def _rk(node: Node, ctx: Context) -> frozenset[str]:
    """RK: the clear winner of one period on the chart."""
    scores = {e: ctx.point(e, node["column"], node["year"]) for e in ctx.entities}
    return frozenset({best(ctx, scores, node["order"], ctx.rank_gap)})


def _rk_when_cells(node: Node, view: View) -> set[Cell]:
    cells = _chart_cells(node, view, view.chart_years)
    when = node.get("when")
    if when is not None:
        cells |= {("table", when["entity"], t["column"], y) for t in when["terms"]
                  for y in view.years}
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


def _rk_when_bounds(node: Node, ctx: Context, hidden: str) -> Bounds:
    """Without the table the condition's years are unknown (a completion can make any
    non-empty set of years meet it), so the node may pick any entity that clearly wins the
    chart in some year, and none for certain; without the chart, anything."""
    if hidden == "chart":
        return frozenset(), frozenset(ctx.entities)
    if hidden == "table" and node.get("when") is not None:
        winners = set()
        for year in ctx.years:
            scores = {e: ctx.point(e, node["column"], year) for e in ctx.entities}
            try:
                winners.add(best(ctx, scores, node["order"], ctx.rank_gap))
            except Undecidable:
                continue
        return frozenset(), frozenset(winners)
    picked = _rk_when(node, ctx)
    return picked, picked


@operator("rk_when", ("table", "chart"), cells=_rk_when_cells, references=_rk_when_references,
          variables=_rk_when_variables, bounds=_rk_when_bounds,
          hop_paths=lambda n, path: [(*path, "when"), path])
def _rk_when(node: Node, ctx: Context) -> frozenset[str]:
    """CT+RK / AR+RK: the winner in every period where the condition on an entity holds."""
    when = node.get("when")
    if when is None:
        years = list(ctx.years)
    else:
        t = program_number(when["threshold"])
        years = []
        for y in ctx.years:
            value = Decimal(0)
            for term in when["terms"]:
                value = apply_sign(value, term["sign"],
                                   ctx.cell(when["entity"], term["column"], y))
            if compare(value, when["cmp"], t):
                years.append(y)
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


@operator("fact", ("text",),
          cells=lambda n, v: {("text", e, chunk) for e, chunk in v.texts.items()})
def _fact(node: Node, ctx: Context) -> frozenset[str]:
    """FC: the entities whose text states the needle."""
    return frozenset(e for e in ctx.entities if mentions(ctx.texts[e], node["needle"]))
