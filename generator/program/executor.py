"""An independent executor of statement programs, reading only an item's stored inputs.

It shares nothing with the generator's label computation beyond the program language (see
``docs/format.md``): values are parsed back from the displayed strings, sets are recomputed
from scratch, and every presupposition (a definite description picks exactly one entity, a
ranking or trend is visually clear, no value sits on a threshold, both readings agree) is
checked. Anything that fails raises :class:`Undecidable`.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from functools import lru_cache
from itertools import pairwise
from typing import Any

from hopvista.errors import UserError
from hopvista.program.context import MISSING_TOKENS as MISSING_TOKENS
from hopvista.program.context import Context as Context
from hopvista.program.context import Undecidable as Undecidable
from hopvista.program.context import parse_number as parse_number
from hopvista.program.operators import OPERATORS
from hopvista.reading import as_read, spoken_as_digits

Program = dict[str, Any]
Path_ = tuple[Any, ...]


@lru_cache(maxsize=1 << 14)
def _normalise(text: str) -> str:
    return " ".join(spoken_as_digits(as_read(text)).lower().split())


def mentions(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words, as a reader sees both (case,
    spacing, invisible characters, compatibility forms and thousands separators ignored, small
    numbers in words or digits alike: :mod:`hopvista.reading`)."""
    haystack, needle = _normalise(text), _normalise(phrase)
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before = haystack[start - 1] if start > 0 else " "
        after = haystack[end] if end < len(haystack) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = haystack.find(needle, start + 1)
    return False


def compare(value: Decimal, cmp: str, threshold: Decimal) -> bool:
    """``value cmp threshold``; undecidable on equality or an unknown comparison."""
    if value == threshold:
        raise Undecidable(f"a value equals the threshold {threshold}")
    if cmp == ">":
        return value > threshold
    if cmp == "<":
        return value < threshold
    raise Undecidable(f"unknown comparison {cmp!r}")


def apply_sign(a: Decimal, sign: str, b: Decimal) -> Decimal:
    """``a + b`` or ``a - b``."""
    if sign == "+":
        return a + b
    if sign == "-":
        return a - b
    raise Undecidable(f"unknown sign {sign!r}")


def year_span(ctx: Context, first: int, last: int) -> list[int]:
    """The chart's periods from ``first`` to ``last`` (at least two, both on the chart)."""
    years = [y for y in ctx.periods if first <= y <= last]
    if len(years) < 2 or years[0] != first or years[-1] != last:
        raise Undecidable(f"periods {first}-{last} are not on the chart")
    return years


def trend(ctx: Context, node: dict[str, Any], years: list[int]) -> frozenset[str]:
    """Entities whose chart series moves the node's way over ``years``, every step clearly;
    undecidable when any entity's movement is unclear."""
    up = node["direction"] == "increasing"
    chosen = set()
    for e in ctx.entities:
        values = [ctx.point(e, node["column"], y) for y in years]
        moves = [(b - a) if up else (a - b) for a, b in pairwise(values)]
        if min(moves) >= ctx.trend_step and min(moves) > 0:
            chosen.add(e)
        elif min(moves) > -ctx.trend_step or min(moves) == 0:
            raise Undecidable(f"the trend of {e} is not visually clear")
    return frozenset(chosen)


def best(ctx: Context, scores: dict[str, Decimal], order: str, gap: Decimal) -> str:
    """The entity ranked first by ``order``, clear of the runner-up by ``gap``."""
    if order not in ("max", "min"):
        raise Undecidable(f"unknown order {order!r}")
    ordered = sorted(scores, key=lambda e: scores[e], reverse=(order == "max"))
    margin = abs(scores[ordered[0]] - scores[ordered[1]])
    if margin == 0 or margin < gap:
        raise Undecidable("the top two are too close to rank")
    return ordered[0]


def select(node: dict[str, Any], ctx: Context) -> frozenset[str]:
    """The set of entities a selector node picks (its operator's own definition)."""
    op = node["op"]
    if not isinstance(op, str):
        raise Undecidable(f"operation is not a name: {str(op)[:40]!r}")
    try:
        definition = OPERATORS.get(op)
    except UserError:
        raise Undecidable(f"unknown operation {op[:40]!r}") from None
    return definition.select(node, ctx)


