"""CT+RK and AR+RK without a period axis: "among the alloys whose Density is greater than
7.5, the one with the highest Hardness is X" (``rk_among``, docs/format.md, section 3.4).

A small panel of alloys measured once (no period column, no texts) is built with
``--hops 1-2``; every such statement is re-derived here from the item's table and chart
with code of the test's own, its hops and modalities are shown to be needed from the data
(by enumerating what a withheld modality could hold), and forged items fail ``gen verify``.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from decimal import Decimal
from itertools import chain, combinations
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.domain import resolve_pack
from hopvista.program.executor import Context, Undecidable, decide, drop, hops
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.sources import SourceOptions
from hopvista.sources.panel.pack import panel_pack
from hopvista.verify.checks import hop_necessary, readable_without
from tests.conftest import read_items, reseal
from tests.test_panel import write_folder

# Twelve alloys, six properties, one row each: no period column. (Fewer than ten entities
# give the proxy too few points for a line; see the report of this change.)
ALLOYS = """Alloy,Density,Hardness,Tensile Strength,Melting Point,Conductivity,Elongation
Brass C260,8.53,62,357,915,28.0,66
Bronze C510,8.86,78,455,975,15.0,48
Aluminium 6061,2.70,95,310,652,43.0,12
Titanium Grade 5,4.43,334,950,1660,1.0,14
Steel 304,8.00,201,505,1400,2.5,70
Copper C110,8.89,45,220,1083,101.0,55
Nickel 200,8.89,105,462,1446,18.0,47
Magnesium AZ31,1.77,49,260,605,18.5,21
Zinc Zamak 3,6.60,82,283,387,27.0,10
Inconel 625,8.44,190,880,1320,1.3,42
Tin Babbitt,7.34,27,77,241,12.0,30
Cobalt Stellite 6,8.39,390,896,1285,1.6,3
"""

# Three entities never give a false statement of these types on one period (docs/panel.md):
# an instance shows five.
DOMAIN = """period: null
entity: {singular: alloy, plural: alloys}
instance: {entities: 5}
"""

PAIRS = ("CT+RK", "AR+RK")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("alloys")
    folder = write_folder(root / "data", ALLOYS, domain=DOMAIN)
    out = root / "out"
    assert main(["build", "panel", "--data", str(folder), "--hops", "1-2", "-n", "24",
                 "--no-images", "--out", str(out)]) == 0
    return out


def _margins(root: Path) -> dict[str, float]:
    return json.loads((root / "manifest.json").read_text())["config"]["decidability"]


def _pairs(root: Path) -> Iterator[tuple[int, int, dict[str, Any], dict[str, Any]]]:
    """(item index, statement index, item, statement) of every CT+RK / AR+RK statement."""
    for i, item in enumerate(read_items(root)):
        for n, statement in enumerate(item["statements"]):
            if statement["type"] in PAIRS:
                yield i, n, item, statement


# --- the test's own reading of an item (not the verifier's) -----------------------------------

def _number(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


class Shown:
    """An item's one-period table and chart, parsed from the displayed strings."""

    def __init__(self, item: dict[str, Any], min_rank_gap: float) -> None:
        self.entities = [e["id"] for e in item["entities"]]
        self.names = {e["id"]: e["name"] for e in item["entities"]}
        rows = item["inputs"]["table"]["rows"]
        assert len(rows) == len(self.entities)  # one row per entity: one period
        self.table = {(r["entity"], k): _number(v) for r in rows for k, v in r["values"].items()}
        chart = item["inputs"]["chart"]
        assert len(chart["years"]) == 1
        self.chart = {s["entity"]: _number(s["values"][0]) for s in chart["series"]}
        values = list(self.chart.values())
        span = max(max(values), Decimal(0)) - min(min(values), Decimal(0))
        self.gap = span * Decimal(str(min_rank_gap))

    def condition(self, among: dict[str, Any]) -> dict[str, Decimal]:
        """x(e): the condition's left-hand side for every entity."""
        out = {}
        for e in self.entities:
            value = Decimal(0)
            for term in among["terms"]:
                cell = self.table[(e, term["column"])]
                value = value + cell if term["sign"] == "+" else value - cell
            out[e] = value
        return out

    def meeting(self, among: dict[str, Any]) -> frozenset[str]:
        t = Decimal(among["threshold"])
        x = self.condition(among)
        assert t not in x.values()
        return frozenset(e for e in self.entities if (x[e] > t if among["cmp"] == ">"
                                                      else x[e] < t))

    def top(self, among: frozenset[str] | list[str], order: str) -> str | None:
        """The clear winner on the chart among ``among`` (None: the top two too close)."""
        ranked = sorted(among, key=lambda e: self.chart[e], reverse=order == "max")
        lead = abs(self.chart[ranked[0]] - self.chart[ranked[1]])
        return ranked[0] if lead > 0 and lead >= self.gap else None

    def picks(self, members: frozenset[str], order: str) -> str | None:
        """What "among ``members``, the one with the highest chart value" picks under the
        type's rules (two or more members; a clear winner; not the clear winner of all)."""
        if len(members) < 2:
            return None
        winner = self.top(members, order)
        return None if winner is None or winner == self.top(self.entities, order) else winner

    def beats(self, e: str, f: str, order: str) -> bool:
        lead = (self.chart[e] - self.chart[f]) * (1 if order == "max" else -1)
        return lead > 0 and lead >= self.gap


