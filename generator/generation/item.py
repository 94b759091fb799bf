"""One item: an instance, three planned statements, the question and the answer."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hopvista.audit.proxy import ProxyModels, ProxyReader
from hopvista.domain import DomainPack, render_question
from hopvista.errors import GenerationError
from hopvista.generation.feasibility import needs_shared_facts, needs_trend_pair
from hopvista.generation.instance import Instance, sample_instance
from hopvista.generation.plan import PlanEntry
from hopvista.model import BASE_VARIANT, Item, base_item_id, variant_id
from hopvista.model.balance import LEVEL_NAMES
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.rng import Streams, derive
from hopvista.statements.types import Statement, make_statement
from hopvista.themes.style import sample_style, shown_chart
from hopvista.version import __version__
from hopvista.world import World

ITEM_KIND = "three_statement"


def item_id(domain: str, seed: int, index: int, variant: str = BASE_VARIANT) -> str:
    """The stable id of ``variant`` of item ``index`` (``{domain}-s{seed}-{index:06d}.base``)."""
    return variant_id(base_item_id(domain, seed, index), variant)


@dataclass(frozen=True)
class DemandPhase:
    """How a run of attempts holds an item's proxy-agreement demands."""

    last: int
    """The phase's last attempt (instance draw)."""
    predictors: int = 1
    """Through how many of the best shown predictors of the chart column the no-chart demand
    holds (:attr:`~hopvista.audit.proxy.ProxyReader.predictors`)."""
    relaxed: bool = False
    """Whether a reading that decides nothing meets any demand."""
    held: tuple[str, ...] | None = None
    """The modalities whose demands are held (``None``: all). An item built while some are
    let go is recorded as waived (``provenance.agree_waived``), like one built with none."""
    one_wrong: bool = False
    """Whether the phase holds, instead of each statement's demands, one on the whole item:
    the reading of a ``held`` modality disagrees with the label of one statement, through
    each of :attr:`predictors` (held only where two or more statements read it). Each
    attempt asks it of another of those statements in turn."""

    def wants(self, entry: PlanEntry, slot: int, attempt: int = 0) -> dict[str, bool]:
        """The demands of ``slot`` this phase holds at attempt ``attempt``."""
        if self.one_wrong:
            held = self.held or ()
            reading = [k for k in range(3) if any(m in entry.wants(k) for m in held)]
            if len(reading) < 2 or slot != reading[attempt % len(reading)]:
                return {}
            return {m: False for m in held if m in entry.wants(slot)}
        return {m: v for m, v in entry.wants(slot).items()
                if self.held is None or m in self.held}


#: The phases of an item's proxy-agreement demands, in order; after the last the item is
#: built without them (and says so). The audit ranks predictors by lines learned on the
#: dataset, where a pair of columns is seen in a few dozen items, so it often ranks another
#: column first than the world does; measured on 600-item financial builds (seed 5, one
#: run each): no-chart accuracy on chart-reading statements 56.4% with the first phases
#: through the two best predictors, 52.8% through three (Hard sets 26.5% and 20.0%; the
#: build took 4.5 minutes instead of 3). A Hard item whose statements claim facts several
#: entities state rarely meets every demand at once (a proxy that picks several entities
#: judges such a claim true when any of them states it, so it leans to "true"); it then
#: keeps its no-chart demands, the ones its three chart-reading statements share, and then
#: only asks that the no-chart proxy get one of them wrong: an item built with no demand at
#: all is a typical instance, where the proxy reads every statement right (97% of such
#: statements on financial seed 5). Those two phases hold through the three best
#: predictors too: through the best alone, the audit read 10 of their 56 Hard items
#: entirely right (financial seed 5).
PHASES: tuple[DemandPhase, ...] = (
    DemandPhase(24, predictors=3), DemandPhase(48, predictors=3, relaxed=True),
    DemandPhase(72, predictors=2), DemandPhase(96, predictors=2, relaxed=True),
    DemandPhase(144, predictors=3, relaxed=True, held=("chart",)),
    DemandPhase(192, predictors=3, held=("chart",), one_wrong=True))


#: Jitter of the table-column order of an instance drawn under the demands
#: (:func:`~hopvista.generation.instance.sample_instance`'s ``divergent``): how far a column whose
#: trends match the chart's may still come before one that says less about them.
DIVERGENCE = 0.05


def demand_phase(attempt: int) -> DemandPhase | None:
    """The phase attempt ``attempt`` belongs to (:data:`PHASES`), or ``None`` once the
    item's demands are waived."""
    return next((phase for phase in PHASES if attempt <= phase.last), None)


def _hardest_first(entry: PlanEntry) -> list[int]:
    """The item's slots, those with the most proxy-agreement demands first: an instance that
    cannot meet them is given up before the easier statements are made."""
    return sorted(range(3), key=lambda slot: -len(entry.wants(slot)))


