"""``gen audit`` on multimodal-table datasets (manifest kind ``mmtables``): solvers that never
see the cell visuals, to show every question needs its pictures.

- ``no_image``: each item's program runs on the table's text with every visual's attributes
  replaced by the most frequent value of that attribute for that visual kind on the training
  folds; when the program cannot run on that, the prior's answer.
- ``prior``: the most frequent answer per (question type, answer type, archetype, what is
  asked) on the training folds, backing off to coarser keys.
- ``blind``: a TF-IDF + logistic-regression classifier from the question's wording to its
  answer, on items whose answers come from a small set (yes/no, counts, a picture's colour or
  shape).

Every solver is cross-fitted over folds of items (an item is answered by what was learned on
the other folds), answers are scored by the ``mmtable`` item kind, and each accuracy comes
with a bootstrap 95% interval. A dataset passes when neither ``no_image`` nor ``blind`` beats
the prior by more than :attr:`~hopvista.audit.report.Thresholds.max_prior_gap`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hopvista.audit.data import assign_folds
from hopvista.audit.report import AuditReport, Check, Row, Thresholds, run_audit
from hopvista.audit.stats import Bootstrap
from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.dataset import load
from hopvista.model.kinds import score
from hopvista.program.cells import ProgramError, answer_readings, execute

MMTABLES_KIND = "mmtables"
"""The manifest ``kind`` of a multimodal-table build."""
SOLVERS = ("no_image", "prior", "blind")
ALL, CLOSED = "all items", "closed answers"
#: The fields of ``tags`` the report breaks accuracies down by.
BREAKDOWNS = ("question_type", "reasoning", "archetype", "answer_type")


@dataclass(frozen=True)
class MmItem:
    """One ``mmtable`` item and its cross-fitting fold."""

    item: Item
    fold: int

    @property
    def program(self) -> dict[str, Any]:
        """The item's program."""
        return dict(self.item.program or {})

    def tag(self, name: str) -> str:
        """One of the item's tags (``""`` when it has none)."""
        tags = self.item.tags
        value = tags.get(name) if isinstance(tags, Mapping) else getattr(tags, name, None)
        return str(value or "")

    @property
    def asked(self) -> str:
        """What the answer is made of: the op and the attributes or columns read
        (``value:color``, ``count``), never the table's own text."""
        op = str(self.program.get("op"))
        if op in ("check", "count", "locate"):
            return op
        parts = [str(r.get("attribute") or "column") for r in answer_readings(self.program)]
        return ":".join([op, *parts])

    @property
    def closed(self) -> bool:
        """Whether the answer comes from a small set: yes/no, a count, or a picture's
        attribute (a colour, a shape)."""
        op = self.program.get("op")
        if op in ("check", "count"):
            return True
        reads = answer_readings(self.program)
        return op == "value" and bool(reads) and all("visual" in r for r in reads)


def answer_key(answer: Any) -> str:
    """An answer as a key (JSON, sorted keys)."""
    return json.dumps(answer, sort_keys=True, ensure_ascii=False)


Solution = tuple[Any, bool]
"""A predicted answer and whether it is the prior's (the solver could not decide)."""
Predictions = list[Solution]


@dataclass(frozen=True)
class AnswerPrior:
    """Most frequent answers by (question type, answer type, archetype, asked), backing off
    to (question type, answer type, asked), (asked), then all items."""

    counts: dict[tuple[str, ...], Counter[str]]

    @staticmethod
    def keys(item: MmItem) -> list[tuple[str, ...]]:
        """The item's keys, finest first."""
        qt, at = item.tag("question_type"), item.tag("answer_type")
        asked = item.asked
        return [(qt, at, item.tag("archetype"), asked), (qt, at, asked), (asked,), ()]

    @classmethod
    def fit(cls, items: Sequence[MmItem]) -> AnswerPrior:
        """Count the answers of ``items``."""
        counts: dict[tuple[str, ...], Counter[str]] = {}
        for item in items:
            for key in cls.keys(item):
                counts.setdefault(key, Counter())[answer_key(item.item.answer)] += 1
        return cls(counts)

    def answer(self, item: MmItem) -> Solution:
        """The most frequent answer of the finest key seen (ties: the smallest key)."""
        for key in self.keys(item):
            found = self.counts.get(key)
            if found:
                best = min(found, key=lambda a: (-found[a], a))
                return json.loads(best), True
        return None, True


