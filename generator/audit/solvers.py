"""Proxy solvers: each answers every statement without one modality (or without any data).

Every solver is cross-fitted: items are split into folds, and an item is answered by what was
learned on the other folds only. A solver returns one list of three predicted labels per item.

- ``no_chart``: the chart is imputed from the table (:class:`ChartModel`), then the item's own
  programs run on the verifier's executor.
- ``no_table``: the table is imputed from the chart (:class:`TableModel`), likewise.
- ``no_text``: a fact cannot be read, so the fact is guessed to belong to the entity the other
  hops select (the claim is judged true when they select exactly one entity).
- ``prior``: the majority label of the statement's type at its surface position (1, 2, 3).

Whenever the executor finds a statement Undecidable on what a solver has, the solver falls
back to ``prior``.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hopvista.audit.data import AuditItem, Margins
from hopvista.audit.impute import ChartModel, TableModel
from hopvista.verify.executor import Context, Undecidable, decide, select

Predictions = list[list[bool]]
#: What a fold's solver does with one test item: the item's three predicted labels.
ItemSolver = Callable[[AuditItem], list[bool]]


@dataclass(frozen=True)
class Priors:
    """Majority labels per (type, position), backing off to the type, then to all."""

    by_position: dict[tuple[str, int], bool]
    by_type: dict[str, bool]
    overall: bool

    @classmethod
    def fit(cls, items: Sequence[AuditItem]) -> Priors:
        """Count the labels of ``items``."""
        position: dict[tuple[str, int], Counter[bool]] = {}
        types: dict[str, Counter[bool]] = {}
        overall: Counter[bool] = Counter()
        for item in items:
            for index, statement in enumerate(item.statements, start=1):
                label = bool(statement["label"])
                position.setdefault((statement["type"], index), Counter())[label] += 1
                types.setdefault(statement["type"], Counter())[label] += 1
                overall[label] += 1
        return cls({k: _majority(v) for k, v in position.items()},
                   {k: _majority(v) for k, v in types.items()}, _majority(overall))

    def predict(self, statement: dict[str, Any], position: int) -> bool:
        """The prior label of ``statement`` at surface ``position`` (1-based)."""
        key = (statement["type"], position)
        if key in self.by_position:
            return self.by_position[key]
        return self.by_type.get(statement["type"], self.overall)


def _majority(counts: Counter[bool]) -> bool:
    return counts[True] > counts[False]


def cross_fit(items: Sequence[AuditItem],
              make: Callable[[list[AuditItem]], ItemSolver]) -> Predictions:
    """Answer each item with the solver ``make`` builds from the other folds' items."""
    predictions: Predictions = [[] for _ in items]
    for fold in sorted({item.fold for item in items}):
        solve = make([item for item in items if item.fold != fold])
        for index, item in enumerate(items):
            if item.fold == fold:
                predictions[index] = solve(item)
    return predictions


def lenient_decide(program: dict[str, Any], ctx: Context) -> bool:
    """A best guess on imputed inputs: the executor's selection, and the claim judged true
    when it names (or its fact belongs to) one of the entities picked. Raises
    :class:`Undecidable` when even that cannot be said (nothing picked, an unclear fact)."""
    try:
        picked = select(program["select"], ctx)
        claim = program.get("claim") or {}
        if not picked or not claim:
            raise Undecidable("nothing picked")
        if "entity" in claim:
            return claim["entity"] in picked
        owners = select(claim["fact"], ctx)
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError) as exc:
        raise Undecidable(str(exc)) from None
    if len(owners) != 1:
        raise Undecidable("the fact has no single owner")
    return bool(owners & picked)


def _run(item: dict[str, Any] | None, margins: Margins, priors: Priors,
         statements: list[dict[str, Any]], *, lenient: bool = False) -> list[bool]:
    """Each statement decided on ``item``, or its prior when it cannot be. ``lenient`` (for
    imputed inputs): chart margins of zero and :func:`lenient_decide`, since an imputed
    value is a guess anyway."""
    ctx = None
    if item is not None:
        try:
            ctx = Context(item, 0.0, 0.0) if lenient else \
                Context(item, margins.min_rank_gap, margins.min_trend_step)
        except (KeyError, TypeError, ValueError):
            ctx = None
    result = []
    for position, statement in enumerate(statements, start=1):
        try:
            if ctx is None:
                raise Undecidable("no inputs")
            judge = lenient_decide if lenient else decide
            result.append(judge(statement["program"], ctx))
        except Undecidable:
            result.append(priors.predict(statement, position))
    return result


