"""One item: an instance, its planned statements, the question and the answer."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from hopvista.augment.structures import item_attributes
from hopvista.domain import DomainPack, render_question
from hopvista.errors import GenerationError
from hopvista.generation.defences import Defences, Demands
from hopvista.generation.feasibility import needs_shared_facts, needs_trend_pair
from hopvista.generation.instance import Instance, sample_instance
from hopvista.generation.plan import PlanEntry
from hopvista.generation.structure import choose_structure, shown_pack
from hopvista.model import BASE_VARIANT, Item, base_item_id, variant_id
from hopvista.model.balance import LEVEL_NAMES
from hopvista.model.kinds import THREE_STATEMENT
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.rng import Streams, derive
from hopvista.statements.types import Statement, make_statement
from hopvista.themes.style import sample_style, shown_chart
from hopvista.version import __version__
from hopvista.world import World


def build_item(world: World, pack: DomainPack, seed: int, entry: PlanEntry,
               defences: Defences, max_attempts: int = 400,
               variant: str = BASE_VARIANT) -> Item:
    """Make the item the plan entry asks for; retries redraw the instance, never the plan.

    ``defences`` says what each attempt asks of the statements' proxy readings
    (:mod:`hopvista.audit.defences`). Its random streams are keyed by ``variant``
    (``"base"`` for a generated item)."""
    rng = derive(seed, "item", entry.index, variant)
    screen_rng = derive(seed, "item", entry.index, variant, "screen")
    order = _hardest_first(entry)
    screened = _screened(entry, order)
    draw = _instance_drawer(world, pack, rng, entry, defences)
    for attempt in range(1, max_attempts + 1):
        instance = draw(attempt)
        if instance is None:
            continue
        inputs_of = functools.cache(instance.to_inputs)
        demands = defences.demands(entry, attempt,
                                   functools.partial(_proxy_item, instance, inputs_of))
        if _screened_out(entry, screened, instance, pack, screen_rng, demands):
            continue
        statements = _make_statements(entry, order, instance, pack, rng, demands)
        if statements is None:
            continue
        return _item(world, pack, seed, entry, variant, instance, inputs_of(), statements,
                     {"attempts": attempt, "agree_waived": True if demands.waived else None})
    raise GenerationError(
        f"item {entry.index}: no instance satisfied the plan ({', '.join(entry.types)}) "
        f"in {max_attempts} attempts")


def _instance_drawer(world: World, pack: DomainPack, rng: np.random.Generator,
                     entry: PlanEntry, defences: Defences) -> Callable[[int], Instance | None]:
    """Draws the entry's instances from ``rng`` (the attempt's, numbered from 1), guided as
    its statement types need, showing as many entities as its structure asks for on that
    attempt (:func:`hopvista.generation.structure.shown_pack`)."""
    draw = functools.partial(
        sample_instance, world, rng=rng,
        trend_pair=any(needs_trend_pair(t) for t in entry.types),
        shared=any(needs_shared_facts(t) for t in entry.types),
        divergence=defences.divergence(entry),
        text=any(STATEMENT_TYPES.get(t).needs_documents for t in entry.types))
    return lambda attempt: draw(
        pack=shown_pack(entry.structure, pack, len(world.entities), attempt))


def _hardest_first(entry: PlanEntry) -> list[int]:
    """The item's slots, those with the most proxy-agreement demands first: an instance that
    cannot meet them is given up before the easier statements are made."""
    return sorted(entry.slots, key=lambda slot: -len(entry.wants(slot)))


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


def _screened_out(entry: PlanEntry, screened: list[int], instance: Instance,
                  pack: DomainPack, screen_rng: np.random.Generator, demands: Demands) -> bool:
    """Whether a screened slot has no statement on ``instance`` with nothing used yet: it is
    then all but certain to have none once the others are made (only a slot with more
    candidates than make_statement tries could differ, as the screen draws them from its own
    stream), so the instance is given up before anything is made in vain."""
    return any(make_statement(entry.types[slot], instance, pack, screen_rng, entry.truth(slot),
                              set(), wants=demands.of(slot), reader=demands.reader) is None
               for slot in screened)


def _make_statements(entry: PlanEntry, order: list[int], instance: Instance,
                     pack: DomainPack, rng: np.random.Generator, demands: Demands
                     ) -> list[Statement] | None:
    """The entry's statements on ``instance``, made in ``order`` from ``rng`` and returned in
    slot order, or ``None`` as soon as one cannot be made."""
    used: set[str] = set()
    made: dict[int, Statement] = {}
    for slot in order:
        statement = make_statement(entry.types[slot], instance, pack, rng, entry.truth(slot),
                                   used, wants=demands.of(slot), reader=demands.reader)
        if statement is None:
            return None
        made[slot] = statement
    return [made[slot] for slot in entry.slots]


def _styled_inputs(pack: DomainPack, seed: int, base_id: str, variant: str,
                   instance: Instance, inputs: dict[str, Any], statements: list[Statement]
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The item's inputs with the chart as its sampled style shows it, and that style."""
    min_rank_gap = pack.spec.decidability.min_rank_gap
    shown_text = json.dumps(inputs["table"], ensure_ascii=False) + "".join(
        e.name for e in instance.entities)
    style = sample_style(Streams(seed, base_id, variant), inputs["chart"], statements,
                         min_rank_gap, table_text=shown_text)
    inputs["chart"] = shown_chart(inputs["chart"], style["chart"]["kind"], statements,
                                  min_rank_gap)
    return inputs, style