@dataclass(frozen=True)
class AttributeModes:
    """The most frequent value of each visual attribute, per visual kind."""

    modes: dict[tuple[str, str], Any]

    @classmethod
    def fit(cls, items: Sequence[MmItem]) -> AttributeModes:
        """Count the attribute values of every visual of ``items``."""
        counts: dict[tuple[str, str], Counter[str]] = {}
        for item in items:
            for visual in item.item.inputs.visuals:
                data = visual.model_dump(mode="json")
                fields = {"colors": data["colors"], **data["attributes"]}
                for name, value in fields.items():
                    counts.setdefault((data["kind"], name), Counter())[answer_key(value)] += 1
        return cls({key: json.loads(min(c, key=lambda v: (-c[v], v)))
                    for key, c in counts.items()})

    def impute(self, visual: Mapping[str, Any]) -> dict[str, Any]:
        """``visual`` with its colours and attributes replaced by the modes of its kind
        (an attribute never seen on the training folds is left out)."""
        kind = str(visual["kind"])
        attributes = {name: self.modes[(kind, name)] for name in visual.get("attributes", {})
                      if (kind, name) in self.modes}
        return {"kind": kind, "colors": self.modes.get((kind, "colors"), []),
                "attributes": attributes}


def grid_and_visuals(item: Item) -> tuple[list[list[str]], dict[tuple[int, int], Any]]:
    """An item's table as a grid (header first) and its visuals by cell."""
    table = item.inputs.table
    header = list(getattr(table, "header", []) or [])
    rows = [list(r) for r in getattr(table, "rows", []) or []]
    visuals = {(v.row, v.col): v.model_dump(mode="json") for v in item.inputs.visuals}
    return [header, *rows], visuals


def cross_fit(items: Sequence[MmItem],
              make: Callable[[list[MmItem]], Callable[[MmItem], Solution]]) -> Predictions:
    """Answer each item with the solver ``make`` builds from the other folds' items."""
    predictions: Predictions = [(None, True)] * len(items)
    for fold in sorted({item.fold for item in items}):
        solve = make([item for item in items if item.fold != fold])
        for index, item in enumerate(items):
            if item.fold == fold:
                predictions[index] = solve(item)
    return predictions


def solve_prior(items: Sequence[MmItem]) -> Predictions:
    """The most frequent answer of the item's key on the training folds."""
    return cross_fit(items, lambda train: AnswerPrior.fit(train).answer)


def solve_no_image(items: Sequence[MmItem]) -> Predictions:
    """The program run on the table's text with the visuals imputed by their kinds' modes;
    the prior when it cannot run."""
    def make(train: list[MmItem]) -> Callable[[MmItem], Solution]:
        prior, modes = AnswerPrior.fit(train), AttributeModes.fit(train)

        def solve(item: MmItem) -> Solution:
            grid, visuals = grid_and_visuals(item.item)
            imputed = {cell: modes.impute(v) for cell, v in visuals.items()}
            try:
                return execute(grid, imputed, item.program), False
            except (ProgramError, KeyError, TypeError, ValueError, ArithmeticError):
                return prior.answer(item)
        return solve
    return cross_fit(items, make)


