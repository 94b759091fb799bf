"""Reading a program on imputed inputs: a best guess that nearly always gives a label.

A solver that imputed a withheld modality has values, not certainties: margins are zero, and
a definite description ("the company whose …") is taken to pick its most plausible entity
when the imputed values leave it empty. Each operator declares its own lenient reading where it
is registered (``lenient=``, ``narrow=``: :mod:`hopvista.program.operators`); the built-in
ones are total, so a proxy solver answers from its imputation instead of falling back on a
prior, and the generator (:mod:`hopvista.audit.proxy`) can balance every reading of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hopvista.program.executor import Context, Undecidable, select
from hopvista.program.operators import OPERATORS, NarrowFn, Node


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
    """The entities a solver takes ``node`` to pick on imputed values: its operator's lenient
    reading (:attr:`hopvista.program.operators.Operator.lenient`), else its strict one."""
    op = node.get("op")
    definition = OPERATORS.get(op) if isinstance(op, str) and op in OPERATORS else None
    if definition is None or definition.lenient is None:
        return select(node, ctx)
    return definition.lenient(node, ctx)


def narrowing(node: Any) -> NarrowFn | None:
    """The lenient reading of ``node`` within candidates, when its operator has one
    (:attr:`hopvista.program.operators.Operator.narrow`): what ``and`` applies last."""
    op = node.get("op")
    if not isinstance(op, str) or op not in OPERATORS:
        return None
    return OPERATORS.get(op).narrow