def _subsets(entities: list[str]) -> Iterator[frozenset[str]]:
    return (frozenset(c) for c in chain.from_iterable(
        combinations(entities, r) for r in range(len(entities) + 1)))


def _labels_without(shown: Shown, node: dict[str, Any], claimed: str, hidden: str
                    ) -> set[bool]:
    """The labels some completion of the withheld modality gives "the one picked is
    ``claimed``", by enumeration: without the table any set of entities can meet the
    condition; without the chart any member of the (known) set can win it clearly, or none,
    and the clear winner of all can be anyone outside it."""
    order = node["order"]
    if hidden == "table":
        picked = {shown.picks(members, order) for members in _subsets(shown.entities)}
    else:
        members = shown.meeting(node["among"])
        possible = len(members) >= 2 and members != frozenset(shown.entities)
        picked = ({*members, None} if possible else {None})
    return {p == claimed for p in picked}


# --- the build ----------------------------------------------------------------------------------

def test_the_pack_enables_the_pairs_without_a_period_axis(tmp_path: Path) -> None:
    folder = write_folder(tmp_path, ALLOYS, domain=DOMAIN)
    pack = panel_pack(resolve_pack("panel"), SourceOptions(data=folder))
    assert pack.spec.period is None and pack.instance_periods == 1
    assert set(pack.types) == {"CT", "RK", "CT+RK", "AR+RK"}
    assert all("anchor" not in form and "Among the {{ plural }}" in " ".join(forms)
               for name, forms in pack.words.forms.items() if name.endswith("RK") and "+" in name
               for form in forms)
    for name in ("CT+RK", "AR+RK", "FC+CT+RK", "FC+AR+RK"):
        kind = STATEMENT_TYPES.get(name)
        assert kind.min_periods == 1 and kind.periods_read == 2
        assert "anchor" in kind.variables and "anchor" not in kind.variables_for(1)


def test_builds_medium_pairs_without_periods_and_verifies(built: Path) -> None:
    items = read_items(built)
    medium = [item for item in items if item["difficulty"] == "medium"]
    assert medium
    found = {(s["type"], s["label"]) for item in medium for s in item["statements"]
             if s["type"] in PAIRS}
    assert found == {(t, label) for t in PAIRS for label in (True, False)}, found
    for _, _, item, statement in _pairs(built):
        assert item["inputs"]["table"]["period_label"] is None
        assert statement["program"]["select"]["op"] == "rk_among"
        assert statement["text"].startswith(("Among the alloys whose", "Of the alloys"))
        assert "year" not in statement["text"] and "whenever" not in statement["text"].lower()
    assert main(["verify", str(built)]) == 0


