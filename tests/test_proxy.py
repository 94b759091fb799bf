"""The proxy-agreement axis: what a solver without one modality reads is
planned to agree with the truth half of the time, per statement type and label."""

from __future__ import annotations

import json
from collections import Counter
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from hopvista.audit.proxy import ProxyModels, ProxyReader
from hopvista.cli.main import main
from hopvista.domain import DomainPack
from hopvista.generation.plan import make_plan, plan_shares
from hopvista.program.statement_types import STATEMENT_TYPES, proxied
from hopvista.program.withheld import recorded_reading
from hopvista.verify.balance import Tally, check_agreement
from hopvista.world import World

from .conftest import read_items


def _plan(pack: DomainPack, defences: bool = True, seed: int = 5, count: int = 240) -> list[Any]:
    return make_plan(seed, count, (1, 2, 3), pack.types, defences=defences)


def test_every_type_gets_every_agreement_combination_equally(pack: DomainPack) -> None:
    """A sweep of the registry: each type's demands cover the modalities a proxy stands in
    for, and every combination is equal ±1 among its true slots and among its false ones."""
    plan = _plan(pack)
    cells: dict[tuple[str, bool], Counter[tuple[tuple[str, bool], ...]]] = {}
    for entry in plan:
        for slot, name in enumerate(entry.types):
            wants = entry.wants(slot)
            assert tuple(sorted(wants)) == tuple(sorted(proxied(
                STATEMENT_TYPES.get(name).modalities)))
            cells.setdefault((name, entry.truth(slot)), Counter())[
                tuple(sorted(wants.items()))] += 1
    assert {name for name, _ in cells} == set(pack.types)
    for (name, _), counter in cells.items():
        modalities = sorted(proxied(STATEMENT_TYPES.get(name).modalities))
        universe = [tuple(zip(modalities, bits, strict=True))
                    for bits in product((False, True), repeat=len(modalities))]
        counts = [counter.get(combo, 0) for combo in universe]
        assert max(counts) - min(counts) <= 1, (name, counter)


def test_the_axis_leaves_every_other_axis_as_it_was(pack: DomainPack) -> None:
    """Turning the defences off changes no answer, order or type: the axis is drawn last."""
    on, off = _plan(pack), _plan(pack, defences=False)
    assert [(e.answer, e.order, e.types) for e in on] == \
        [(e.answer, e.order, e.types) for e in off]
    assert all(e.agree is None and e.wants(0) == {} for e in off)
    assert plan_shares(on) == plan_shares(off)  # the built items report the axis


def test_the_verifier_counts_an_unbalanced_axis() -> None:
    tally = Tally()
    tally.proxied["RK"] = ("chart",)
    tally.agree += [("RK", True, {"chart": True})] * 3 + [("RK", True, {"chart": False})]
    assert any("proxy agreement of RK (true) not balanced" in p for p in check_agreement(tally))
    tally.agree.append(("RK", True, {"chart": False}))
    assert check_agreement(tally) == []
    tally.agree.append(("RK", False, {"table": True}))
    assert any("do not read: table agrees" in p for p in check_agreement(tally))
    tally.agree.pop()
    tally.agree += [("RK", True, {"chart": True})] * 2
    assert check_agreement(tally)  # 5 against 2
    tally.waived_slots[("RK", True)] += 2  # two slots the items could not keep
    assert check_agreement(tally) == []


def test_world_lines_predict_every_chartable_column(world: World) -> None:
    models = ProxyModels.of(world)
    assert ProxyModels.of(world) is models  # fitted once per world
    chartable = [k for k, c in world.columns.items() if c.chartable]
    for key in chartable:
        predictors = [x for (y, x) in models.chart.lines if y == key]
        assert len(predictors) == len(world.columns) - 1, key
    sale = max((models.chart.lines[("sale", x)].r2, x) for x in world.columns if x != "sale")
    assert sale[0] > 0.8, sale  # a company's size shows in many columns: a real proxy


