"""A run's figures: accuracy with bootstrap intervals, broken down every way the report shows.

Accuracy counts the items that got an answer: a request that failed is an error, reported
apart (``errors``) and left out, as an answer that cannot be parsed is not (it is wrong, and
counted in ``unparseable``). Every estimate has a 95% percentile interval from one shared set
of 1,000 resamples of the answered items (seed 0), so intervals of one run are comparable.
Statement figures treat "true" as the positive class (FCMR section 5.1): the confusion
matrix, precision, recall and F1 over every statement of the answered three-statement items
(a statement of an unparseable answer is counted as ``unanswered`` and as wrong).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from statistics import median
from typing import Any

import numpy as np

from hopvista.audit.stats import Bootstrap, Estimate
from hopvista.eval.derender import reading_summary
from hopvista.eval.error_classes import error_summary
from hopvista.eval.stages import stage_summary
from hopvista.model.kinds import THREE_STATEMENT

FACETS = ("difficulty", "variant", "family", "subtask", "order", "chart_library", "chart_kind",
          "table_theme")
"""Result fields the figures are broken down by (item-level accuracy)."""
PICTURE_FACETS = ("archetype", "question_type", "reasoning", "answer_type", "visual_kind")
"""MMTabReal's breakdowns (its Tables 8–11), in the summary of a run with ``mmtable`` items:
``visual_kind`` groups each item under every kind of picture it holds."""

STRUCTURE_FACETS = ("structure", "header_levels", "tables", "size", "richness", "steps",
                    "skill")
"""An item's attributes (``gen build --structure``), in the summary of a run with items that
record them: ``skill`` groups each item under every skill its statements need."""

METRICS = ("set_accuracy", "statement_accuracy", "em", "ss", "f1", "fields",
           "mmtabreal_em", "mmtabreal_ss", "mmtabreal_f1", "tablevista_em")


def estimate_json(estimate: Estimate) -> dict[str, Any]:
    """An estimate in the summary's form (``null`` for an empty group's figures)."""
    def number(x: float) -> float | None:
        return None if np.isnan(x) else round(x, 6)
    return {"value": number(estimate.accuracy), "low": number(estimate.low),
            "high": number(estimate.high), "n": estimate.n}


def summarise(results: Sequence[dict[str, Any]], run: dict[str, Any],
              seed: int = 0) -> dict[str, Any]:
    """The summary of ``results`` (the run's ``results.jsonl`` lines)."""
    answered = [r for r in results if r["error"] is None]
    boot = Bootstrap(len(answered), seed)
    ones = np.ones(len(answered))

    def share(values: Callable[[dict[str, Any]], float | None]) -> dict[str, Any]:
        picked = [values(r) for r in answered]
        got = np.array([v or 0.0 for v in picked], dtype=float)
        total = np.array([v is not None for v in picked], dtype=float)
        return estimate_json(boot.estimate(got, total, float("nan")))

    summary: dict[str, Any] = {
        "run": {k: run.get(k) for k in ("model", "setting", "options", "limit", "variants")}
        | {k: run[k] for k in ("strategy", "table_format") if k in run}
        | {"dataset": run.get("dataset")},
        "items": len(results),
        "answered": len(answered),
        "errors": len(results) - len(answered),
        "error_kinds": _error_kinds(results),
        "unparseable": sum(r["parsed"] is None for r in answered),
        "accuracy": estimate_json(boot.estimate(
            np.array([float(bool(r["correct"])) for r in answered]), ones, float("nan"))),
        "metrics": {m: share(_metric(m)) for m in METRICS
                    if any(m in r["metrics"] for r in answered)},
        "by": {facet: _by(answered, facet, boot) for facet in FACETS}
        | {facet: _by(answered, facet, boot) for facet in (*PICTURE_FACETS, *STRUCTURE_FACETS)
           if any(facet in r for r in results)},
        "tokens": {side: sum(r["tokens"][side] or 0 for r in results)
                   for side in ("input", "output")},
        "cost": _cost(results),
        "cached": sum(bool(r["cached"]) for r in results),
    }
    # Sections a run has only when its items or options give them, in this order.
    sections: dict[str, Callable[[], Any]] = {
        "statements": lambda: _statement_figures(answered, boot)
        if any(r.get("statements") for r in answered) else None,
        "variants": lambda: _consistency(answered),
        "markup": lambda: _markup(answered),
        "stages": lambda: stage_summary(answered),
        "papers": lambda: _papers(answered, seed),
        "error_classes": lambda: error_summary(results, run),
        "derendered": lambda: reading_summary(results),
        "seconds": lambda: _seconds(answered),
    }
    for key, figure in sections.items():
        value = figure()
        if value or (key == "error_classes" and value is not None):
            summary[key] = value
    return summary


def _seconds(answered: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The time answers took, where it was measured (a person's, ``--model human``): items
    timed, total, mean and median seconds; empty when nothing was timed."""
    times = [float(r["seconds"]) for r in answered if isinstance(r.get("seconds"), (int, float))]
    if not times:
        return {}
    return {"items": len(times), "total": round(sum(times), 3),
            "mean": round(sum(times) / len(times), 3), "median": round(median(times), 3)}


FCMR_LEVELS = ("easy", "medium", "hard")


def _papers(answered: Sequence[dict[str, Any]], seed: int) -> dict[str, Any]:
    """The papers' headline figures where they are computed differently from hopvista's:
    ``fcmr`` for three-statement items, ``tablevista`` when ``tablevista_em`` was scored."""
    out: dict[str, Any] = {}
    three = [r for r in answered if r["kind"] == THREE_STATEMENT.name]
    if three:
        out["fcmr"] = _fcmr(three, seed)
    scored = [r for r in answered if "tablevista_em" in r["metrics"]]
    if scored:
        out["tablevista"] = _tablevista(scored)
    return out


def _fcmr(three: Sequence[dict[str, Any]], seed: int) -> dict[str, Any]:
    """FCMR's table 3 and section 5.1: set accuracy per level and ``avg``, their unweighted
    mean (not over items); statement figures over the hard items only."""
    levels = {}
    for level in FCMR_LEVELS:
        mine = [r for r in three if r.get("difficulty") == level]
        if mine:
            levels[level] = round(sum(bool(r["correct"]) for r in mine) / len(mine), 6)
    hard = [r for r in three if r.get("difficulty") == "hard"]
    return {
        "levels": levels,
        "avg": round(sum(levels.values()) / len(levels), 6) if levels else None,
        "statements_hard": _statement_figures(hard, Bootstrap(len(hard), seed))
        if hard else None,
    }


def _tablevista(scored: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """TableVista's summary: the share of exact matches overall and per variant."""
    def share(rows: Sequence[dict[str, Any]]) -> float:
        return round(sum(float(r["metrics"]["tablevista_em"]) for r in rows) / len(rows), 6)
    variants = sorted({str(r["variant"]) for r in scored})
    return {"exact_match": share(scored),
            "by_variant": {v: share([r for r in scored if str(r["variant"]) == v])
                           for v in variants}}


def _metric(name: str) -> Callable[[dict[str, Any]], float | None]:
    def value(result: dict[str, Any]) -> float | None:
        found = result["metrics"].get(name)
        return None if found is None else float(found)
    return value


def _error_kinds(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    kinds: dict[str, int] = defaultdict(int)
    for r in results:
        if r["error"] is not None:
            kinds[str(r["error"]).split(":")[0]] += 1
    return dict(sorted(kinds.items()))


def _cost(results: Sequence[dict[str, Any]]) -> float | None:
    costs = [r["cost"] for r in results if r["cost"] is not None]
    return round(sum(costs), 6) if costs else None


def _by(answered: Sequence[dict[str, Any]], facet: str, boot: Bootstrap
        ) -> dict[str, Any]:
    groups = sorted({g for r in answered for g in _groups(r.get(facet))}, key=str)
    correct = np.array([float(bool(r["correct"])) for r in answered])
    out = {}
    for group in groups:
        member = np.array([float(group in _groups(r.get(facet))) for r in answered])
        out[str(group)] = estimate_json(boot.estimate(correct * member, member, float("nan")))
    return out


def _groups(value: Any) -> list[Any]:
    """The groups a result's facet value puts it in: a list's members, else the value."""
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _statement_figures(answered: Sequence[dict[str, Any]], boot: Bootstrap
                       ) -> dict[str, Any]:
    counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0, "unanswered": 0}
    types = sorted({s["type"] for r in answered for s in r.get("statements") or ()})
    right = {t: np.zeros(len(answered)) for t in types}
    total = {t: np.zeros(len(answered)) for t in types}
    for i, r in enumerate(answered):
        for s in r.get("statements") or ():
            total[s["type"]][i] += 1
            if s["predicted"] is None:
                counts["unanswered"] += 1
                continue
            right[s["type"]][i] += s["predicted"] == s["label"]
            key = ("t" if s["predicted"] == s["label"] else "f") + \
                ("p" if s["predicted"] else "n")
            counts[key] += 1
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * precision * recall / (precision + recall) \
        if precision and recall else (0.0 if precision == 0 or recall == 0 else None)
    all_right = sum(right.values(), np.zeros(len(answered)))
    all_total = sum(total.values(), np.zeros(len(answered)))
    return {
        "confusion": counts,
        "precision": precision, "recall": recall, "f1": f1,
        "accuracy": estimate_json(boot.estimate(all_right, all_total, 0.5)),
        "by_type": {t: estimate_json(boot.estimate(right[t], total[t], 0.5)) for t in types},
    }


def _consistency(answered: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Across the variants of each base item: whether the answers agree, and each variant's
    accuracy beside the base's on the same base items."""
    by_base: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in answered:
        by_base[r["base_id"]][r["variant"]] = r
    several = {b: v for b, v in by_base.items() if len(v) > 1}
    if not several:
        return None
    consistent = sum(len({repr(r["parsed"]) for r in v.values()}) == 1
                     for v in several.values())
    names = sorted({name for v in several.values() for name in v})
    drops = {}
    for name in names:
        pairs = [(v["base"], v[name]) for v in several.values() if "base" in v and name in v]
        if name == "base" or not pairs:
            continue
        base_acc = sum(bool(b["correct"]) for b, _ in pairs) / len(pairs)
        acc = sum(bool(x["correct"]) for _, x in pairs) / len(pairs)
        drops[name] = {"bases": len(pairs), "base_accuracy": round(base_acc, 6),
                       "accuracy": round(acc, 6), "drop": round(base_acc - acc, 6)}
    return {"bases": len(several), "consistency": round(consistent / len(several), 6),
            "drop": drops}


def _markup(answered: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Markup variants (``markup-*``, ``chart-markup-*``): accuracy per variant, and how the
    wrong answers on the incongruent ones (the marker on the distractor) failed; markup tasks:
    the same per family (``T1`` … ``T5``)."""
    rows = [r for r in answered if "markup-" in str(r.get("variant", ""))]
    tasks = [r for r in answered if r.get("kind") == "markup_task"]
    if not rows and not tasks:
        return None
    out: dict[str, Any] = _failures(rows, "variant")
    if tasks:
        out["families"] = _failures(tasks, "family")
    return out


def _failures(rows: Sequence[dict[str, Any]], key: str) -> dict[str, Any]:
    """Per value of ``key``: items, accuracy and the failure classes of the wrong answers."""
    out: dict[str, Any] = {}
    for name in sorted({str(r[key]) for r in rows}):
        mine = [r for r in rows if str(r[key]) == name]
        failures: dict[str, int] = defaultdict(int)
        for r in mine:
            if r.get("markup_failure"):
                failures[r["markup_failure"]] += 1
        out[name] = {"items": len(mine),
                     "accuracy": round(sum(bool(r["correct"]) for r in mine) / len(mine), 6),
                     "failures": dict(sorted(failures.items()))}
    return out