def picked_by(node: dict[str, Any], ctx: Context) -> frozenset[str]:
    """:func:`select`, with a malformed node undecidable (as in :func:`decide`)."""
    try:
        return select(node, ctx)
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, RecursionError) as exc:
        raise Undecidable(f"malformed node: {type(exc).__name__}: {exc}") from None


def reads(node: Any, modality: str) -> bool:
    """Whether a node, or any node nested in its fields, reads ``modality``."""
    if isinstance(node, list):
        return any(reads(value, modality) for value in node)
    if not isinstance(node, dict):
        return False
    op = node.get("op")
    if isinstance(op, str) and op in OPERATORS and modality in OPERATORS.get(op).modalities:
        return True
    return any(reads(value, modality) for value in node.values())


def bounds(node: dict[str, Any], ctx: Context, hidden: str) -> tuple[frozenset[str],
                                                                     frozenset[str]]:
    """``(must, may)``: the entities a selector node picks in every completion and in some
    completion of the withheld modality ``hidden`` (docs/format.md, section 3.8). An operator
    without bounds of its own may pick anything when it (or a node inside it) reads
    ``hidden``, and exactly what it picks otherwise."""
    try:
        definition = OPERATORS.get(node["op"])
    except UserError:
        raise Undecidable(f"unknown operation {str(node['op'])[:40]!r}") from None
    if definition.bounds is not None:
        return definition.bounds(node, ctx, hidden)
    if reads(node, hidden):
        return frozenset(), frozenset(ctx.entities)
    picked = definition.select(node, ctx)
    return picked, picked


def decide(program: Program, ctx: Context) -> bool:
    """The label of a statement program; raises :class:`Undecidable` when there is none."""
    try:
        return _decide(program, ctx)
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, RecursionError) as exc:
        raise Undecidable(f"malformed program: {type(exc).__name__}: {exc}") from None


def _decide(program: Program, ctx: Context) -> bool:
    picked = select(program["select"], ctx)
    claim = program.get("claim")
    if claim and "only" in claim:
        return picked == frozenset({claimed_entity(claim["only"], ctx)})
    if len(picked) != 1:
        raise Undecidable(f"the selector picks {len(picked)} entities, not exactly one")
    (chosen,) = picked
    if not claim:
        raise Undecidable("the statement claims nothing")
    if "entity" in claim:
        return claimed_entity(claim["entity"], ctx) == chosen
    owners = select(claim["fact"], ctx)
    if not owners:
        raise Undecidable("no entity's text states the fact")
    return chosen in owners


def claimed_entity(entity: Any, ctx: Context) -> str:
    """An entity a claim names; undecidable unless it is one of the item's."""
    if not isinstance(entity, str) or entity not in ctx.entities:
        raise Undecidable(f"unknown entity {str(entity)[:40]!r}")
    return entity


def hops(program: Program) -> list[Path_]:
    """Paths of every hop of a program, each of which can be dropped."""
    select_node = program["select"]
    found = list(OPERATORS.get(select_node["op"]).hop_paths(select_node, ("select",)))
    if program.get("claim") and "fact" in program["claim"]:
        found.append(("claim",))
    return found


def drop(program: Program, path: Path_) -> Program:
    """The program without one hop: a selector becomes 'any entity', a condition (a field
    its operator lists in ``conditions``: ``rk_when`` then ranks over every period,
    ``rk_among`` among every entity) is deleted, a fact claim claims nothing."""
    result = copy.deepcopy(program)
    if path == ("claim",):
        result["claim"] = None
        return result
    parent: Any = result
    for key in path[:-1]:
        parent = parent[key]
    if path[-1] in _conditions(parent):
        del parent[path[-1]]
    else:
        parent[path[-1]] = {"op": "any"}
    return result


def _conditions(node: Any) -> tuple[str, ...]:
    """The condition fields of a node's operator (none for anything else)."""
    op = node.get("op") if isinstance(node, dict) else None
    return OPERATORS.get(op).conditions if isinstance(op, str) and op in OPERATORS else ()