def test_labels_are_the_winner_among_the_entities_meeting_the_condition(built: Path) -> None:
    margins = _margins(built)
    checked = 0
    for _, _, item, statement in _pairs(built):
        shown = Shown(item, margins["min_rank_gap"])
        node = statement["program"]["select"]
        among = node["among"]
        assert len(among["terms"]) == (1 if statement["type"] == "CT+RK" else 2)
        members = shown.meeting(among)
        ranked = sorted(members, key=lambda e: shown.chart[e], reverse=node["order"] == "max")
        winner = ranked[0]
        assert abs(shown.chart[ranked[0]] - shown.chart[ranked[1]]) >= shown.gap
        claimed = statement["program"]["claim"]["entity"]
        assert statement["label"] == (claimed == winner)
        assert (statement["distractor"] is None) == statement["label"]
        if not statement["label"]:
            assert statement["distractor"] == {"replaces": winner, "with": claimed}
        assert shown.names[claimed] in statement["text"]
        # the threshold sits at the midpoint of two neighbouring values of the condition
        x = sorted(set(shown.condition(among).values()))
        t = Decimal(among["threshold"])
        below, above = max(v for v in x if v < t), min(v for v in x if v > t)
        assert t == (below + above) / 2
        checked += 1
    assert checked >= 8


def test_every_hop_and_modality_is_needed_for_the_label(built: Path) -> None:
    margins = _margins(built)
    for _, _, item, statement in _pairs(built):
        shown = Shown(item, margins["min_rank_gap"])
        program = statement["program"]
        node = program["select"]
        order = node["order"]
        members = shown.meeting(node["among"])
        claimed = program["claim"]["entity"]
        # the condition alone picks two or more (so the ranking is needed), not every entity
        assert 2 <= len(members) < len(shown.entities)
        # ranked among all, the chart does not give the statement's winner (so the condition
        # is needed): its clear winner, if any, does not meet the condition
        winner = shown.picks(members, order)
        overall = shown.top(shown.entities, order)
        assert winner is not None and winner != overall and overall not in members
        # a false statement names an entity the remaining hops allow
        if not statement["label"]:
            assert claimed in members and claimed != overall
            assert any(shown.beats(claimed, f, order) for f in shown.entities if f != claimed)
        # with either modality withheld, some completion makes it true and some false
        for hidden in ("table", "chart"):
            assert _labels_without(shown, node, claimed, hidden) == {True, False}, hidden
        # and the verifier agrees: every dropped hop is undecidable, no modality readable
        ctx = Context(item, margins["min_rank_gap"], margins["min_trend_step"])
        assert decide(program, ctx) is statement["label"]
        paths = hops(program)
        assert paths == [("select", "among"), ("select",)]
        for path in paths:
            assert hop_necessary(program, path, ctx)
            with pytest.raises(Undecidable):
                decide(drop(program, path), ctx)
        assert readable_without(program, ctx) == []


def test_the_verifier_flags_exactly_the_claims_a_withheld_modality_settles(built: Path
                                                                          ) -> None:
    """For every entity a statement could claim, the verifier's bounds and the test's
    enumeration agree on which modalities leave only one label."""
    margins = _margins(built)
    seen = set()
    for _, _, item, statement in _pairs(built):
        shown = Shown(item, margins["min_rank_gap"])
        ctx = Context(item, margins["min_rank_gap"], margins["min_trend_step"])
        for entity in shown.entities:
            forged = copy.deepcopy(statement["program"])
            forged["claim"] = {"entity": entity}
            expected = [m for m in ("table", "chart")
                        if _labels_without(shown, forged["select"], entity, m) != {True, False}]
            assert readable_without(forged, ctx) == expected, (entity, expected)
            seen.add(tuple(expected))
    assert {(), ("chart",)} <= seen  # claims that stay open, and claims outside the set


def _cuts(values: dict[str, Decimal], cmp: str) -> Iterator[frozenset[str]]:
    """The sets a midpoint threshold between neighbouring values can leave meeting a
    condition (two or more, not all)."""
    ranked = sorted(values, key=lambda e: values[e], reverse=cmp == ">")
    for size in range(2, len(ranked)):
        if values[ranked[size - 1]] != values[ranked[size]]:
            yield frozenset(ranked[:size])


