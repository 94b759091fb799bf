"""Sweep the statement-type registry: every type re-verifies, its distractors flip, and
dropping any hop leaves the label undecidable."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from hopvista.domain import DomainPack
from hopvista.generation.feasibility import needs_shared_facts, needs_trend_pair
from hopvista.generation.instance import Instance, sample_instance
from hopvista.model.balance import slot_groups
from hopvista.program.executor import Context, Undecidable, best, decide, drop, hops, select
from hopvista.program.operators import OPERATORS, modalities
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.rng import derive
from hopvista.statements.fact import fact_node
from hopvista.statements.types import Statement, make_statement
from hopvista.verify.checks import hop_necessary, readable_without
from hopvista.world import World

PER_TYPE = 4


def _item_view(instance: Instance) -> dict[str, Any]:
    return {"entities": [{"id": e.id, "name": e.name} for e in instance.entities],
            "inputs": instance.to_inputs()}


def _examples(type_name: str, truth: bool, world: World, pack: DomainPack
              ) -> list[tuple[Instance, Statement]]:
    rng = derive(5, "sweep", type_name, int(truth))
    found: list[tuple[Instance, Statement]] = []
    for _ in range(3000):
        instance = sample_instance(world, pack, rng, shared=needs_shared_facts(type_name))
        if instance is None:
            continue
        statement = make_statement(type_name, instance, pack, rng, truth, set())
        if statement is not None:
            found.append((instance, statement))
            if len(found) == PER_TYPE:
                break
    return found


FCMR_TABLE_12 = {
    "FC": "text", "CT": "table", "AR": "table", "TR": "chart", "RK": "chart",
    "FC+CT": "text+table", "FC+AR": "text+table", "FC+TR": "text+chart", "FC+RK": "text+chart",
    "CT+TR": "table+chart", "CT+RK": "table+chart", "AR+TR": "table+chart",
    "AR+RK": "table+chart", "FC+CT+TR": "text+table+chart", "FC+CT+RK": "text+table+chart",
    "FC+AR+TR": "text+table+chart", "FC+AR+RK": "text+table+chart",
}


def test_builtin_types_are_fcmr_table_12(pack: DomainPack) -> None:
    builtin = {name: kind for name, kind in STATEMENT_TYPES.items()
               if kind.origin.startswith("hopvista.")}
    assert {n: k.group for n, k in builtin.items()} == FCMR_TABLE_12
    assert {n: k.hops for n, k in builtin.items()} == {n: n.count("+") + 1 for n in builtin}
    assert {lv: sorted(slot_groups(lv, pack.types)) for lv in (1, 2, 3)} == {
        1: ["chart", "table", "text"],
        2: ["table+chart", "text+chart", "text+table"],
        3: ["text+table+chart"],
    }


@pytest.mark.parametrize("type_name", STATEMENT_TYPES.names())
def test_the_verifier_knows_every_operator_of_a_type(type_name: str) -> None:
    unknown = [op for op in STATEMENT_TYPES.get(type_name).operators if op not in OPERATORS]
    assert not unknown, f"{type_name} emits operators the verifier lacks: {unknown}"


def _swaps(program: dict[str, Any], instance: Instance, chosen: frozenset[str]
           ) -> list[dict[str, Any]]:
    """Entity-swapped versions of a true statement's program (FCMR B.6); ``chosen`` is what
    its selector picks."""
    swapped = []
    claim = program["claim"]
    if "fact" not in claim:
        (key, named), = claim.items()
        for other in instance.ids:
            if other != named:
                p = copy.deepcopy(program)
                p["claim"] = {key: other}
                swapped.append(p)
    else:
        needle = claim["fact"]["needle"]
        owners = {f.entity for e in instance.ids for f in instance.facts[e]
                  if f.needle == needle}
        owners |= {e for fact in instance.shared if fact.needle == needle for e in fact.owners}
        for other in instance.ids:
            if other not in owners and instance.facts[other]:
                p = copy.deepcopy(program)
                p["claim"] = {"fact": fact_node(instance.facts[other][0])}
                swapped.append(p)
        for fact in instance.shared:  # a fact others state alike, but not the one selected
            if not fact.owners & chosen:
                p = copy.deepcopy(program)
                p["claim"] = {"fact": fact_node(fact)}
                swapped.append(p)
    return swapped


@pytest.mark.parametrize("type_name", [n for n, k in STATEMENT_TYPES.items()
                                       if k.origin.startswith("hopvista.")])
def test_type_verifies_flips_and_needs_every_hop(type_name: str, world: World,
                                                 pack: DomainPack) -> None:
    decide_cfg = pack.spec.decidability
    for truth in (True, False):
        examples = _examples(type_name, truth, world, pack)
        assert len(examples) == PER_TYPE, f"{type_name}: too few {truth} statements"
        for instance, statement in examples:
            ctx = Context(_item_view(instance), decide_cfg.min_rank_gap,
                          decide_cfg.min_trend_step)
            assert statement.type == type_name
            assert decide(statement.program, ctx) is truth == statement.label
            paths = hops(statement.program)
            assert len(paths) == STATEMENT_TYPES.get(type_name).hops
            assert statement.modalities == modalities(statement.program)
            assert readable_without(statement.program, ctx) == []
            if statement.program["select"]["op"] == "rk_when":
                _claims_of_never_winners_are_flagged(statement.program, ctx)
            for path in paths:
                assert hop_necessary(statement.program, path, ctx)
                if "only" not in statement.program["claim"]:
                    with pytest.raises(Undecidable):
                        decide(drop(statement.program, path), ctx)
            if truth:
                swaps = _swaps(statement.program, instance,
                               select(statement.program["select"], ctx))
                assert swaps
                for program in swaps:
                    assert decide(program, ctx) is False
            else:
                assert statement.distractor is not None
                repaired = copy.deepcopy(statement.program)
                if "entity" in repaired["claim"]:
                    repaired["claim"] = {"entity": statement.distractor["replaces"]}
                    assert decide(repaired, ctx) is True
                if "only" in repaired["claim"]:  # the replaced entity is picked as well
                    picked = OPERATORS.get("and").select(statement.program["select"], ctx)
                    assert {statement.distractor["replaces"],
                            statement.distractor["with"]} <= picked


def _claims_of_never_winners_are_flagged(program: dict[str, Any], ctx: Context) -> None:
    """A "during the years when" claim of an entity that clearly wins the chart in no year is
    readable without the table; the verifier says so, and only then."""
    node = program["select"]
    winners = set()
    for year in ctx.periods:
        scores = {e: ctx.point(e, node["column"], year) for e in ctx.entities}
        try:
            winners.add(best(ctx, scores, node["order"], ctx.rank_gap))
        except Undecidable:
            continue
    for entity in ctx.entities:
        forged = copy.deepcopy(program)
        forged["claim"] = {"entity": entity}
        flagged = "table" in readable_without(forged, ctx)
        assert flagged == (entity not in winners), (entity, winners)


@pytest.mark.parametrize("type_name", [n for n, k in STATEMENT_TYPES.items() if k.with_fact])
def test_the_claimed_fact_does_not_depend_on_the_label(type_name: str, world: World,
                                                       pack: DomainPack) -> None:
    """A fact-claiming type draws the fact before it meets the label, facts that some
    selection makes true and another false first: from the same random state, a true and a
    false statement claim the same fact wherever the instance has such a fact. (Chosen after
    the selection, a true statement would claim the selected entity's own facts and a false
    one another's, so a wording classifier could learn which facts tend to be true.)"""
    pairs = same = 0
    rng = derive(7, "fact-first", type_name)
    for _ in range(1000):
        instance = sample_instance(world, pack, rng, trend_pair=needs_trend_pair(type_name),
                                   shared=needs_shared_facts(type_name))
        if instance is None:
            continue
        seed = int(rng.integers(2**32))
        made = [make_statement(type_name, instance, pack, derive(seed, "statement"), truth,
                               set()) for truth in (True, False)]
        if made[0] is None or made[1] is None:
            continue
        assert made[0].label and not made[1].label
        needles = [m.program["claim"]["fact"]["needle"] for m in made]
        pairs += 1
        same += needles[0] == needles[1]
        if pairs == 40:
            break
    assert pairs == 40, f"{type_name}: too few instances with both labels"
    # FC+TR's hop often picks one entity whatever the column (the one that grows): then no
    # fact is open to both labels, and the true claim must be that entity's. Drawn after the
    # selection, a fact owned by one entity would never be claimed alike.
    assert same >= 0.25 * pairs, f"{type_name}: the same fact in only {same} of {pairs} pairs"