def _screened(entry: PlanEntry, order: list[int]) -> list[int]:
    """The slots an instance is screened for before its statements are made: those after
    the first of ``order`` whose types read more periods than any slot before them (a trend
    over every period, then two periods). An instance admits such statements least often,
    and they are cheap to try; made in order, an instance would often be given up only at
    them, after the statements before them were made in vain."""
    def periods(slot: int) -> int:
        return STATEMENT_TYPES.get(entry.types[slot]).periods_read
    return [slot for k, slot in enumerate(order)
            if k > 0 and periods(slot) > max(periods(s) for s in order[:k])]


def _proxy_item(instance: Instance, inputs_of: Callable[[], dict[str, Any]]
                ) -> dict[str, Any]:
    """What a proxy reader reads of an instance: its inputs and entities."""
    return {"inputs": inputs_of(),
            "entities": [{"id": e.id, "name": e.name} for e in instance.entities]}


def build_item(world: World, pack: DomainPack, seed: int, entry: PlanEntry,
               max_attempts: int = 400, variant: str = BASE_VARIANT) -> Item:
    """Make the item the plan entry asks for; retries redraw the instance, never the plan.

    Its random streams are keyed by ``variant`` (``"base"`` for a generated item)."""
    rng = derive(seed, "item", entry.index, variant)
    screen_rng = derive(seed, "item", entry.index, variant, "screen")
    order = _hardest_first(entry)
    screened = _screened(entry, order)
    trend_pair = any(needs_trend_pair(t) for t in entry.types)
    shared = any(needs_shared_facts(t) for t in entry.types)
    text = any(STATEMENT_TYPES.get(t).needs_documents for t in entry.types)
    for attempt in range(1, max_attempts + 1):
        instance = sample_instance(world, pack, rng, trend_pair=trend_pair, shared=shared,
                                   divergent=0.0 if entry.agree is None else DIVERGENCE,
                                   text=text)
        if instance is None:
            continue
        used: set[str] = set()
        inputs_of = functools.cache(instance.to_inputs)
        phase = demand_phase(attempt)
        reader = None if entry.agree is None else ProxyReader(
            ProxyModels.of(world), functools.partial(_proxy_item, instance, inputs_of),
            relaxed=phase is not None and phase.relaxed,
            predictors=phase.predictors if phase else 1)
        wants = {slot: None if phase is None else phase.wants(entry, slot, attempt)
                 for slot in range(3)}
        # A screened slot without a statement on this instance, with nothing used yet, is
        # all but certain to have none once the others are made (only a slot with more
        # candidates than make_statement tries could differ, as the screen draws them from
        # its own stream): the instance is given up before anything is made in vain.
        if any(make_statement(entry.types[slot], instance, pack, screen_rng, entry.truth(slot),
                              set(), wants=wants[slot], reader=reader) is None
               for slot in screened):
            continue
        made: dict[int, Statement] = {}
        for slot in order:
            statement = make_statement(entry.types[slot], instance, pack, rng, entry.truth(slot),
                                       used, wants=wants[slot], reader=reader)
            if statement is None:
                break
            made[slot] = statement
        if len(made) < 3:
            continue
        statements = [made[slot] for slot in range(3)]
        inputs = inputs_of()
        decide = pack.spec.decidability
        span = instance.chart_span()
        base_id = base_item_id(pack.name, seed, entry.index)
        shown_text = json.dumps(inputs["table"], ensure_ascii=False) + "".join(
            e.name for e in instance.entities)
        style = sample_style(Streams(seed, base_id, variant), inputs["chart"], statements,
                             decide.min_rank_gap, table_text=shown_text)
        inputs["chart"] = shown_chart(inputs["chart"], style["chart"]["kind"], statements,
                                      decide.min_rank_gap)
        question = render_question(pack, {
            "names": ", ".join(e.name for e in instance.entities).rstrip("."),
            "statements": [s.text for s in statements], "singular": pack.spec.entity.singular,
            "plural": pack.spec.entity.plural, "noun": pack.spec.entity.singular})
        return Item.model_validate({
            "id": variant_id(base_id, variant),
            "base_id": base_id,
            "domain": pack.name,
            "kind": ITEM_KIND,
            "difficulty": LEVEL_NAMES[entry.level],
            "hops": entry.level,
            "entities": [{"id": e.id, "name": e.name} for e in instance.entities],
            "inputs": inputs,
            "images": [],
            "question": question,
            "statements": [s.to_json() for s in statements],
            "answer": [i + 1 for i, s in enumerate(statements) if s.label],
            "answer_type": "indices",
            "variant": {"name": variant, "recipe": None, "parameters": {}, "style": style,
                        "perturbations": [], "markup": None},
            "seed": seed,
            "provenance": {
                "generator": f"hopvista {__version__}",
                "source": world.source,
                "index": entry.index,
                "attempts": attempt,
                "plan": entry.to_json(),
                "decidability": {"min_rank_gap": decide.min_rank_gap,
                                 "min_trend_step": decide.min_trend_step,
                                 "chart_span": format(span, "f")},
                "agree_waived": True if reader is not None and (phase is None or phase.held)
                else None,
            },
        })
    raise GenerationError(
        f"item {entry.index}: no instance satisfied the plan ({', '.join(entry.types)}) "
        f"in {max_attempts} attempts")
