"""Making one statement of a registered type: select, claim, label, word.

A type is a selector (one hop or a fused pair, see :mod:`hopvista.statements.registry`) plus a
claim: either "the selected entity is X" (entity claim) or, for FC + X types, "the selected
entity states this fact" (fact claim). False statements are entity swaps within the instance
(FCMR B.6): another entity is claimed, or another entity's fact is attributed to the selected
one. Types whose :attr:`~hopvista.statements.registry.StatementType.shared_facts` is set claim
facts that several entities state (``Instance.shared``): a false one attributes a fact that the
selected entity does not state and others do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from hopvista.domain import DomainPack
from hopvista.errors import GenerationError
from hopvista.instance import Instance
from hopvista.proxy import ProxyReader
from hopvista.statements.fact import fact_node, facts_of
from hopvista.statements.openness import stays_open
from hopvista.statements.registry import STATEMENT_TYPES, StatementType, proxied
from hopvista.statements.selection import Margins, Selection, text_cells
from hopvista.statements.wording import render


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
    proxy: dict[str, dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        """The public form of the statement (``items.jsonl``)."""
        return {"text": self.text, "label": self.label, "type": self.type,
                "modalities": self.modalities, "program": self.program, "cells": self.cells,
                "distractor": self.distractor, "proxy": self.proxy}


@dataclass(frozen=True)
class _Claim:
    """One way to complete a selection into a statement: whom or what it claims."""

    claimed: str
    claim: dict[str, Any]
    variables: dict[str, str]
    needle: str | None


def _claims(kind: StatementType, selection: Selection, instance: Instance,
            rng: np.random.Generator, truth: bool, used: set[str]) -> Iterator[_Claim]:
    """The claims that give ``selection`` the label ``truth`` and keep it open with any one
    modality withheld (:func:`_claimable`), in random order: entities, or their facts."""
    if kind.shared_facts:
        yield from _shared_claims(selection, instance, rng, truth, used)
        return
    owners = _claimable(kind, selection, instance.ids, frozenset(instance.ids), truth)
    if not truth:
        owners = [owners[int(k)] for k in rng.permutation(len(owners))]
    for owner in owners:
        if kind.with_fact:
            for fact in facts_of(instance, owner, rng):
                if fact.needle not in used:
                    yield _Claim(fact.entity, {"fact": fact_node(fact)},
                                 selection.words | {"fact": fact.claim}, fact.needle)
        else:
            needle = selection.meta["fact"].needle if "fact" in selection.meta else None
            yield _Claim(owner, {kind.claim: owner},
                         selection.words | {"entity": instance.name(owner)}, needle)


def _shared_claims(selection: Selection, instance: Instance, rng: np.random.Generator,
                   truth: bool, used: set[str]) -> Iterator[_Claim]:
    """Claims of facts that several entities state, giving ``selection`` the label ``truth``
    and keeping it open with any one modality withheld, in random order, those the item has
    not claimed yet first (an instance has few shared facts, and one may be claimed of
    different selections). ``claimed`` is the selected entity (true) or the first owner in
    display order (false: the distractor)."""
    if len(selection.picked) != 1:
        return
    (chosen,) = selection.picked
    everyone = frozenset(instance.ids)
    order = [instance.shared[int(k)] for k in rng.permutation(len(instance.shared))]
    for fact in sorted(order, key=lambda f: f.needle in used):
        if (chosen in fact.owners) != truth or \
                not stays_open(selection, everyone, fact.owners, fact=True):
            continue
        claimed = chosen if truth else next(e for e in instance.ids if e in fact.owners)
        yield _Claim(claimed, {"fact": fact_node(fact)},
                     selection.words | {"fact": fact.claim}, fact.needle)


def make_statement(type_name: str, instance: Instance, pack: DomainPack,
                   rng: np.random.Generator, truth: bool, used: set[str],
                   max_candidates: int = 64, wants: dict[str, bool] | None = None,
                   reader: ProxyReader | None = None) -> Statement | None:
    """A statement of ``type_name`` with label ``truth``, or ``None`` if this instance has none.

    ``used`` holds the program nodes and fact needles already in the item; they are not reused.
    Every claim keeps its label open with any one modality withheld
    (:mod:`hopvista.statements.openness`). ``wants`` asks, per proxied
    modality, whether ``reader``'s proxy reading must agree with the label (a reading that
    decides nothing satisfies either demand).
    """
    kind = STATEMENT_TYPES.get(type_name)
    words = pack.words.words
    decide = pack.spec.decidability
    margins = Margins.of(instance, decide.min_rank_gap, decide.min_trend_step)
    several = kind.claim == "only" and not truth  # "X is the only ...": X and another picked
    selections = (s for s in kind.select(instance, rng, words, margins)
                  if (len(s.picked) >= 2 if several else len(s.picked) == 1))
    for n, selection in enumerate(selections):
        if n >= max_candidates:
            return None
        signature = repr(selection.node)
        if signature in used:
            continue
        cells = list(selection.cells)
        if kind.with_fact:
            cells += [c for c in text_cells(instance) if c not in cells]
        for option in _claims(kind, selection, instance, rng, truth, used):
            program = {"select": selection.node, "claim": option.claim}
            proxy = _proxy_readings(reader, kind.modalities, program, truth, wants)
            if proxy is False:
                continue
            label = selection.picked == {option.claimed}
            if label != truth:
                raise GenerationError(
                    f"{type_name}: label {label} differs from the plan's {truth}")
            used.add(signature)
            if option.needle is not None:
                used.add(option.needle)
            variables = dict(option.variables)
            entity_words = pack.spec.entity
            nouns = entity_words.noun_list()
            variables["noun"] = nouns[int(rng.integers(len(nouns)))]
            variables |= {"singular": entity_words.singular, "plural": entity_words.plural}
            return Statement(
                type=type_name,
                text=render(pack.words.forms[type_name], variables, rng),
                label=label,
                modalities=list(kind.modalities),
                program=program,
                cells=cells,
                distractor=None if label else {
                    "replaces": _witness(selection, instance.ids, option.claimed),
                    "with": option.claimed},
                proxy=None if reader is None else proxy,
            )
    return None


def _proxy_readings(reader: ProxyReader | None, modalities: tuple[str, ...],
                    program: dict[str, Any], truth: bool,
                    wants: dict[str, bool] | None) -> dict[str, dict[str, Any]] | Literal[False]:
    """The statement's proxy readings in their public form (``{}`` without a reader or a
    proxied modality), or ``False`` when a reading contradicts what ``wants`` asks (or
    decides nothing, unless the reader is relaxed)."""
    if reader is None:
        return {}
    found = {}
    for modality in proxied(modalities):
        reading = reader.check(modality, program, truth, (wants or {}).get(modality))
        if reading is None:
            return False
        found[modality] = reading.to_json()
    return found


def _claimable(kind: StatementType, selection: Selection, ids: Sequence[str],
               everyone: frozenset[str], truth: bool) -> list[str]:
    """The entities a statement on ``selection`` may claim (name, or attribute the fact of)
    with label ``truth``, keeping its label open with any one modality withheld."""
    fact = kind.with_fact
    if truth:
        (chosen,) = selection.picked
        return [chosen] if stays_open(selection, everyone, frozenset({chosen}), fact) else []
    wrong = [e for e in ids if selection.picked != {e}]
    if len(selection.picked) >= 2:  # an "only" claim: an entity picked along with another
        wrong = [e for e in wrong if e in selection.picked]
    return [e for e in wrong if stays_open(selection, everyone, frozenset({e}), fact)]


def _witness(selection: Selection, ids: Sequence[str], claimed: str) -> str:
    """The entity a false statement's distractor replaces: the one selected, or, for an
    ``only`` claim, the first other entity the selector picks along with the claimed one."""
    return next(e for e in ids if e in selection.picked and e != claimed)
