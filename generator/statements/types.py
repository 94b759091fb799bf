"""The 17 statement types of FCMR Table 12, as compositions of selectors, and their builder.

A type is a selector (one hop or a fused pair) plus a claim: either "the selected entity is
X" (entity claim) or, for FC + X types, "the selected entity states this fact" (fact claim).
False statements are entity swaps within the instance (FCMR B.6): another entity is claimed,
or another entity's fact is attributed to the selected one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from hopvista.domain import STATEMENT_TYPES, DomainPack
from hopvista.errors import GenerationError
from hopvista.instance import Instance
from hopvista.statements.arithmetic import ar, ar_sum
from hopvista.statements.fact import fact_node, facts_of, fc
from hopvista.statements.ranking import rk, rk_when
from hopvista.statements.selection import Margins, Selection, text_cells
from hopvista.statements.threshold import ct, ct_all
from hopvista.statements.trend import tr, tr_all
from hopvista.statements.wording import render

MODALITY_ORDER = ("text", "table", "chart")
Words = dict[str, dict[str, str]]
Factory = Callable[[Instance, np.random.Generator, Words, Margins], Iterator[Selection]]


@dataclass(frozen=True)
class StatementType:
    """One statement type: its name, hops, modalities and how it selects."""

    name: str
    selector: str
    with_fact: bool

    @property
    def hops(self) -> int:
        """Number of hops (FCMR level: 1 Easy, 2 Medium, 3 Hard)."""
        return self.name.count("+") + 1

    @property
    def modalities(self) -> tuple[str, ...]:
        """Modalities the statement spans, in canonical order."""
        atoms = set(self.name.split("+"))
        used = {"text"} if "FC" in atoms else set()
        used |= {"table"} if atoms & {"CT", "AR"} else set()
        used |= {"chart"} if atoms & {"TR", "RK"} else set()
        return tuple(m for m in MODALITY_ORDER if m in used)


def _pairs(first: Callable[[range], Iterator[Selection]],
           second: Callable[[range], Iterator[Selection]], k: int,
           rng: np.random.Generator) -> Iterator[Selection]:
    """Fused two-selector hops: each alone picks 2..k-1 entities, together exactly one."""
    sizes = range(2, k)
    seconds = list(second(sizes))
    for a in first(sizes):
        for j in rng.permutation(len(seconds)):
            b = seconds[int(j)]
            both = a.picked & b.picked
            if len(both) == 1:
                yield Selection(kind=f"{a.kind}&{b.kind}", picked=both,
                                node={"op": "and", "args": [a.node, b.node]},
                                cells=a.cells + b.cells, words=a.words | b.words,
                                modalities=a.modalities | b.modalities)


def _factories() -> dict[str, Factory]:
    def cond_trend(cond: Callable[..., Iterator[Selection]]) -> Factory:
        def make(i: Instance, r: np.random.Generator, w: Words, m: Margins
                 ) -> Iterator[Selection]:
            return _pairs(lambda s: cond(i, r, w, s), lambda s: tr_all(i, r, w, m, s),
                          len(i.ids), r)
        return make

    return {
        "FC": lambda i, r, w, m: fc(i, r),
        "CT": lambda i, r, w, m: ct(i, r, w),
        "AR": lambda i, r, w, m: ar(i, r, w),
        "TR": tr,
        "RK": rk,
        "CT+TR": cond_trend(ct_all),
        "AR+TR": cond_trend(ar_sum),
        "CT+RK": lambda i, r, w, m: rk_when(i, r, w, m, "CT"),
        "AR+RK": lambda i, r, w, m: rk_when(i, r, w, m, "AR"),
    }


SELECTORS: dict[str, Factory] = _factories()


def _type(name: str) -> StatementType:
    if name == "FC" or not name.startswith("FC+"):
        return StatementType(name=name, selector=name, with_fact=False)
    return StatementType(name=name, selector=name[3:], with_fact=True)


TYPES: dict[str, StatementType] = {name: _type(name) for name in STATEMENT_TYPES}


@dataclass
class Statement:
    """A worded, labelled statement with its executable program."""

    type: str
    text: str
    label: bool
    modalities: list[str]
    program: dict[str, Any]
    cells: list[dict[str, Any]]
    distractor: dict[str, str] | None

    def to_json(self) -> dict[str, Any]:
        """The public form of the statement (``items.jsonl``)."""
        return {"text": self.text, "label": self.label, "type": self.type,
                "modalities": self.modalities, "program": self.program, "cells": self.cells,
                "distractor": self.distractor}


def make_statement(type_name: str, instance: Instance, pack: DomainPack,
                   rng: np.random.Generator, truth: bool, used: set[str],
                   max_candidates: int = 64) -> Statement | None:
    """A statement of ``type_name`` with label ``truth``, or ``None`` if this instance has none.

    ``used`` holds the program nodes and fact needles already in the item; they are not reused.
    """
    kind = TYPES[type_name]
    words = pack.words.words
    decide = pack.spec.decidability
    margins = Margins.of(instance, decide.min_rank_gap, decide.min_trend_step)
    for n, selection in enumerate(SELECTORS[kind.selector](instance, rng, words, margins)):
        if n >= max_candidates:
            return None
        signature = repr(selection.node)
        if signature in used:
            continue
        (chosen,) = selection.picked
        others = [e for e in instance.ids if e != chosen]
        claim: dict[str, Any]
        cells = list(selection.cells)
        if kind.with_fact:
            owners = [chosen] if truth else [others[int(k)] for k in rng.permutation(len(others))]
            fact = next((f for o in owners for f in facts_of(instance, o, rng)
                         if f.needle not in used), None)
            if fact is None:
                continue
            claimed, claim = fact.entity, {"fact": fact_node(fact)}
            cells += [c for c in text_cells(instance) if c not in cells]
            variables = selection.words | {"fact": fact.claim}
            used.add(fact.needle)
        else:
            claimed = chosen if truth else others[int(rng.integers(len(others)))]
            claim = {"entity": claimed}
            variables = selection.words | {"entity": instance.name(claimed)}
            if "fact" in selection.meta:
                used.add(selection.meta["fact"].needle)
        label = claimed == chosen
        if label != truth:
            raise GenerationError(f"{type_name}: label {label} differs from the plan's {truth}")
        used.add(signature)
        nouns = pack.spec.entity.nouns
        variables["noun"] = nouns[int(rng.integers(len(nouns)))]
        return Statement(
            type=type_name,
            text=render(pack.words.forms[type_name], variables, rng),
            label=label,
            modalities=list(kind.modalities),
            program={"select": selection.node, "claim": claim},
            cells=cells,
            distractor=None if label else {"replaces": chosen, "with": claimed},
        )
    return None