def test_the_claimed_entity_is_drawn_before_the_label(built: Path) -> None:
    """Whatever the label, the claimed entity, the order and the size of the set could have
    been claimed true by one condition and false by another: the claimed entity's place on
    the chart and the set's size say nothing of the label."""
    margins = _margins(built)
    for _, _, item, statement in _pairs(built):
        shown = Shown(item, margins["min_rank_gap"])
        node = statement["program"]["select"]
        order, claimed = node["order"], statement["program"]["claim"]["entity"]
        size = len(shown.meeting(node["among"]))
        keys = list(item["inputs"]["table"]["rows"][0]["values"])
        exprs = [[{"column": c, "sign": "+"}] for c in keys] + [
            [{"column": a, "sign": "+"}, {"column": b, "sign": sign}]
            for a in keys for b in keys if a != b for sign in "+-"]
        labels = set()
        for terms in exprs:
            values = shown.condition({"terms": terms})
            for cmp in "<>":
                for members in _cuts(values, cmp):
                    if len(members) != size or claimed not in members:
                        continue
                    winner = shown.picks(members, order)
                    if winner is None:
                        continue
                    if winner == claimed or any(shown.beats(claimed, f, order)
                                                for f in shown.entities if f != claimed):
                        labels.add(winner == claimed)
        assert labels == {True, False}, (statement["text"], labels)


# --- forgeries ----------------------------------------------------------------------------------

def _forge(built: Path, tmp_path: Path, change: Any) -> tuple[Path, str]:
    """A consistent forgery of the build: ``change(item, statement, shown)`` edits one
    CT+RK / AR+RK statement (returning False to pass it over); the answer, the question,
    the Parquet rows and the hashes are made to match. Returns the folder and the
    statement's name in problems."""
    root = tmp_path / "forged"
    shutil.copytree(built, root)
    items = read_items(root)
    margins = _margins(root)
    for item in items:
        for n, statement in enumerate(item["statements"]):
            if statement["type"] not in PAIRS:
                continue
            before = statement["text"]
            if change(item, statement, Shown(item, margins["min_rank_gap"])) is False:
                continue
            item["question"] = item["question"].replace(before, statement["text"])
            item["answer"] = [k + 1 for k, s in enumerate(item["statements"]) if s["label"]]
            item["provenance"]["plan"]["answer"] = item["answer"]
            reseal(root, items)
            return root, f"item {item['id']}: statement {n + 1} ({statement['type']})"
    raise AssertionError("no statement to forge")


def _verify_fails(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["verify", str(root), "--max-problems", "0"]) == 1
    return capsys.readouterr().err


def _rename(statement: dict[str, Any], shown: Shown, old: str, new: str) -> None:
    statement["text"] = statement["text"].replace(shown.names[old], shown.names[new])
    statement["program"]["claim"] = {"entity": new}


