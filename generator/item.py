"""One item: an instance, three planned statements, the question and the answer."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hopvista import __version__
from hopvista.display import parse_shown
from hopvista.domain import DomainPack
from hopvista.errors import GenerationError
from hopvista.feasibility import needs_trend_pair
from hopvista.instance import sample_instance
from hopvista.model import BASE_VARIANT, Item, base_item_id, variant_id
from hopvista.plan import LEVEL_NAMES, PlanEntry
from hopvista.rng import derive
from hopvista.statements.types import Statement, make_statement
from hopvista.statements.wording import template
from hopvista.world import World

ITEM_KIND = "three_statement"


def item_id(domain: str, seed: int, index: int, variant: str = BASE_VARIANT) -> str:
    """The stable id of ``variant`` of item ``index`` (``{domain}-s{seed}-{index:06d}.base``)."""
    return variant_id(base_item_id(domain, seed, index), variant)


def pie_year(inputs: dict[str, Any], statements: list[Statement],
             min_rank_gap: float) -> int | None:
    """The year a pie chart could show, or ``None``.

    A pie shows one year, so it is allowed only when the only chart-read statement is a
    one-year ranking (FCMR uses pies for Easy rankings only), every slice is positive, and the
    winner's lead is a clear share of the whole pie.
    """
    readers = [s for s in statements if "chart" in s.modalities]
    if len(readers) != 1 or readers[0].type not in ("RK", "FC+RK"):
        return None
    node = readers[0].program["select"]
    year = int(node["year"])
    chart = inputs["chart"]
    at = chart["years"].index(year)
    values = sorted((parse_shown(s["values"][at]) for s in chart["series"]), reverse=True)
    if values[-1] <= 0:
        return None
    lead = values[0] - values[1] if node["order"] == "max" else values[-2] - values[-1]
    return year if lead >= sum(values) * Decimal(str(min_rank_gap)) else None


def sample_style(seed: int, index: int, inputs: dict[str, Any], statements: list[Statement],
                 min_rank_gap: float, variant: str = BASE_VARIANT) -> dict[str, Any]:
    """The item's table theme and chart style, from its own stream; a pie narrows the chart
    input to the one year it shows."""
    from hopvista.themes.charts import sample_chart_style
    from hopvista.themes.tables import sample_table_theme

    rng = derive(seed, "item", index, variant, "style")
    year = pie_year(inputs, statements, min_rank_gap)
    kinds = ["line", "bar", "scatter"] + (["pie"] if year is not None else [])
    table = sample_table_theme(rng)
    chart = sample_chart_style(rng, kinds)
    inputs["chart"]["kind"] = chart["kind"]
    if chart["kind"] == "pie" and year is not None:
        at = inputs["chart"]["years"].index(year)
        inputs["chart"]["years"] = [year]
        for series in inputs["chart"]["series"]:
            series["values"] = [series["values"][at]]
    return {"table": table, "chart": chart}


def build_item(world: World, pack: DomainPack, seed: int, entry: PlanEntry,
               max_attempts: int = 400, variant: str = BASE_VARIANT) -> Item:
    """Make the item the plan entry asks for; retries redraw the instance, never the plan.

    Its random streams are keyed by ``variant`` (``"base"`` for a generated item)."""
    rng = derive(seed, "item", entry.index, variant)
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
        inputs = instance.to_inputs()
        style = sample_style(seed, entry.index, inputs, statements, decide.min_rank_gap,
                             variant)
        question = template(pack.spec.question).render(
            names=", ".join(e.name for e in instance.entities).rstrip("."),
            statements=[s.text for s in statements])
        base_id = base_item_id(pack.name, seed, entry.index)
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
            },
        })
    raise GenerationError(
        f"item {entry.index}: no instance satisfied the plan ({', '.join(entry.types)}) "
        f"in {max_attempts} attempts")
