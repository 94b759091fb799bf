"""Making one statement of a registered type: select, claim, label, word.

A type is a selector (one hop or a fused pair, see :mod:`hopvista.program.statement_types`) plus a
claim: either "the selected entity is X" (entity claim) or, for FC + X types, "the selected
entity states this fact" (fact claim). False statements are entity swaps within the instance
(FCMR B.6): another entity is claimed, or another entity's fact is attributed to the selected
one. Types whose :attr:`~hopvista.program.statement_types.StatementType.shared_facts` is set claim
facts that several entities state (``Instance.shared``): a false one attributes a fact that the
selected entity does not state and others do.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from hopvista.domain import DomainPack, render_form
from hopvista.errors import GenerationError
from hopvista.generation.defences import ProxyChecker
from hopvista.generation.instance import Instance
from hopvista.program.statement_types import STATEMENT_TYPES, StatementType, proxied
from hopvista.statements.fact import fact_node
from hopvista.statements.openness import stays_open
from hopvista.statements.selection import Margins, Selection, text_cells
from hopvista.world import Fact, SharedFact


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


Option = tuple[Selection, _Claim]


def _selection_first(kind: StatementType, selections: Iterator[Selection], instance: Instance,
                     rng: np.random.Generator, truth: bool, used: set[str],
                     limit: int) -> Iterator[Option]:
    """Entity claims: each of the first ``limit`` selections in turn, with the entities that
    give it the label ``truth`` and keep it open with any one modality withheld
    (:func:`_claimable`), distractors in random order."""
    for n, selection in enumerate(selections):
        if n >= limit:
            return
        if repr(selection.node) in used:
            continue
        owners = _claimable(selection, instance.ids, frozenset(instance.ids), truth)
        if not truth:
            owners = [owners[int(k)] for k in rng.permutation(len(owners))]
        needle = selection.meta["fact"].needle if "fact" in selection.meta else None
        for owner in owners:
            yield selection, _Claim(owner, {kind.claim: owner},
                                    selection.words | {"entity": instance.name(owner)}, needle)


def _entity_first(kind: StatementType, selections: list[Selection], instance: Instance,
                  rng: np.random.Generator, truth: bool, used: set[str]) -> Iterator[Option]:
    """Entity claims drawn before the label is met, for selections that ask for it
    (``meta["claim_first"]``, a key such as the ranking's order): among the ``selections``,
    the (entity, key) pairs that one selection makes true and another false (each keeping the
    label open with any one modality withheld), in random order, and for each the selections
    that give it the label ``truth``. Pairs open to one label only are never claimed.

    A ranking among the entities a condition picks (``rk_among``) names its winner when true
    and an entity below it when false: drawn after the selection, the claimed entity's place
    on the chart would tell the label (the second of all, say, is the winner of any set that
    leaves out the first, and is never claimed falsely), and so would the size of the set
    on the table. Drawn first among the entities some selection makes true and another
    false, with the ranking's order and the set's size as the key, the same entities and
    sizes qualify for either label and are tried in the same order."""
    everyone = frozenset(instance.ids)
    pool = [s for s in selections if len(s.picked) == 1 and repr(s.node) not in used]
    fits: dict[tuple[str, Any], tuple[list[Selection], list[Selection]]] = {}
    for selection in pool:
        key = selection.meta["claim_first"]
        for entity in instance.ids:
            if not stays_open(selection, everyone, frozenset({entity})):
                continue
            true_for, false_for = fits.setdefault((entity, key), ([], []))
            (true_for if selection.picked == {entity} else false_for).append(selection)
    either = [pair for pair, (t, f) in fits.items() if t and f]
    for k in rng.permutation(len(either)):
        entity, _ = either[int(k)]
        true_for, false_for = fits[either[int(k)]]
        mine = true_for if truth else false_for
        for j in rng.permutation(len(mine)):
            selection = mine[int(j)]
            yield selection, _Claim(entity, {kind.claim: entity},
                                    selection.words | {"entity": instance.name(entity)}, None)


def _fact_first(kind: StatementType, selections: Iterator[Selection], instance: Instance,
                rng: np.random.Generator, truth: bool, used: set[str],
                limit: int) -> Iterator[Option]:
    """Fact claims: a fact is drawn first, then a selection among the first ``limit`` that
    gives it the label ``truth`` (the selected entity states the fact, or does not) and keeps
    it open with any one modality withheld. Facts that one selection makes true and another
    false come first, in random order; facts open to this label only come after them.

    So which fact is claimed (its wording) does not depend on the label wherever the
    instance allows: for either label the same facts come first, in the same order.
    Choosing the fact after the selection would claim of each selected entity the facts that
    entities like it have, and a wording classifier would learn which facts tend to be true.
    Shared-fact types (:attr:`StatementType.shared_facts`) claim ``Instance.shared``, facts
    the item has not claimed yet first; the others claim one entity's own facts, each at
    most once.
    """
    pool = [s for s in itertools.islice(selections, limit)
            if len(s.picked) == 1 and repr(s.node) not in used]
    everyone = frozenset(instance.ids)
    facts: list[Fact] | list[SharedFact]
    if kind.shared_facts:
        drawn = [instance.shared[int(k)] for k in rng.permutation(len(instance.shared))]
        facts = sorted(drawn, key=lambda f: f.needle in used)
    else:
        own = [f for e in instance.ids for f in instance.facts[e] if f.needle not in used]
        facts = [own[int(k)] for k in rng.permutation(len(own))]
    either: list[tuple[Fact | SharedFact, frozenset[str], list[Selection]]] = []
    one: list[tuple[Fact | SharedFact, frozenset[str], list[Selection]]] = []
    split: dict[frozenset[str], tuple[list[Selection], list[Selection]]] = {}
    for fact in facts:
        owners = fact.owners if isinstance(fact, SharedFact) else frozenset({fact.entity})
        if owners not in split:  # facts with the same owners fit the same selections
            fits = [s for s in pool if stays_open(s, everyone, owners, fact=True)]
            split[owners] = ([s for s in fits if s.picked <= owners],
                             [s for s in fits if not s.picked <= owners])
        stating, other = split[owners]
        mine = stating if truth else other
        if stating and other:
            either.append((fact, owners, mine))
        elif mine:
            one.append((fact, owners, mine))
    for fact, owners, mine in either + one:
        for selection in mine:
            (chosen,) = selection.picked
            claimed = chosen if truth else next(e for e in instance.ids if e in owners)
            yield selection, _Claim(claimed, {"fact": fact_node(fact)},
                                    selection.words | {"fact": fact.claim}, fact.needle)


def make_statement(type_name: str, instance: Instance, pack: DomainPack,
                   rng: np.random.Generator, truth: bool, used: set[str],
                   max_candidates: int = 64, wants: dict[str, bool] | None = None,
                   reader: ProxyChecker | None = None) -> Statement | None:
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
    if kind.with_fact:
        options = _fact_first(kind, selections, instance, rng, truth, used, max_candidates)
    else:
        first = next(selections, None)
        rest = itertools.chain([] if first is None else [first], selections)
        if first is not None and "claim_first" in first.meta:
            options = _entity_first(kind, list(itertools.islice(rest, max_candidates)),
                                    instance, rng, truth, used)
        else:
            options = _selection_first(kind, rest, instance, rng, truth, used,
                                       max_candidates)
    for selection, option in options:
        program = {"select": selection.node, "claim": option.claim}
        proxy = _proxy_readings(reader, kind.modalities, program, truth, wants)
        if proxy is False:
            continue
        cells = list(selection.cells)
        if kind.with_fact:
            cells += [c for c in text_cells(instance) if c not in cells]
        label = selection.picked == {option.claimed}
        if label != truth:
            raise GenerationError(
                f"{type_name}: label {label} differs from the plan's {truth}")
        used.add(repr(selection.node))
        if option.needle is not None:
            used.add(option.needle)
        variables = dict(option.variables)
        entity_words = pack.spec.entity
        nouns = entity_words.noun_list()
        variables["noun"] = nouns[int(rng.integers(len(nouns)))]
        variables |= {"singular": entity_words.singular, "plural": entity_words.plural}
        return Statement(
            type=type_name,
            text=render_form(pack, type_name, variables, rng),
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


def _proxy_readings(reader: ProxyChecker | None, modalities: tuple[str, ...],
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


def _claimable(selection: Selection, ids: Sequence[str], everyone: frozenset[str],
               truth: bool) -> list[str]:
    """The entities an entity claim on ``selection`` may name with label ``truth``, keeping
    its label open with any one modality withheld (fact claims: :func:`_fact_first`)."""
    if truth:
        (chosen,) = selection.picked
        return [chosen] if stays_open(selection, everyone, frozenset({chosen})) else []
    wrong = [e for e in ids if selection.picked != {e}]
    if len(selection.picked) >= 2:  # an "only" claim: an entity picked along with another
        wrong = [e for e in wrong if e in selection.picked]
    return [e for e in wrong if stays_open(selection, everyone, frozenset({e}))]


def _witness(selection: Selection, ids: Sequence[str], claimed: str) -> str:
    """The entity a false statement's distractor replaces: the one selected, or, for an
    ``only`` claim, the first other entity the selector picks along with the claimed one."""
    return next(e for e in ids if e in selection.picked and e != claimed)
