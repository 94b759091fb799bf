"""Run every proxy solver on a dataset, tabulate their accuracies and judge the checks."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hopvista.audit.blind import solve_blind
from hopvista.audit.data import LEVELS, MODALITIES, AuditItem, Margins, read_items
from hopvista.audit.diversity import CueBalance, WordingReport, measure_wording
from hopvista.audit.solvers import (
    Predictions,
    solve_no_chart,
    solve_no_table,
    solve_no_text,
    solve_prior,
)
from hopvista.audit.stats import Bootstrap, Estimate
from hopvista.model.kinds import THREE_STATEMENT
from hopvista.output.files import OutputFile, json_written_by

AUDIT_FORMAT = "hopvista-audit"
"""The ``format`` the first key of ``gen audit --json`` names: the mark of a file the audit
may replace."""

STATEMENT_CHANCE = 0.5
SET_CHANCE = 0.5 ** THREE_STATEMENT.statements  # one of the 2^n answer sets

#: Solver name -> the modality it never sees (None: it sees no data at all).
WITHHELD: dict[str, str | None] = {"no_chart": "chart", "no_table": "table",
                                   "no_text": "text", "prior": None, "blind": None}
#: Solvers whose Hard item-set and relevant-statement accuracy are checked.
PROXIES = ("no_chart", "no_table", "no_text", "prior")
BY_PRIOR_LEGEND = ("by prior: answers the solver could not decide on what it has (it then "
                   "answers with the majority label of the statement's type and position)")


@dataclass(frozen=True)
class Thresholds:
    """Largest accuracies the checks accept (fractions)."""

    max_hard_set: float = 0.20
    max_statement: float = 0.55
    max_blind: float = 0.55
    max_prior_gap: float = 0.05
    """How far a solver without the cell visuals (or the blind classifier) may beat the
    prior on an ``mmtables`` dataset."""


@dataclass(frozen=True)
class Row:
    """One accuracy of one solver on one subset of statements (or items, for ``set:``)."""

    solver: str
    scope: str
    estimate: Estimate
    by_prior: int = 0
    """How many of the ``n`` answers (statements, or items with any such statement) the
    solver could not decide on what it has and took from the prior."""


@dataclass(frozen=True)
class Check:
    """A threshold check: its figure, the limit and whether it passed."""

    name: str
    accuracy: float
    low: float
    high: float
    limit: float
    passed: bool

    def message(self) -> str:
        """One line naming the check and its figures."""
        verdict = "ok" if self.passed else "FAILED"
        return (f"{verdict}: {self.name} {_pct(self.accuracy)} "
                f"[{_pct(self.low)}, {_pct(self.high)}] (limit {_pct(self.limit)}"
                f"{noise_note(self.passed, self.low, self.limit)})")


@dataclass(frozen=True)
class CueCheck(Check):
    """The check of a paraphrased dataset's surface cues per label (:func:`cue_check`):
    ``accuracy`` holds the smallest p-value of the cue test and ``limit`` the p-value a cue
    must stay at or above (the test's level over the cues tested)."""

    verdict: str = ""
    """The cue test's line: no cue separates the labels, or the cues that do."""

    def message(self) -> str:
        """One line naming the check and the cue test's verdict."""
        return f"{'ok' if self.passed else 'FAILED'}: {self.name}: {self.verdict}"


def cue_check(cues: CueBalance) -> CueCheck:
    """The check that no surface cue separates the labels beyond chance."""
    tested = [row.p for row in cues.rows if row.p < 1.0] or [1.0]
    limit = cues.alpha / max(cues.tested, 1)
    passed = not any(row.separates for row in cues.rows)
    return CueCheck("surface cues per label", min(tested), min(tested), min(tested), limit,
                    passed, cues.verdict())


def noise_note(passed: bool, low: float, limit: float) -> str:
    """What a check's line adds after its limit: for a failed check whose interval still
    reaches the limit, that the sample cannot tell a shortcut from noise; else nothing."""
    if passed or low > limit:
        return ""
    return "; the interval reaches the limit: audit more items to tell a shortcut from noise"


@dataclass
class AuditReport:
    """Every row and check of an audit."""

    path: str
    items: int
    folds: int
    seed: int
    rows: list[Row] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    wording: WordingReport | None = None
    """How the statements are worded (``gen audit``, not the audit a build records):
    paraphrase diversity, words per statement, surface cues per label."""

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return all(c.passed for c in self.checks)

    def row(self, solver: str, scope: str) -> Estimate | None:
        """The estimate of ``solver`` on ``scope``, if it was measured."""
        for row in self.rows:
            if row.solver == solver and row.scope == scope:
                return row.estimate
        return None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data (NaN written as null), ``"format":``
        :data:`AUDIT_FORMAT` first."""
        data = {"format": AUDIT_FORMAT, **asdict(self)}
        if data["wording"] is None:
            del data["wording"]
        return _no_nan(data)  # type: ignore[no-any-return]

    def render(self) -> str:
        """The report as a plain-text table."""
        table = self._render(f"gen audit {self.path}: {self.items} items, {self.folds}-fold "
                             f"cross-fitting, seed {self.seed}",
                             scope_width=26, legend=(BY_PRIOR_LEGEND,))
        return table if self.wording is None else f"{table}\n\n{self.wording.render()}"

    def _render(self, first_line: str, *, scope_width: int, legend: Sequence[str]) -> str:
        """``first_line``, a row per solver and scope (a blank line between solvers; scopes
        padded to ``scope_width``), the ``legend`` lines, then a line per check."""
        lines = [first_line,
                 f"{'solver':<9} {'scope':<{scope_width}} {'acc':>7} {'95% CI':>17} {'n':>6} "
                 f"{'chance':>7} {'by prior':>8}"]
        previous = ""
        for row in self.rows:
            if row.solver != previous and previous:
                lines.append("")
            previous = row.solver
            e = row.estimate
            lines.append(f"{row.solver:<9} {row.scope:<{scope_width}} {_pct(e.accuracy):>7} "
                         f"{'[' + _pct(e.low) + ', ' + _pct(e.high) + ']':>17} {e.n:>6} "
                         f"{_pct(e.chance):>7} {row.by_prior:>8}")
        lines.append("")
        lines.extend(legend)
        lines.extend(check.message() for check in self.checks)
        return "\n".join(lines)


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{100 * value:.1f}%"


def _no_nan(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_nan(v) for v in value]
    return value


def solve_all(items: Sequence[AuditItem], margins: Margins) -> dict[str, Predictions]:
    """Every solver's predictions, keyed by solver name."""
    return {"no_chart": solve_no_chart(items, margins),
            "no_table": solve_no_table(items, margins),
            "no_text": solve_no_text(items, margins),
            "prior": solve_prior(items),
            "blind": solve_blind(items)}


StatementFilter = Callable[[AuditItem, dict[str, Any]], bool]


def _scopes(items: Sequence[AuditItem], withheld: str | None) -> list[tuple[str, StatementFilter]]:
    """The statement subsets a solver is measured on, in report order."""
    def relevant(item: AuditItem, s: dict[str, Any]) -> bool:
        return withheld is None or withheld in s["modalities"]

    def level_of(level: str) -> StatementFilter:
        return lambda item, s: relevant(item, s) and item.level == level

    def type_of(kind: str) -> StatementFilter:
        return lambda item, s: relevant(item, s) and s["type"] == kind

    def reads(modality: str) -> StatementFilter:
        return lambda item, s: modality in s["modalities"]

    name = f"reads {withheld}" if withheld else "all"
    scopes: list[tuple[str, StatementFilter]] = [("all statements", lambda i, s: True)]
    if withheld:
        scopes.append((name, relevant))
    scopes += [(f"{name}: {lvl}", level_of(lvl)) for lvl in LEVELS]
    types = sorted({s["type"] for item in items for s in item.statements},
                   key=lambda t: (t.count("+"), t))
    scopes += [(f"{name}: {t}", type_of(t)) for t in types]
    scopes += [(f"reads {m} (any)", reads(m)) for m in MODALITIES if m != withheld]
    return scopes


def tabulate(items: Sequence[AuditItem], predictions: dict[str, Predictions],
             bootstrap: Bootstrap) -> list[Row]:
    """Rows for every solver: statement accuracies per scope, then item-set accuracies."""
    rows = []
    for solver, predicted in predictions.items():
        hits = [[p.label == s["label"] for p, s in zip(pred, item.statements, strict=True)]
                for pred, item in zip(predicted, items, strict=True)]
        for scope, keep in _scopes(items, WITHHELD[solver]):
            guessed = sum(p.prior for pred, item in zip(predicted, items, strict=True)
                          for p, s in zip(pred, item.statements, strict=True) if keep(item, s))
            correct = np.array([sum(h for h, s in zip(hit, item.statements, strict=True)
                                    if keep(item, s)) for hit, item in zip(hits, items,
                                                                           strict=True)],
                               dtype=float)
            total = np.array([sum(1 for s in item.statements if keep(item, s))
                              for item in items], dtype=float)
            if total.sum():
                rows.append(Row(solver, scope,
                                bootstrap.estimate(correct, total, STATEMENT_CHANCE), guessed))
        for level in (None, *LEVELS):
            member = np.array([level is None or item.level == level for item in items],
                              dtype=float)
            whole = np.array([all(hit) for hit in hits], dtype=float) * member
            guessed = sum(1 for pred, m in zip(predicted, member, strict=True)
                          if m and any(p.prior for p in pred))
            if member.sum():
                rows.append(Row(solver, f"item sets: {level or 'all'}",
                                bootstrap.estimate(whole, member, SET_CHANCE), guessed))
    return rows


def judge(report: AuditReport, thresholds: Thresholds) -> list[Check]:
    """The checks: Hard item sets and relevant statements of each proxy, and the blind
    classifier; a check whose subset is empty is not made."""
    wanted: list[tuple[str, str, str, float]] = []
    for solver in PROXIES:
        withheld = WITHHELD[solver]
        wanted.append((f"{solver} Hard item-set accuracy", solver, "item sets: hard",
                       thresholds.max_hard_set))
        scope = f"reads {withheld}" if withheld else "all statements"
        wanted.append((f"{solver} accuracy on '{scope}' statements", solver, scope,
                       thresholds.max_statement))
    wanted.append(("blind wording classifier accuracy", "blind", "all statements",
                   thresholds.max_blind))
    checks = []
    for name, solver, scope, limit in wanted:
        e = report.row(solver, scope)
        if e is not None and e.n:
            checks.append(Check(name, e.accuracy, e.low, e.high, limit, e.accuracy <= limit))
    return checks


def report_file(path: Path, dataset: Path, flag: str = "--json") -> OutputFile:
    """The JSON file an audit of ``dataset`` writes its report to: a new file or an earlier
    audit report, never inside a dataset or ``dataset`` itself."""
    return OutputFile(path, flag, "a hopvista audit report", json_written_by(AUDIT_FORMAT),
                      inputs=(dataset,))


def run_audit(path: str | Path, *, folds: int = 5, seed: int = 0,
              thresholds: Thresholds | None = None) -> AuditReport:
    """Audit the dataset at ``path`` (:class:`~hopvista.errors.UserError` if it is not one),
    and measure how its statements are worded
    (:func:`~hopvista.audit.diversity.measure_wording`); when statements carry paraphrase
    records, the surface cues per label are a check too (:func:`cue_check`)."""
    items, margins = read_items(path, folds, seed)
    report = audit_items(str(path), items, margins, folds=folds, seed=seed,
                         thresholds=thresholds)
    report.wording = measure_wording((item.data for item in items), seed=seed)
    if report.wording.paraphrased:
        report.checks.append(cue_check(report.wording.cues))
    return report


def audit_items(path: str, items: Sequence[AuditItem], margins: Margins, *, folds: int = 5,
                seed: int = 0, thresholds: Thresholds | None = None) -> AuditReport:
    """Audit ``items`` (already read, with their folds) of the dataset at ``path``."""
    report = AuditReport(path, len(items), folds, seed)
    report.rows = tabulate(items, solve_all(items, margins), Bootstrap(len(items), seed))
    report.checks = judge(report, thresholds or Thresholds())
    return report


#: The rows a dataset card shows: each proxy on what it lacks and on Hard item sets.
CARD_SCOPES = (("no_chart", "reads chart"), ("no_chart", "item sets: hard"),
               ("no_table", "reads table"), ("no_table", "item sets: hard"),
               ("no_text", "reads text"), ("no_text", "item sets: hard"),
               ("prior", "all statements"), ("prior", "item sets: hard"),
               ("blind", "all statements"))


def summary(report: AuditReport,
            scopes: Sequence[tuple[str, str]] = CARD_SCOPES) -> dict[str, Any]:
    """What the manifest (``audit``) and the dataset card record of an audit: the rows of
    ``scopes`` and every check, as fractions rounded to 4 places."""
    def fraction(value: float) -> float | None:
        return None if math.isnan(value) else round(value, 4)

    rows = []
    for solver, scope in scopes:
        e = report.row(solver, scope)
        if e is not None and e.n:
            rows.append({"solver": solver, "scope": scope, "accuracy": fraction(e.accuracy),
                         "low": fraction(e.low), "high": fraction(e.high), "n": e.n,
                         "chance": e.chance})
    return {"items": report.items, "folds": report.folds, "seed": report.seed, "rows": rows,
            "checks": [{"name": c.name, "accuracy": fraction(c.accuracy),
                        "low": fraction(c.low), "high": fraction(c.high), "limit": c.limit,
                        "passed": c.passed} for c in report.checks]}