def test_a_flipped_label_fails(built: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    def flip(item: dict[str, Any], statement: dict[str, Any], shown: Shown) -> None:
        statement["label"] = not statement["label"]

    root, where = _forge(built, tmp_path, flip)
    err = _verify_fails(root, capsys)
    assert f"{where}: stored label" in err, err


def test_a_threshold_on_a_value_fails(built: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    def onto_value(item: dict[str, Any], statement: dict[str, Any], shown: Shown) -> None:
        among = statement["program"]["select"]["among"]
        values = shown.condition(among)
        value = values[shown.entities[0]]
        old = Decimal(among["threshold"])
        statement["text"] = statement["text"].replace(f"{old:,f}", f"{value:,f}")
        among["threshold"] = format(value, "f")

    root, where = _forge(built, tmp_path, onto_value)
    err = _verify_fails(root, capsys)
    assert f"{where}: undecidable: a value equals the threshold" in err, err


def test_a_condition_that_keeps_the_winner_of_all_fails(built: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """A threshold that lets the chart's clear winner of all meet the condition: it wins,
    and the statement could be read from the chart alone."""
    def keep_the_top(item: dict[str, Any], statement: dict[str, Any], shown: Shown
                     ) -> bool | None:
        node = statement["program"]["select"]
        among = node["among"]
        top = shown.top(shown.entities, node["order"])
        if top is None:
            return False
        x = shown.condition(among)
        others = sorted(v for e, v in x.items() if e != top and
                        (v < x[top] if among["cmp"] == ">" else v > x[top]))
        if not others:
            return False  # the winner of all meets every cut that keeps two entities
        edge = others[-1] if among["cmp"] == ">" else others[0]
        t = (edge + x[top]) / 2
        if len(shown.meeting(among | {"threshold": format(t, "f")})) < 2:
            return False
        old = Decimal(among["threshold"])
        statement["text"] = statement["text"].replace(f"{old:,f}", f"{t:,f}")
        among["threshold"] = format(t, "f")
        return None

    root, where = _forge(built, tmp_path, keep_the_top)
    err = _verify_fails(root, capsys)
    assert f"{where}: undecidable: the winner among the entities meeting the condition is " \
           "the clear winner among all of them" in err, err


def test_a_false_claim_the_table_already_refutes_fails(built: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A false statement that names the chart's clear winner of all (who does not meet the
    condition): the table alone says it is false."""
    def claim_the_top(item: dict[str, Any], statement: dict[str, Any], shown: Shown
                      ) -> bool | None:
        node = statement["program"]["select"]
        top = shown.top(shown.entities, node["order"])
        if top is None:
            return False
        winner = shown.picks(shown.meeting(node["among"]), node["order"])
        assert winner is not None
        _rename(statement, shown, statement["program"]["claim"]["entity"], top)
        statement["label"] = False
        statement["distractor"] = {"replaces": winner, "with": top}
        return None

    root, where = _forge(built, tmp_path, claim_the_top)
    err = _verify_fails(root, capsys)
    assert f"{where}: its label is readable without the chart" in err, err


def test_a_false_claim_the_chart_already_refutes_fails(built: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A false statement that names an entity beating no other clearly on the chart: it
    wins no set of two or more, so the chart alone says it is false."""
    def claim_a_loser(item: dict[str, Any], statement: dict[str, Any], shown: Shown
                      ) -> bool | None:
        node = statement["program"]["select"]
        order = node["order"]
        winner = shown.picks(shown.meeting(node["among"]), order)
        losers = [e for e in shown.entities if e != winner and
                  not any(shown.beats(e, f, order) for f in shown.entities if f != e)]
        if not losers:
            return False
        _rename(statement, shown, statement["program"]["claim"]["entity"], losers[0])
        statement["label"] = False
        statement["distractor"] = {"replaces": winner, "with": losers[0]}
        return None

    root, where = _forge(built, tmp_path, claim_a_loser)
    err = _verify_fails(root, capsys)
    assert f"{where}: its label is readable without the table" in err, err


def test_a_ranking_program_on_several_periods_is_undecidable() -> None:
    """``rk_among`` reads an item of one period; on more, it decides nothing."""
    item = {"entities": [{"id": e, "name": e} for e in "ABC"],
            "inputs": {"text": [], "table": {"columns": [{"key": "x"}], "rows": [
                {"entity": e, "year": y, "values": {"x": str(v + y)}}
                for e, v in zip("ABC", (1, 5, 9), strict=True) for y in (1, 2)]},
                "chart": {"column": {"key": "c"}, "years": [1, 2], "series": [
                    {"entity": e, "values": [str(v), str(v)]}
                    for e, v in zip("ABC", (10, 50, 90), strict=True)]}}}
    ctx = Context(item, 0.03, 0.03)
    program = {"select": {"op": "rk_among", "column": "c", "order": "max",
                          "among": {"terms": [{"column": "x", "sign": "+"}], "cmp": "<",
                                    "threshold": "7.5"}},
               "claim": {"entity": "B"}}
    with pytest.raises(Undecidable, match="one period"):
        decide(program, ctx)
    one = copy.deepcopy(item)
    one["inputs"]["table"]["rows"] = [r for r in item["inputs"]["table"]["rows"]
                                      if r["year"] == 1]
    one["inputs"]["chart"] |= {"years": [1], "series": [
        {"entity": s["entity"], "values": s["values"][:1]}
        for s in item["inputs"]["chart"]["series"]]}
    assert decide(program, Context(one, 0.03, 0.03)) is True  # {A, B} < 7.5: B (50) wins