def _exact_unless(modality: str, imputed: dict[str, Any] | None, item: AuditItem,
                  margins: Margins, priors: Priors, hidden: dict[str, Any]) -> list[bool]:
    """Statements that do not read ``modality`` run on ``hidden`` (the item with only that
    modality blanked); those that do run on ``imputed``."""
    reading = [modality in s["modalities"] for s in item.statements]
    on_imputed = _run(imputed, margins, priors, item.statements, lenient=True)
    on_rest = _run(hidden, margins, priors, item.statements)
    return [a if r else b for a, b, r in zip(on_imputed, on_rest, reading, strict=True)]


def without_chart(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with its chart values replaced by zeros (shape and column kept)."""
    result = copy.deepcopy(item)
    chart = result["inputs"]["chart"]
    chart.pop("kind", None)
    for series in chart["series"]:
        series["values"] = ["0" for _ in series["values"]]
    return result


def without_table(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with no table values (headers kept)."""
    result = copy.deepcopy(item)
    for row in result["inputs"]["table"]["rows"]:
        row["values"] = {}
    return result


def without_text(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with every text chunk emptied."""
    result = copy.deepcopy(item)
    for chunk in result["inputs"]["text"]:
        chunk["text"] = ""
    return result


def solve_prior(items: Sequence[AuditItem]) -> Predictions:
    """The majority label per (type, position) of the training folds."""
    def make(train: list[AuditItem]) -> ItemSolver:
        priors = Priors.fit(train)
        return lambda item: [priors.predict(s, i) for i, s in enumerate(item.statements, 1)]
    return cross_fit(items, make)


def solve_no_chart(items: Sequence[AuditItem], margins: Margins) -> Predictions:
    """Chart imputed from the table by lines learned on the training folds."""
    def make(train: list[AuditItem]) -> ItemSolver:
        priors, model = Priors.fit(train), ChartModel.fit(train)

        def solve(item: AuditItem) -> list[bool]:
            hidden = without_chart(item.data)
            return _exact_unless("chart", model.impute(hidden), item, margins, priors, hidden)
        return solve
    return cross_fit(items, make)


def solve_no_table(items: Sequence[AuditItem], margins: Margins) -> Predictions:
    """Table imputed from the chart by lines learned on the training folds."""
    def make(train: list[AuditItem]) -> ItemSolver:
        priors, model = Priors.fit(train), TableModel.fit(train)

        def solve(item: AuditItem) -> list[bool]:
            hidden = without_table(item.data)
            return _exact_unless("table", model.impute(hidden), item, margins, priors, hidden)
        return solve
    return cross_fit(items, make)


def solve_no_text(items: Sequence[AuditItem], margins: Margins) -> Predictions:
    """A fact is guessed to belong to the entity the other hops select."""
    def make(train: list[AuditItem]) -> ItemSolver:
        priors = Priors.fit(train)

        def solve(item: AuditItem) -> list[bool]:
            hidden = without_text(item.data)
            exact = _run(hidden, margins, priors, item.statements)
            ctx = Context(hidden, margins.min_rank_gap, margins.min_trend_step)
            result = []
            for position, statement in enumerate(item.statements, start=1):
                if "text" not in statement["modalities"]:
                    result.append(exact[position - 1])
                else:
                    result.append(_guess_fact(statement, position, ctx, priors))
            return result
        return solve
    return cross_fit(items, make)


def _guess_fact(statement: dict[str, Any], position: int, ctx: Context, priors: Priors) -> bool:
    """True when the statement's non-text hops select exactly one entity (taken to be the
    fact's owner); the prior when they cannot be evaluated without the text."""
    program = statement["program"]
    claim = program.get("claim") or {}
    if "fact" not in claim or program["select"].get("op") == "fact":
        return priors.predict(statement, position)
    try:
        if len(select(program["select"], ctx)) == 1:
            return True
    except (Undecidable, KeyError, TypeError, ValueError, ArithmeticError):
        return priors.predict(statement, position)
    return priors.predict(statement, position)
