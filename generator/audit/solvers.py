"""Proxy solvers: each answers every statement without one modality (or without any data).

Every solver is cross-fitted: items are split into folds, and an item is answered by what was
learned on the other folds only. A solver returns one list of three predicted labels per item.

- ``no_chart``: the chart is imputed from the table (:class:`ChartModel`), then the item's own
  programs run on the verifier's executor.
- ``no_table``: the table is imputed from the chart (:class:`TableModel`), likewise.
- ``no_text``: a fact cannot be read, so the fact is guessed to belong to the entity the other
  hops select (the claim is judged true when they select exactly one entity).
- ``prior``: the majority label of the statement's type at its surface position (1, 2, 3).

On imputed inputs a solver reads programs leniently (:mod:`hopvista.program.lenient`): chart
margins of zero, a definite description takes its most plausible entity when the imputed
values leave it empty, and a claim is judged true when it names one of the entities picked.
Whenever even that cannot be said, the solver falls back to ``prior`` (the answer is marked
``prior``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from hopvista.audit.data import AuditItem, Margins
from hopvista.audit.impute import ChartModel, TableModel
from hopvista.program.executor import Context, Undecidable, decide, select
from hopvista.program.lenient import lenient_decide
from hopvista.program.withheld import without_chart, without_table, without_text


class Answer(NamedTuple):
    """A predicted label, and whether it is the prior's (the solver could not decide)."""

    label: bool
    prior: bool = False


Predictions = list[list[Answer]]
#: What a fold's solver does with one test item: the item's three answers.
ItemSolver = Callable[[AuditItem], list[Answer]]


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

    def answer(self, statement: dict[str, Any], position: int) -> Answer:
        """:meth:`predict` as an :class:`Answer` marked as the prior's."""
        return Answer(self.predict(statement, position), prior=True)


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


def _run(item: dict[str, Any] | None, margins: Margins, priors: Priors,
         statements: list[dict[str, Any]], *, lenient: bool = False) -> list[Answer]:
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
            result.append(Answer(judge(statement["program"], ctx)))
        except Undecidable:
            result.append(priors.answer(statement, position))
    return result


def _exact_unless(modality: str, imputed: dict[str, Any] | None, item: AuditItem,
                  margins: Margins, priors: Priors, hidden: dict[str, Any]) -> list[Answer]:
    """Statements that do not read ``modality`` run on ``hidden`` (the item with only that
    modality blanked); those that do run on ``imputed``."""
    reading = [modality in s["modalities"] for s in item.statements]
    on_imputed = _run(imputed, margins, priors, item.statements, lenient=True)
    on_rest = _run(hidden, margins, priors, item.statements)
    return [a if r else b for a, b, r in zip(on_imputed, on_rest, reading, strict=True)]


def solve_prior(items: Sequence[AuditItem]) -> Predictions:
    """The majority label per (type, position) of the training folds."""
    def make(train: list[AuditItem]) -> ItemSolver:
        priors = Priors.fit(train)
        return lambda item: [priors.answer(s, i) for i, s in enumerate(item.statements, 1)]
    return cross_fit(items, make)


class _Imputer(NamedTuple):
    """How one modality is withheld and imputed: the hider and the model class."""

    hide: Callable[[dict[str, Any]], dict[str, Any]]
    fit: Callable[[list[AuditItem]], Any]


def _solve_imputed(modality: str, imputer: _Imputer, items: Sequence[AuditItem],
                   margins: Margins) -> Predictions:
    """Withhold ``modality``, impute it with a model fitted on the training folds, run the
    programs on the imputation (the prior where they cannot decide)."""
    def make(train: list[AuditItem]) -> ItemSolver:
        priors, model = Priors.fit(train), imputer.fit(train)

        def solve(item: AuditItem) -> list[Answer]:
            hidden = imputer.hide(item.data)
            return _exact_unless(modality, model.impute(hidden), item, margins, priors, hidden)
        return solve
    return cross_fit(items, make)


def solve_no_chart(items: Sequence[AuditItem], margins: Margins) -> Predictions:
    """Chart imputed from the table by lines learned on the training folds."""
    return _solve_imputed("chart", _Imputer(without_chart, ChartModel.fit), items, margins)


def solve_no_table(items: Sequence[AuditItem], margins: Margins) -> Predictions:
    """Table imputed from the chart by lines learned on the training folds."""
    return _solve_imputed("table", _Imputer(without_table, TableModel.fit), items, margins)


def solve_no_text(items: Sequence[AuditItem], margins: Margins) -> Predictions:
    """A fact is guessed to belong to the entity the other hops select."""
    def make(train: list[AuditItem]) -> ItemSolver:
        priors = Priors.fit(train)

        def solve(item: AuditItem) -> list[Answer]:
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


def _guess_fact(statement: dict[str, Any], position: int, ctx: Context,
                priors: Priors) -> Answer:
    """True when the statement's non-text hops select exactly one entity (taken to be the
    fact's owner); the prior when they cannot be evaluated without the text."""
    program = statement["program"]
    claim = program.get("claim") or {}
    if "fact" not in claim or program["select"].get("op") == "fact":
        return priors.answer(statement, position)
    try:
        if len(select(program["select"], ctx)) == 1:
            return Answer(True)
    except (Undecidable, KeyError, TypeError, ValueError, ArithmeticError):
        return priors.answer(statement, position)
    return priors.answer(statement, position)