def _question(pack: DomainPack, instance: Instance, statements: list[Statement]) -> str:
    """The item's question: the entities, the numbered statements and the instruction."""
    return item_question(pack, [e.name for e in instance.entities], [s.text for s in statements])


def item_question(pack: DomainPack, names: list[str], texts: list[str]) -> str:
    """The pack's question over the entities ``names`` and the statements ``texts``."""
    entity = pack.spec.entity
    return render_question(pack, {
        "names": ", ".join(names).rstrip("."), "statements": list(texts),
        "singular": entity.singular, "plural": entity.plural, "noun": entity.singular})


def _item(world: World, pack: DomainPack, seed: int, entry: PlanEntry, variant: str,
          instance: Instance, inputs: dict[str, Any], statements: list[Statement],
          made: dict[str, Any]) -> Item:
    """The item record; ``made`` holds how it was made (``attempts``, ``agree_waived``)."""
    base_id = base_item_id(pack.name, seed, entry.index)
    if entry.structure is not None:
        structure = choose_structure(entry.structure, pack, instance, statements,
                                     derive(seed, "item", entry.index, variant, "structure"))
        shown = structure.model_dump()
        inputs = inputs | {"table": inputs["table"] | {"structure": shown}}
    inputs, style = _styled_inputs(pack, seed, base_id, variant, instance, inputs, statements)
    decide = pack.spec.decidability
    item = Item.model_validate({
        "id": variant_id(base_id, variant),
        "base_id": base_id,
        "domain": pack.name,
        "kind": THREE_STATEMENT.name,
        "difficulty": LEVEL_NAMES[entry.level],
        "hops": entry.level,
        "entities": [{"id": e.id, "name": e.name} for e in instance.entities],
        "inputs": inputs,
        "images": [],
        "question": _question(pack, instance, statements),
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
            "attempts": made["attempts"],
            "plan": entry.to_json(),
            "decidability": {"min_rank_gap": decide.min_rank_gap,
                             "min_trend_step": decide.min_trend_step,
                             "chart_span": format(instance.chart_span(), "f")},
            "agree_waived": made["agree_waived"],
        },
    })
    if entry.structure is None:
        return item
    return item.model_copy(update={"attributes": item_attributes(item)})