def solve_blind(items: Sequence[MmItem]) -> Predictions:
    """The answer of each closed-answer item predicted from its question's wording by a
    model of the other folds' closed-answer items; other items get the prior's answer."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy: sklearn
    from sklearn.linear_model import LogisticRegression  # heavy: sklearn

    predictions = solve_prior(items)
    for fold in sorted({item.fold for item in items}):
        train = [i for i in items if i.fold != fold and i.closed]
        test = [k for k, i in enumerate(items) if i.fold == fold and i.closed]
        labels = [answer_key(i.item.answer) for i in train]
        if len(set(labels)) < 2 or not test:
            continue
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2,
                                     norm=None)
        try:
            features = vectorizer.fit_transform([i.item.question or "" for i in train])
        except ValueError:  # no n-gram occurs twice: nothing to learn from the wording
            continue
        model = LogisticRegression(max_iter=2000)
        model.fit(features, labels)
        guessed = model.predict(vectorizer.transform([items[k].item.question or ""
                                                      for k in test]))
        for k, label in zip(test, guessed, strict=True):
            predictions[k] = (json.loads(str(label)), False)
    return predictions


def correct(item: MmItem, answer: Any) -> bool:
    """Whether ``answer`` is right for ``item`` by its kind's scoring."""
    return answer is not None and score(item.item, answer).correct


def chance_of(items: Sequence[MmItem]) -> list[float]:
    """Each item's chance: one over the distinct answers of its (question type, answer type)
    in the dataset."""
    answers: dict[tuple[str, str], set[str]] = {}
    for item in items:
        key = (item.tag("question_type"), item.tag("answer_type"))
        answers.setdefault(key, set()).add(answer_key(item.item.answer))
    return [1 / len(answers[(i.tag("question_type"), i.tag("answer_type"))]) for i in items]


Scope = tuple[str, Callable[[MmItem], bool]]


def scopes(items: Sequence[MmItem]) -> list[Scope]:
    """The item subsets accuracies are measured on, in report order."""
    found: list[Scope] = [(ALL, lambda i: True), (CLOSED, lambda i: i.closed)]
    for name in BREAKDOWNS:
        for value in sorted({i.tag(name) for i in items}):
            found.append((f"{name}: {value}",
                          lambda i, n=name, v=value: i.tag(n) == v))  # type: ignore[misc]
    return found


LEGEND = (
    "no_image: the program run with each picture replaced by its kind's most frequent "
    "attributes",
    "prior: the most frequent answer of the question's type, answer type, archetype and "
    "what it asks (the op and what it reads)",
    "blind: the answer guessed from the question's wording (closed answers: yes/no, counts, "
    "a picture's attribute)",
    "by prior: answers the solver took from the prior; chance: one over the distinct answers "
    "of the question and answer type")


@dataclass
class MmtablesAuditReport(AuditReport):
    """The audit of an ``mmtables`` dataset: solvers without the cell visuals."""

    kind: str = MMTABLES_KIND

    def render(self) -> str:
        """The report as a plain-text table."""
        return self._render(f"gen audit {self.path}: {self.items} mmtable items (questions on "
                            f"tables with pictures in cells), {self.folds}-fold cross-fitting, "
                            f"seed {self.seed}", scope_width=34, legend=LEGEND)


def tabulate(items: Sequence[MmItem], predictions: Mapping[str, Predictions],
             bootstrap: Bootstrap) -> list[Row]:
    """A row per solver and scope (the blind classifier on closed answers only)."""
    chances = chance_of(items)
    rows = []
    for solver, predicted in predictions.items():
        hits = np.array([correct(i, p[0]) for i, p in zip(items, predicted, strict=True)],
                        dtype=float)
        for scope, keep in scopes(items):
            if solver == "blind" and scope != CLOSED:
                continue
            member = np.array([keep(i) for i in items], dtype=float)
            if not member.sum():
                continue
            chance = round(float(np.dot(member, chances) / member.sum()), 4)
            guessed = sum(1 for i, p in zip(items, predicted, strict=True) if keep(i) and p[1])
            rows.append(Row(solver, scope, bootstrap.estimate(hits * member, member, chance),
                            guessed))
    return rows