@pytest.fixture(scope="module")
def defended(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("proxy") / "ds"
    assert main(["build", "financial", "-n", "24", "--seed", "11", "--no-images",
                 "--out", str(out)]) == 0
    return out


def test_each_statement_records_what_the_world_proxies_read(defended: Path,
                                                            world: World) -> None:
    """The recorded lines are the world's (seed 11 is the ``world`` fixture's), the recorded
    label is what they give, and it honours the plan's demand (unless the item says its
    demands were waived)."""
    models = ProxyModels.of(world)
    read = 0
    items = read_items(defended)
    assert sum(bool(i["provenance"]["agree_waived"]) for i in items) <= len(items) // 8
    for item in items:
        if not _shows_every_period(item):
            continue  # a chart kind that shows fewer periods: read before it was chosen
        reader = ProxyReader(models, item)
        demands = item["provenance"]["plan"]["agree"]
        for statement, demand in zip(item["statements"], demands, strict=True):
            assert set(statement["proxy"]) == set(proxied(statement["modalities"]))
            assert set(demand) == set(statement["proxy"])
            for modality, record in statement["proxy"].items():
                again = reader.read(modality, statement["program"])
                assert again.to_json() == record
                if record["label"] is not None and not item["provenance"]["agree_waived"]:
                    read += 1
                    assert (record["label"] == statement["label"]) == demand[modality]
    assert read >= 20


def _shows_every_period(item: dict[str, Any]) -> bool:
    years = {row["year"] for row in item["inputs"]["table"]["rows"]}
    return set(item["inputs"]["chart"]["years"]) == years


def test_recorded_lines_alone_reproduce_the_readings(defended: Path) -> None:
    for item in filter(_shows_every_period, read_items(defended)):
        for statement in item["statements"]:
            for modality, record in statement["proxy"].items():
                assert recorded_reading(item, statement, modality) == record["label"]


def test_without_defences_there_is_no_axis(tmp_path: Path) -> None:
    out = tmp_path / "leaky"
    assert main(["build", "financial", "-n", "6", "--seed", "11", "--no-images",
                 "--no-defences", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["defences"] is False and "agree" not in manifest["shares"]
    for item in read_items(out):
        assert "agree" not in item["provenance"]["plan"]
        assert all(s["proxy"] is None for s in item["statements"])
    assert main(["verify", str(out)]) == 0


@pytest.mark.slow
def test_the_audit_flags_a_leaky_build_and_the_defences_lower_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Side by side, same seed and size: without the defences the no-chart proxy reads the
    chart-reading statements well above chance and the audit fails naming its checks; with
    them it is markedly lower. The card records the same figures ``gen audit`` prints."""
    figures, cards = {}, {}
    for name, extra in (("leaky", ["--no-defences"]), ("defended", [])):
        out = tmp_path / name
        assert main(["build", "financial", "-n", "120", "--seed", "11", "--no-images",
                     "--out", str(out), *extra]) == 0
        card = cards[name] = json.loads((out / "manifest.json").read_text())["audit"]
        row = next(r for r in card["rows"]
                   if r["solver"] == "no_chart" and r["scope"] == "reads chart")
        figures[name] = row["accuracy"]
        assert f"{100 * row['accuracy']:.1f}%" in (out / "README.md").read_text()
    capsys.readouterr()
    report = tmp_path / "leaky.json"
    code = main(["audit", str(tmp_path / "leaky"), "--json", str(report)])
    err = capsys.readouterr().err
    assert code == 1 and "FAILED: no_chart accuracy on 'reads chart' statements" in err
    audited = {(r["solver"], r["scope"]): round(r["estimate"]["accuracy"], 4)
               for r in json.loads(report.read_text())["rows"]}
    # every figure of the card (the build's audit reads only the fields solvers use)
    assert len(cards["leaky"]["rows"]) >= 9
    assert all(audited[(r["solver"], r["scope"])] == r["accuracy"]
               for r in cards["leaky"]["rows"])
    assert audited[("no_chart", "reads chart")] == figures["leaky"]
    assert figures["leaky"] > 0.6
    assert figures["defended"] < figures["leaky"] - 0.08


def test_each_item_meets_the_demands_its_phase_holds(defended: Path, world: World) -> None:
    """An item meets every demand the phase it was built in holds, re-checked with that
    phase's own reader: through each predictor the phase names (not only the recorded best
    one), and, in a phase that lets some modalities go, the demands it kept."""
    from hopvista.audit.defences import PHASES, demand_phase

    assert max(phase.predictors for phase in PHASES) >= 2
    assert any(phase.held for phase in PHASES) and any(p.one_wrong for p in PHASES)
    models = ProxyModels.of(world)
    checked = Counter[str]()
    for item in filter(_shows_every_period, read_items(defended)):
        phase = demand_phase(item["provenance"]["attempts"])
        if phase is None:
            assert item["provenance"]["agree_waived"]
            continue
        assert bool(item["provenance"]["agree_waived"]) == bool(phase.held)
        reader = ProxyReader(models, item, relaxed=phase.relaxed, predictors=phase.predictors)
        if phase.one_wrong:
            reading = [s for s in item["statements"]
                       if any(m in s["proxy"] for m in phase.held or ())]
            assert len(reading) < 2 or any(
                reader.check(m, s["program"], s["label"], False) is not None
                for s in reading for m in phase.held or () if m in s["proxy"]), item["id"]
            checked["one wrong"] += 1
            continue
        for statement, demand in zip(item["statements"], item["provenance"]["plan"]["agree"],
                                     strict=True):
            for modality, want in demand.items():
                if phase.held is None or modality in phase.held:
                    checked[f"{modality}, {min(phase.predictors, 2)}+ predictors"] += 1
                    assert reader.check(modality, statement["program"], statement["label"],
                                        want) is not None, item["id"]
    assert checked["chart, 2+ predictors"] >= 10 and checked["table, 2+ predictors"] >= 10


def test_instances_under_demands_show_columns_whose_trends_say_little(
        pack: DomainPack, world: World) -> None:
    """Under the defences' divergence, the table's columns move with the chart column about
    half the time (turned by the sign of the world's line), further from always or never
    than a uniform draw's."""
    import numpy as np

    from hopvista.audit.defences import ProxyDefences
    from hopvista.generation.instance import Divergence, sample_instance
    from hopvista.rng import derive

    lines = ProxyModels.of(world).chart.lines
    defended = next(e for e in _plan(pack) if e.agree is not None)

    def distance(divergence: Divergence | None) -> float:
        rng, found = derive(3, "test", "divergent"), []
        while len(found) < 60:
            instance = sample_instance(world, pack, rng, divergence=divergence)
            if instance is None:
                continue
            chart = np.sign(np.diff([[float(v) for v in instance.chart[e.id]]
                                     for e in instance.entities], axis=1))
            for column in instance.table_columns:
                turn = -1.0 if lines[(instance.chart_column.key, column.key)].b < 0 else 1.0
                moves = np.sign(np.diff([[float(v) for v in instance.table[e.id][column.key]]
                                         for e in instance.entities], axis=1))
                found.append(abs(float(np.mean(turn * moves == chart)) - 0.5))
        return float(np.mean(found))

    assert distance(ProxyDefences.of(world).divergence(defended)) < distance(None) - 0.03


def test_hiding_a_modality_leaves_the_item_as_it_was(defended: Path) -> None:
    from hopvista.program.withheld import without_chart, without_table

    item = read_items(defended)[0]
    before = json.dumps(item, sort_keys=True)
    chart, table = without_chart(item), without_table(item)
    assert json.dumps(item, sort_keys=True) == before
    assert all(set(v) == {"0"} for s in chart["inputs"]["chart"]["series"] for v in [s["values"]])
    assert all(row["values"] == {} for row in table["inputs"]["table"]["rows"])
    assert "kind" not in chart["inputs"]["chart"]
