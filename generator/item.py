"""One item: an instance, three planned statements, the question and the answer."""

from __future__ import annotations

from typing import Any

from hopvista import __version__
from hopvista.domain import DomainPack
from hopvista.errors import GenerationError
from hopvista.feasibility import needs_trend_pair
from hopvista.instance import sample_instance
from hopvista.plan import LEVEL_NAMES, PlanEntry
from hopvista.rng import Streams, derive
from hopvista.statements.types import Statement, make_statement
from hopvista.statements.wording import template
from hopvista.themes.style import sample_style, shown_chart
from hopvista.world import World

ITEM_KIND = "three_statement"


def item_id(domain: str, seed: int, index: int) -> str:
    """The stable id of a base item."""
    return f"{domain}-s{seed}-{index:06d}"


def build_item(world: World, pack: DomainPack, seed: int, entry: PlanEntry,
               max_attempts: int = 400) -> dict[str, Any]:
    """Make the item the plan entry asks for; retries redraw the instance, never the plan."""
    rng = derive(seed, "item", entry.index, "base")
    trend_pair = any(needs_trend_pair(t) for t in entry.types)
    for attempt in range(1, max_attempts + 1):
        instance = sample_instance(world, pack, rng, trend_pair=trend_pair)
        if instance is None:
            continue
        used: set[str] = set()
        statements: list[Statement] = []
        for slot, type_name in enumerate(entry.types):
            statement = make_statement(type_name, instance, pack, rng, entry.truth(slot), used)
            if statement is None:
                break
            statements.append(statement)
        if len(statements) < 3:
            continue
        decide = pack.spec.decidability
        span = instance.chart_span()
        identifier = item_id(pack.name, seed, entry.index)
        inputs = instance.to_inputs()
        style = sample_style(Streams(seed, identifier, "base"), inputs["chart"], statements,
                             decide.min_rank_gap)
        inputs["chart"] = shown_chart(inputs["chart"], style["chart"]["kind"], statements,
                                      decide.min_rank_gap)
        question = template(pack.spec.question).render(
            names=", ".join(e.name for e in instance.entities).rstrip("."),
            statements=[s.text for s in statements], singular=pack.spec.entity.singular,
            plural=pack.spec.entity.plural, noun=pack.spec.entity.singular)
        return {
            "id": identifier,
            "base_id": identifier,
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
            "variant": {"style": style, "perturbations": [], "markup": None},
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
            },
        }
    raise GenerationError(
        f"item {entry.index}: no instance satisfied the plan ({', '.join(entry.types)}) "
        f"in {max_attempts} attempts")
