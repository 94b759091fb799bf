"""Scores as the papers compute them, beside hopvista's own (``gen eval --metric NAME``).

hopvista scores an answer by its value, with exact rules (:mod:`hopvista.model.kinds`). The
papers' published figures come from their own scripts, which read answers differently; to set
a score beside a paper's, a run adds that paper's scores to each short answer's ``metrics``:

``mmtabreal``
    ``mmtabreal_em``, ``mmtabreal_ss``, ``mmtabreal_f1``: MMTabReal's ``Eval/eval.py``
    (:mod:`hopvista.eval.papers.mmtabreal`).
``tablevista``
    ``tablevista_em``: TableVista's ``scripts/eval.py`` exact match
    (:mod:`hopvista.eval.papers.tablevista`).

FCMR's figures need no other reading of the answers: ``summary.json`` holds them under
``papers.fcmr`` (:func:`hopvista.eval.summary.summarise`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hopvista.eval.papers import mmtabreal, tablevista
from hopvista.model import Item

PaperScore = Callable[[Item, str, Any, "str | None"], dict[str, float]]
"""``score(item, response, parsed, parse_rule)``: a paper's scores of one short answer."""

PAPER_METRICS: dict[str, PaperScore] = {
    "mmtabreal": mmtabreal.score,
    "tablevista": tablevista.score,
}
"""What ``gen eval --metric`` may add, by name."""

SCORED_KINDS = ("table_qa", "mmtable")
"""The item kinds the papers' scripts score: short answers (tables with pictures too)."""


def paper_metrics(names: Sequence[str], item: Item, response: str, parsed: Any,
                  rule: str | None) -> dict[str, float]:
    """The scores of the papers ``names`` for one answer (none for an item they do not
    score)."""
    if item.kind not in SCORED_KINDS:
        return {}
    found: dict[str, float] = {}
    for name in names:
        found |= PAPER_METRICS[name](item, response, parsed, rule)
    return found
