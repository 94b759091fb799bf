"""Hop necessity on labels: the ``only`` claim, operator bounds with one
modality withheld, the verifier's label-openness check, and fresh builds in which withholding
any one modality leaves both labels possible (checked here by enumerating completions, not by
the verifier's bounds)."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from itertools import chain, combinations, product
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.program.executor import Context, Undecidable, bounds, decide, select
from hopvista.program.lenient import lenient_decide
from hopvista.program.statement_types import STATEMENT_TYPES, selector
from hopvista.verify.checks import (
    LABEL_DECIDABLE_FALSE,
    check_item,
    hop_necessary,
    readable_without,
)
from tests.test_verify_fuzz import Dataset

ROOT = Path(__file__).resolve().parent.parent
YEARS = [2019, 2020, 2021, 2022, 2023]
E = frozenset({"A", "B", "C"})
NONE: frozenset[str] = frozenset()
#: The types that claim facts several entities state, as the registry declares them.
SHARED_FACT_TYPES = frozenset(name for name in STATEMENT_TYPES.names()
                              if STATEMENT_TYPES.get(name).shared_facts)

# --------------------------------------------------------------------------------------------
# a hand-made item: table column x, chart column y, one text per entity

TABLE = {"A": [10, 11, 12, 13, 14], "B": [20, 21, 22, 23, 24], "C": [30, 5, 32, 33, 34]}
CHART = {"A": [100, 200, 300, 400, 500],   # increasing; wins max in 2020..2023
         "B": [500, 150, 150, 100, 50],     # falls; wins max in 2019
         "C": [10, 40, 70, 100, 130]}       # increasing; never wins max
TEXTS = {"A": "We are headquartered in Austin, Texas.", "B": "We make bicycles.",
         "C": "We make boats."}


def _item() -> dict[str, Any]:
    rows = [{"entity": e, "year": y, "values": {"x": f"{TABLE[e][i]}.0"}}
            for e in sorted(E) for i, y in enumerate(YEARS)]
    return {
        "entities": [{"id": e, "name": f"Entity {e}"} for e in sorted(E)],
        "inputs": {
            "text": [{"entity": e, "chunk": f"{e}-1", "text": TEXTS[e]} for e in sorted(E)],
            "table": {"columns": [{"key": "x", "label": "X"}], "rows": rows},
            "chart": {"column": {"key": "y", "label": "Y"}, "years": YEARS,
                      "series": [{"entity": e, "values": [f"{v}.0" for v in CHART[e]]}
                                 for e in sorted(E)]}},
    }


@pytest.fixture()
def ctx() -> Context:
    return Context(_item(), 0.03, 0.03)


def _ct(threshold: str, year: int = 2019, cmp: str = ">") -> dict[str, Any]:
    return {"op": "ct", "column": "x", "year": year, "cmp": cmp, "threshold": threshold}


CT_ALL = {"op": "ct_all", "column": "x", "cmp": ">", "threshold": "15"}         # {B}
TR_UP = {"op": "tr_all", "column": "y", "direction": "increasing"}                # {A, C}
AR_SUM = {"op": "ar_sum", "column": "x", "cmp": ">", "threshold": "100"}          # {B, C}
WHEN = {"op": "rk_when", "column": "y", "order": "max",
        "when": {"entity": "A", "terms": [{"column": "x", "sign": "+"}], "cmp": ">",
                 "threshold": "10.5"}}                                            # {A}
FACT = {"op": "fact", "needle": "headquartered in Austin, Texas"}


# --------------------------------------------------------------------------------------------
# the only claim in the executor


@pytest.mark.parametrize(("threshold", "picked"), [("35", NONE), ("25", {"C"}),
                                                   ("15", {"B", "C"})])
def test_only_claim_is_true_iff_exactly_that_entity_is_picked(ctx: Context, threshold: str,
                                                               picked: set[str]) -> None:
    node = _ct(threshold)
    assert select(node, ctx) == picked
    for entity in E:
        assert decide({"select": node, "claim": {"only": entity}}, ctx) is (picked == {entity})
    if len(picked) != 1:  # a definite description needs one entity; "only" does not
        with pytest.raises(Undecidable):
            decide({"select": node, "claim": {"entity": "C"}}, ctx)


def test_only_claim_of_an_unknown_entity_is_undecidable(ctx: Context) -> None:
    with pytest.raises(Undecidable, match="unknown entity"):
        decide({"select": _ct("25"), "claim": {"only": "Z"}}, ctx)


def test_lenient_solver_judges_only_claims_on_the_exact_set(ctx: Context) -> None:
    for threshold, label in (("100", True), ("4", False), ("1000", False)):  # {C}, {A,C}, {}
        node = {"op": "and", "args": [{**AR_SUM, "threshold": threshold}, TR_UP]}
        assert lenient_decide({"select": node, "claim": {"only": "C"}}, ctx) is label


# --------------------------------------------------------------------------------------------
# bounds of each built-in operator


@pytest.mark.parametrize("node", [_ct("15"), {**CT_ALL}, AR_SUM,
                                  {"op": "ar", "column": "x", "years": [2019, 2020],
                                   "sign": "+", "result": "41.0"}])
def test_table_operators_are_open_only_without_the_table(ctx: Context,
                                                         node: dict[str, Any]) -> None:
    picked = select(node, ctx)
    assert bounds(node, ctx, "table") == (NONE, E)
    assert bounds(node, ctx, "chart") == (picked, picked)
    assert bounds(node, ctx, "text") == (picked, picked)


@pytest.mark.parametrize("node", [TR_UP, {"op": "tr", "column": "y", "from": 2021, "to": 2023,
                                          "direction": "decreasing"},
                                  {"op": "rk", "column": "y", "year": 2019, "order": "max"}])
def test_chart_operators_are_open_only_without_the_chart(ctx: Context,
                                                         node: dict[str, Any]) -> None:
    picked = select(node, ctx)
    assert bounds(node, ctx, "chart") == (NONE, E)
    assert bounds(node, ctx, "table") == (picked, picked)


def test_fact_and_any_bounds(ctx: Context) -> None:
    assert bounds(FACT, ctx, "text") == (NONE, E)
    assert bounds(FACT, ctx, "table") == ({"A"}, {"A"})
    assert bounds({"op": "any"}, ctx, "table") == (E, E)


def test_and_intersects_the_bounds_of_its_arguments(ctx: Context) -> None:
    node = {"op": "and", "args": [AR_SUM, TR_UP]}
    assert select(AR_SUM, ctx) == {"B", "C"} and select(TR_UP, ctx) == {"A", "C"}
    assert bounds(node, ctx, "table") == (NONE, {"A", "C"})
    assert bounds(node, ctx, "chart") == (NONE, {"B", "C"})
    assert bounds(node, ctx, "text") == ({"C"}, {"C"})


def test_rank_when_without_the_table_may_pick_any_clear_winner_of_some_year(ctx: Context
                                                                            ) -> None:
    assert select(WHEN, ctx) == {"A"}
    assert bounds(WHEN, ctx, "table") == (NONE, {"A", "B"})  # C wins no year
    assert bounds(WHEN, ctx, "chart") == (NONE, E)
    assert bounds(WHEN, ctx, "text") == ({"A"}, {"A"})
    unconditional = {k: v for k, v in WHEN.items() if k != "when"}  # reads no table
    assert bounds(unconditional, ctx, "table") == ({"A", "B"}, {"A", "B"})


# --------------------------------------------------------------------------------------------
# the rule


def test_readable_without_names_the_modality_that_decides(ctx: Context) -> None:
    fused = {"op": "and", "args": [AR_SUM, TR_UP]}                       # picks {C}
    assert readable_without({"select": fused, "claim": {"only": "C"}}, ctx) == []
    # B fails the trend: false whatever the table says
    assert readable_without({"select": fused, "claim": {"only": "B"}}, ctx) == ["table"]
    assert readable_without({"select": fused, "claim": {"only": "A"}}, ctx) == ["chart"]
    assert readable_without({"select": WHEN, "claim": {"entity": "B"}}, ctx) == []
    assert readable_without({"select": WHEN, "claim": {"entity": "C"}}, ctx) == ["table"]
    # a fact claim: the owner (A) must be allowed by the other hops
    assert readable_without({"select": fused, "claim": {"fact": FACT}}, ctx) == ["chart"]
    assert readable_without({"select": _ct("25"), "claim": {"fact": FACT}}, ctx) == []


def test_only_claims_need_each_hop_to_decide_between_several(ctx: Context) -> None:
    both = {"op": "and", "args": [{**CT_ALL, "threshold": "4"}, TR_UP]}  # {A, C}
    program = {"select": both, "claim": {"only": "C"}}
    assert decide(program, ctx) is False
    # dropping ct_all leaves {A, C}: the table decides whether C is the only one
    assert hop_necessary(program, ("select", "args", 0), ctx)
    # dropping tr_all leaves all three
    assert hop_necessary(program, ("select", "args", 1), ctx)
    # a claim the remaining hops already exclude is decided by them: not necessary
    assert not hop_necessary({"select": {"op": "and", "args": [AR_SUM, TR_UP]},
                              "claim": {"only": "A"}}, ("select", "args", 1), ctx)


def _statement(program: dict[str, Any], label: bool, type_name: str) -> dict[str, Any]:
    return {"type": type_name, "label": label, "program": program}


def test_the_check_is_gated_on_the_format_version(ctx: Context) -> None:
    """A definite CT+TR description claiming an entity the chart excludes: fine in format 3
    (not held to label openness), a problem in format 4."""
    fused = {"op": "and", "args": [AR_SUM, TR_UP]}
    item = {**_item(), "answer": [],
            "statements": [_statement({"select": fused, "claim": {"entity": "B"}}, False,
                                      "CT+TR")]}
    assert check_item(item, ctx, 3) == []
    assert check_item(item, ctx, 4) == ["statement 1 (CT+TR): its label is readable without "
                                        "the table"]
    forged = copy.deepcopy(item)
    forged["statements"][0]["program"]["claim"] = {"fact": FACT}
    forged["statements"][0]["type"] = "FC+AR+TR"
    assert check_item(forged, ctx, 4) == []  # format 4's named exception
    assert check_item(forged, ctx, 5) == ["statement 1 (FC+AR+TR): its label is readable "
                                          "without the chart"]  # none from format 5


def test_format_4s_exceptions_are_the_types_that_claim_shared_facts() -> None:
    assert LABEL_DECIDABLE_FALSE == SHARED_FACT_TYPES == {"FC+CT+TR", "FC+AR+TR"}


def test_only_the_fact_form_of_a_type_registered_so_claims_shared_facts() -> None:
    """``shared_fact_form`` marks the FC form, never the type itself nor other types."""
    for name in STATEMENT_TYPES.names():
        kind = STATEMENT_TYPES.get(name)
        assert kind.shared_facts == (kind.with_fact and name in {"FC+CT+TR", "FC+AR+TR"})


SHARED = {"op": "fact", "needle": "KPMG LLP"}


def _shared_item() -> dict[str, Any]:
    """The hand-made item, with a fact that A's and B's texts state alike (not C's)."""
    item = _item()
    for chunk in item["inputs"]["text"]:
        if chunk["entity"] in ("A", "B"):
            chunk["text"] += " Our auditor is KPMG LLP."
    return item


def test_a_shared_fact_claim_is_true_of_any_owner_and_open_without_each_modality() -> None:
    ctx = Context(_shared_item(), 0.03, 0.03)
    fused = {"op": "and", "args": [AR_SUM, TR_UP]}          # table {B, C} x chart {A, C}: C
    assert select(SHARED, ctx) == {"A", "B"}
    program = {"select": fused, "claim": {"fact": SHARED}}
    assert decide(program, ctx) is False
    # B passes the table hop and A the chart hop: neither modality alone refutes it
    assert readable_without(program, ctx) == []
    assert decide({"select": {"op": "and", "args": [AR_SUM, CT_ALL]},
                   "claim": {"fact": SHARED}}, ctx) is True       # picks B, an owner
    # with a fact only A states, the table refutes it whatever the chart shows
    assert readable_without({"select": fused, "claim": {"fact": FACT}}, ctx) == ["chart"]


def test_trend_pairs_claim_only_and_their_fact_forms_a_fact() -> None:
    claims = {name: kind.claim for name, kind in STATEMENT_TYPES.items()
              if kind.origin.startswith("hopvista.")}
    assert {n for n, c in claims.items() if c == "only"} == {"CT+TR", "AR+TR"}
    assert {n for n, c in claims.items() if c == "fact"} == {n for n in claims
                                                             if n.startswith("FC+")}
    with pytest.raises(ValueError, match="claim must be one of"):
        selector("XX", modalities=("table",), variables=(), operators=(), claim="some")


def test_the_schema_has_the_only_claim(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    defs = json.loads(capsys.readouterr().out)["$defs"]
    assert defs["OnlyClaim"]["required"] == ["only"]


def _golden_trend_pair(tmp_path: Path) -> tuple[Dataset, list[dict[str, Any]], int, int]:
    """A copy of the current golden to forge, its items, and (item, statement) of its first
    CT+TR statement."""
    ds = Dataset(tmp_path / "ds")
    shutil.copytree(ROOT / "tests" / "golden" / "format6", ds.root)
    items = ds.items()
    i, n = next((i, n) for i, item in enumerate(items) for n, s in enumerate(item["statements"])
                if s["type"] == "CT+TR")
    return ds, items, i, n


# --------------------------------------------------------------------------------------------
# gen verify rejects a forged false "only" claim of an entity outside the table hop's set


def test_verify_rejects_an_only_claim_the_chart_already_refutes(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]
                                                                ) -> None:
    ds, items, i, n = _golden_trend_pair(tmp_path)
    item, statement = items[i], items[i]["statements"][n]
    ctx = Context(item, 0.03, 0.03)
    table_hop, chart_hop = statement["program"]["select"]["args"]
    (chosen,) = select(statement["program"]["select"], ctx)
    outside = next(e for e in ctx.entities if e not in select(table_hop, ctx))
    names = {e["id"]: e["name"] for e in item["entities"]}
    text = statement["text"].replace(names[chosen], names[outside])
    item["question"] = item["question"].replace(statement["text"], text)
    statement |= {"text": text, "label": False,
                  "distractor": {"replaces": chosen, "with": outside}}
    statement["program"]["claim"] = {"only": outside}
    item["answer"] = [k + 1 for k, s in enumerate(item["statements"]) if s["label"]]
    item["provenance"]["plan"]["answer"] = item["answer"]
    ds.save(items)
    assert main(["verify", str(ds.root), "--max-problems", "0"]) == 1
    err = capsys.readouterr().err
    assert f"statement {n + 1} (CT+TR): its label is readable without the chart" in err, err


# --------------------------------------------------------------------------------------------
# fresh builds: every statement keeps both labels possible with each modality withheld,
# by enumerating what the withheld data could make each hop pick


READS = {"ct": {"table"}, "ct_all": {"table"}, "ar": {"table"}, "ar_sum": {"table"},
         "tr": {"chart"}, "tr_all": {"chart"}, "rk": {"chart"}, "fact": {"text"},
         "rk_when": {"table", "chart"}}
Outcome = frozenset[str] | None   # None: no single reading (the description fails)


def _subsets(entities: list[str]) -> Iterator[frozenset[str]]:
    return (frozenset(c) for c in chain.from_iterable(
        combinations(entities, r) for r in range(len(entities) + 1)))


def _clear_winner(ctx: Context, column: str, year: int, order: str) -> str | None:
    sign = 1 if order == "max" else -1
    ranked = sorted(ctx.entities, key=lambda e: sign * ctx.chart[(e, year)], reverse=True)
    gap = sign * (ctx.chart[(ranked[0], year)] - ctx.chart[(ranked[1], year)])
    return ranked[0] if gap > 0 and gap >= ctx.rank_gap else None


def _outcomes(node: dict[str, Any], ctx: Context, hidden: str) -> set[Outcome]:
    """Every set the node can pick over completions of the ``hidden`` modality."""
    op = node["op"]
    if op == "and":
        result: set[Outcome] = set()
        for parts in product(*(_outcomes(arg, ctx, hidden) for arg in node["args"])):
            result.add(None if None in parts else
                       frozenset.intersection(*[p for p in parts if p is not None]))
        return result
    if hidden not in READS[op]:
        return {select(node, ctx)}
    if op == "rk_when" and hidden == "table":  # any non-empty set of years meets the condition
        found: set[Outcome] = set()
        for r in range(1, len(ctx.periods) + 1):
            for years in combinations(ctx.periods, r):
                winners = {_clear_winner(ctx, node["column"], y, node["order"]) for y in years}
                found.add(None if None in winners else frozenset(winners))  # type: ignore[arg-type]
        return found
    if op in ("rk", "rk_when"):  # a chart can crown anyone, or nobody clearly
        return {frozenset({e}) for e in ctx.entities} | {None}
    return set(_subsets(ctx.entities))


def _both_labels(program: dict[str, Any], ctx: Context, hidden: str) -> bool:
    """Whether some completion of ``hidden`` makes the statement true and some false (a
    completion whose selector picks anything but exactly the claimed entity makes it false)."""
    claim = program["claim"]
    outcomes = _outcomes(program["select"], ctx, hidden)
    if "fact" in claim:
        owners = [frozenset({e}) for e in ctx.entities] if hidden == "text" \
            else [select(claim["fact"], ctx)]
    else:
        owners = [frozenset({claim.get("only", claim.get("entity"))})]
    verdicts = {picked is not None and len(picked) == 1 and picked <= owner
                for picked in outcomes for owner in owners}
    return verdicts == {True, False}


def _check_build(root: Path) -> tuple[int, set[str]]:
    """Statements checked, and the types of those readable with a modality withheld (none:
    format 4's exceptions claim shared facts since format 5)."""
    manifest = json.loads((root / "manifest.json").read_text())
    margins = manifest["config"]["decidability"]
    checked, readable = 0, set()
    for line in (root / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        ctx = Context(item, margins["min_rank_gap"], margins["min_trend_step"])
        for statement in item["statements"]:
            checked += 1
            closed = [m for m in statement["modalities"]
                      if not _both_labels(statement["program"], ctx, m)]
            if closed:
                readable.add(statement["type"])
    return checked, readable


@pytest.mark.slow
@pytest.mark.parametrize("command", [["financial", "-n", "60"], ["materials", "-n", "40"],
                                     [str(ROOT / "examples" / "air-quality"), "-n", "40"]],
                         ids=["financial", "materials", "air-quality"])
def test_fresh_builds_need_every_modality_for_every_label(tmp_path: Path,
                                                          command: list[str]) -> None:
    out = tmp_path / "ds"
    assert main(["build", *command, "--no-images", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
    checked, readable = _check_build(out)
    assert checked > 0
    assert readable == set()
    if command[0] in ("financial", "materials"):  # the types that claim shared facts are built
        shares = json.loads((out / "manifest.json").read_text())["shares"]["statements"]
        assert all(shares.get(t, {}).get("false") for t in SHARED_FACT_TYPES), shares



def test_verify_rejects_a_trend_pair_with_a_definite_claim(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """Format 4: CT+TR claims "only"; the entity claim of format 3 is another meaning."""
    ds, items, i, n = _golden_trend_pair(tmp_path)
    claim = items[i]["statements"][n]["program"]["claim"]
    claim["entity"] = claim.pop("only")
    ds.save(items)
    assert main(["verify", str(ds.root)]) == 1
    assert "claims 'entity', but CT+TR statements claim 'only'" in capsys.readouterr().err


def test_verify_rejects_a_false_fused_fact_claim_that_one_entity_states(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Format 5: a false FC+CT+TR / FC+AR+TR statement claims a fact several entities state.
    Forged to attribute a fact one other entity states (what format 4 did), consistently
    (text, distractor), it is refuted by a modality it does not need, and verify says so."""
    ds = Dataset(tmp_path / "ds")
    shutil.copytree(ROOT / "tests" / "golden" / "format6", ds.root)
    items = ds.items()
    i, n = next((i, n) for i, item in enumerate(items) for n, s in enumerate(item["statements"])
                if s["type"] in SHARED_FACT_TYPES and not s["label"])
    item, statement = items[i], items[i]["statements"][n]
    ctx = Context(item, 0.03, 0.03)
    owners = select(statement["program"]["claim"]["fact"], ctx)
    assert len(owners) >= 2 and readable_without(statement["program"], ctx) == []
    (chosen,) = select(statement["program"]["select"], ctx)
    other = next(e for e in ctx.entities if e != chosen)
    chunk = next(c["text"] for c in item["inputs"]["text"] if c["entity"] == other)
    sentence = next(s for s in chunk.split(". ") if other not in s and len(s.split()) > 4)
    needle = " ".join(sentence.split()[-4:])  # four words only that entity's text has
    assert select({"op": "fact", "needle": needle}, ctx) == {other}, needle
    old_needle = statement["program"]["claim"]["fact"]["needle"]
    text = statement["text"].replace(old_needle, needle)
    item["question"] = item["question"].replace(statement["text"], text)
    statement |= {"text": text, "distractor": {"replaces": chosen, "with": other}}
    statement["program"]["claim"] = {"fact": {"op": "fact", "needle": needle}}
    ds.save(items)
    assert main(["verify", str(ds.root), "--max-problems", "0"]) == 1
    err = capsys.readouterr().err
    assert f"statement {n + 1} ({statement['type']}): its label is readable without the" in err, \
        err