def gap_check(name: str, solver: Predictions, prior: Predictions, items: Sequence[MmItem],
              keep: Callable[[MmItem], bool], bootstrap: Bootstrap, limit: float) -> Check | None:
    """How far ``solver`` beats the prior on the items ``keep`` picks, with its bootstrap
    interval; passed when it is at most ``limit``."""
    member = np.array([keep(i) for i in items], dtype=float)
    if not member.sum():
        return None
    ahead = np.array([correct(i, s[0]) - correct(i, p[0])
                      for i, s, p in zip(items, solver, prior, strict=True)], dtype=float)
    gap = float(np.dot(ahead, member) / member.sum())
    counts = bootstrap.weights @ member
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = (bootstrap.weights @ (ahead * member)) / counts
    low, high = np.percentile(ratios[counts > 0], [2.5, 97.5])
    return Check(name, gap, float(low), float(high), limit, gap <= limit)


def judge(items: Sequence[MmItem], predictions: Mapping[str, Predictions],
          bootstrap: Bootstrap, thresholds: Thresholds) -> list[Check]:
    """The checks: neither the no-image solver (on every item) nor the blind classifier (on
    closed answers) beats the prior by more than the limit."""
    prior = predictions["prior"]
    wanted = [("no_image accuracy above prior, all items", predictions["no_image"],
               lambda i: True),
              ("blind accuracy above prior, closed answers", predictions["blind"],
               lambda i: i.closed)]
    checks = [gap_check(name, solver, prior, items, keep, bootstrap,
                        thresholds.max_prior_gap) for name, solver, keep in wanted]
    return [c for c in checks if c is not None]


def mmtable_items(items: Iterable[Item], folds: int, seed: int, where: str) -> list[MmItem]:
    """The ``mmtable`` items among ``items`` with their folds (the variants of one base item
    share its fold); :class:`UserError` naming ``where`` when there are fewer base items than
    ``folds``."""
    kept = [item for item in items if item.kind == "mmtable" and item.program]
    if len(kept) < folds:
        raise UserError(f"{where}: {len(kept)} mmtable item(s), fewer than the "
                        f"{folds} folds of the audit")
    bases = list(dict.fromkeys(item.base_id for item in kept))
    if len(bases) < folds:
        raise UserError(f"{where}: {len(bases)} mmtable base item(s), fewer than the "
                        f"{folds} folds of the audit")
    fold_of = dict(zip(bases, assign_folds(len(bases), folds, seed), strict=True))
    return [MmItem(item, fold_of[item.base_id]) for item in kept]


def audit_mmtables(path: str | Path, items: Iterable[Item], *, folds: int = 5, seed: int = 0,
                   thresholds: Thresholds | None = None) -> MmtablesAuditReport:
    """Audit the ``mmtable`` items among ``items`` of the dataset at ``path``."""
    audited = mmtable_items(items, folds, seed, str(path))
    predictions = {"no_image": solve_no_image(audited), "prior": solve_prior(audited),
                   "blind": solve_blind(audited)}
    bootstrap = Bootstrap(len(audited), seed)
    report = MmtablesAuditReport(str(path), len(audited), folds, seed)
    report.rows = tabulate(audited, predictions, bootstrap)
    report.checks = judge(audited, predictions, bootstrap, thresholds or Thresholds())
    return report


#: The rows a dataset card shows of an mmtables audit.
CARD_SCOPES = (("no_image", ALL), ("prior", ALL), ("no_image", CLOSED), ("prior", CLOSED),
               ("blind", CLOSED))


def audit_dataset(path: str | Path, *, folds: int = 5, seed: int = 0,
                  thresholds: Thresholds | None = None) -> AuditReport:
    """Audit the dataset at ``path`` by its kind: an ``mmtables`` build (or a dataset of
    ``mmtable`` items, such as its variants) by :func:`audit_mmtables`, any other by the
    proxy solvers of three-statement items (:class:`~hopvista.errors.UserError` if it is
    not a dataset)."""
    dataset = load(path)
    first = next(iter(dataset), None)
    if dataset.manifest.kind == MMTABLES_KIND or (first is not None
                                                 and first.kind == "mmtable"):
        return audit_mmtables(path, dataset, folds=folds, seed=seed, thresholds=thresholds)
    return run_audit(path, folds=folds, seed=seed, thresholds=thresholds)
