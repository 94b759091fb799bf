"""Reading a program on imputed inputs: a best guess that nearly always gives a label.

A solver that imputed a withheld modality has values, not certainties: margins are zero, and
a definite description ("the company whose …") is taken to pick its most plausible entity
when the imputed values leave it empty. The guess is total for the built-in operators, so a
proxy solver answers from its imputation instead of falling back on a prior, and the
generator (:mod:`hopvista.proxy`) can balance every reading of it.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from itertools import pairwise
from typing import Any

from hopvista.verify.executor import (
    Context,
    Undecidable,
    apply_sign,
    compare,
    program_number,
    select,
)

Node = dict[str, Any]
#: Operators whose set is a trend over the chart (scored by their weakest step).
TREND_OPS = ("tr", "tr_all")


def lenient_decide(program: dict[str, Any], ctx: Context) -> bool:
    """The label a solver guesses on imputed inputs: the claim is judged true when it names
    (or its fact belongs to) one of the entities :func:`lenient_pick` picks; an ``only`` claim
    when exactly its entity is picked. Raises :class:`Undecidable` when even that cannot be
    said (nothing picked, an unclear fact, a malformed program)."""
    try:
        picked = lenient_pick(program["select"], ctx)
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError) as exc:
        raise Undecidable(str(exc)) from None
    return judge(picked, program.get("claim") or {}, lambda node: select(node, ctx))


def judge(picked: frozenset[str], claim: dict[str, Any],
          owners_of: Callable[[Node], frozenset[str]]) -> bool:
    """The claim judged against the entities picked (see :func:`lenient_decide`);
    ``owners_of`` gives the entities whose text states a fact node."""
    try:
        if "only" in claim:
            return picked == frozenset({claim["only"]})
        if not picked or not claim:
            raise Undecidable("nothing picked")
        if "entity" in claim:
            return claim["entity"] in picked
        owners = owners_of(claim["fact"])
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError) as exc:
        raise Undecidable(str(exc)) from None
    if not owners:
        raise Undecidable("no text states the fact")
    return bool(owners & picked)  # several texts may state a fact alike (format 5)


def lenient_pick(node: Node, ctx: Context) -> frozenset[str]:
    """The entities a solver takes ``node`` to pick on imputed values."""
    op = node.get("op")
    if op == "ct":
        values = {e: ctx.cell(e, node["column"], int(node["year"])) for e in ctx.entities}
        pick = max if node["cmp"] == ">" else min
        return frozenset([pick(values, key=lambda e: (values[e], e))])
    if op == "ar":
        first, second = (int(y) for y in node["years"])
        target = program_number(node["result"])
        sign = 1 if node["sign"] == "+" else -1
        gaps = {e: abs(ctx.cell(e, node["column"], first)
                       + sign * ctx.cell(e, node["column"], second) - target)
                for e in ctx.entities}
        return frozenset([min(gaps, key=lambda e: (gaps[e], e))])
    if op in TREND_OPS:
        return _trend_pick(node, ctx, frozenset(ctx.entities))
    if op == "and":
        return _and_pick(node, ctx)
    if op == "rk_when":
        return _rank_when_pick(node, ctx)
    if op == "rk_among":
        return _rank_among_pick(node, ctx)
    return select(node, ctx)


def _trend_years(node: Node, ctx: Context) -> list[int]:
    if node["op"] == "tr":
        return [y for y in ctx.years if int(node["from"]) <= y <= int(node["to"])]
    return list(ctx.years)


def trend_score(node: Node, ctx: Context, entity: str) -> Decimal:
    """How clearly ``entity`` moves the node's way: its weakest step (negative when some
    step goes the other way)."""
    sign = 1 if node["direction"] == "increasing" else -1
    values = [ctx.point(entity, node["column"], y) for y in _trend_years(node, ctx)]
    return min(sign * (b - a) for a, b in pairwise(values))


def _trend_pick(node: Node, ctx: Context, among: frozenset[str]) -> frozenset[str]:
    """The entities of ``among`` that move the node's way every step; when none does, the
    one that comes closest."""
    if not among:
        return among
    scores = {e: trend_score(node, ctx, e) for e in sorted(among)}
    moving = frozenset(e for e, s in scores.items() if s > 0)
    return moving or frozenset([max(scores, key=lambda e: (scores[e], e))])


def _and_pick(node: Node, ctx: Context) -> frozenset[str]:
    """The entities every argument picks; when a trend argument would leave none, the
    entity the other arguments pick that trends most clearly."""
    trends = [arg for arg in node["args"] if arg.get("op") in TREND_OPS]
    picked = frozenset(ctx.entities)
    for arg in node["args"]:
        if arg not in trends:
            picked &= lenient_pick(arg, ctx)
    for arg in trends:
        picked = _trend_pick(arg, ctx, picked)
    return picked


def _rank_when_pick(node: Node, ctx: Context) -> frozenset[str]:
    """The winner in every period the condition holds; when the imputed condition holds in
    none, or no entity wins them all, the entity that wins most of them (all periods when
    none)."""
    try:
        return select(node, ctx)
    except Undecidable:
        pass
    years = _condition_years(node, ctx) or list(ctx.years)
    wins: dict[str, int] = dict.fromkeys(ctx.entities, 0)
    pick = max if node["order"] == "max" else min
    for y in years:
        scores = {e: ctx.point(e, node["column"], y) for e in ctx.entities}
        wins[pick(scores, key=lambda e: (scores[e], e))] += 1
    return frozenset([max(wins, key=lambda e: (wins[e], e))])


def _condition_years(node: Node, ctx: Context) -> list[int]:
    when = node.get("when")
    if when is None:
        return list(ctx.years)
    threshold = program_number(when["threshold"])
    return [y for y in ctx.years
            if compare(_terms_value(ctx, when["terms"], when["entity"], y), when["cmp"],
                       threshold)]


def _terms_value(ctx: Context, terms: list[dict[str, str]], entity: str, year: int
                 ) -> Decimal:
    """A condition's left-hand side for one entity and period: its terms added or
    subtracted."""
    value = Decimal(0)
    for term in terms:
        value = apply_sign(value, term["sign"], ctx.cell(entity, term["column"], year))
    return value


def _rank_among_pick(node: Node, ctx: Context) -> frozenset[str]:
    """The winner on the chart among the entities whose condition holds, by the imputed
    values with no margin and none of rk_among's presuppositions; when the condition holds
    for none, the entity closest to meeting it."""
    (year,) = ctx.years
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
