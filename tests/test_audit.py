"""``gen audit``: proxy solvers never read the modality they lack, cross-fitting never uses an
item's own withheld values, a leaky wording is flagged, and the CLI's exit codes."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hopvista
from hopvista.audit import Thresholds, run_audit
from hopvista.audit.data import AuditItem, Margins, read_items
from hopvista.audit.solvers import (
    Predictions,
    solve_no_chart,
    solve_no_table,
    solve_no_text,
)
from hopvista.cli.main import main
from hopvista.rng import derive

LOOSE = ["--max-hard-set", "1", "--max-statement", "1", "--max-blind", "1"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("audit") / "fin"
    hopvista.build("financial", out, count=48, images=False)
    return out


@pytest.fixture(scope="module")
def audit_items(dataset: Path) -> tuple[list[AuditItem], Margins]:
    return read_items(dataset, 5, 0)


def _noise(item: dict[str, Any], rng: np.random.Generator) -> str:
    return f"{rng.uniform(-5000, 5000):.1f}"


def _corrupt(items: list[AuditItem], which: set[int], modality: str) -> list[AuditItem]:
    """Copies of ``items`` whose ``modality`` values are random in the items ``which``."""
    rng = derive(0, "test", "corrupt", modality)
    result = []
    for index, item in enumerate(items):
        data = item.data
        if index in which:
            data = copy.deepcopy(data)
            inputs = data["inputs"]
            if modality == "chart":
                for series in inputs["chart"]["series"]:
                    series["values"] = [_noise(data, rng) for _ in series["values"]]
            elif modality == "table":
                for row in inputs["table"]["rows"]:
                    row["values"] = {k: _noise(data, rng) for k in row["values"]}
            else:
                for chunk in inputs["text"]:
                    chunk["text"] = " ".join(rng.permutation(chunk["text"].split()))
        result.append(AuditItem(data, item.fold))
    return result


def _at(predictions: Predictions, which: set[int]) -> list[list[bool]]:
    return [predictions[i] for i in sorted(which)]


@pytest.mark.slow  # builds and audits a 48-item dataset
@pytest.mark.parametrize("modality", ["chart", "table"])
def test_imputing_solver_never_reads_its_items_withheld_values(
        audit_items: tuple[list[AuditItem], Margins], modality: str) -> None:
    items, margins = audit_items
    solve = solve_no_chart if modality == "chart" else solve_no_table
    fold0 = {i for i, item in enumerate(items) if item.fold == 0}
    others = set(range(len(items))) - fold0
    before = solve(items, margins)
    # the fold's own withheld values, randomised: neither read at prediction time nor fitted
    after = solve(_corrupt(items, fold0, modality), margins)
    assert _at(after, fold0) == _at(before, fold0)
    # the other folds' values are what the fold's answers are learned from
    learned = solve(_corrupt(items, others, modality), margins)
    assert _at(learned, fold0) != _at(before, fold0)


@pytest.mark.slow  # builds and audits a 48-item dataset
def test_no_text_solver_never_reads_text(audit_items: tuple[list[AuditItem], Margins]) -> None:
    items, margins = audit_items
    everything = set(range(len(items)))
    assert solve_no_text(_corrupt(items, everything, "text"), margins) == \
        solve_no_text(items, margins)


@pytest.mark.slow  # builds and audits a 48-item dataset
def test_solvers_are_exact_on_statements_that_do_not_read_the_withheld_modality(
        audit_items: tuple[list[AuditItem], Margins]) -> None:
    items, margins = audit_items
    for modality, solve in (("chart", solve_no_chart), ("table", solve_no_table)):
        for predicted, item in zip(solve(items, margins), items, strict=True):
            for p, s in zip(predicted, item.statements, strict=True):
                if modality not in s["modalities"]:
                    assert p.label == s["label"] and not p.prior


def _rewrite(source: Path, target: Path, change: Any) -> Path:
    shutil.copytree(source, target)
    lines = (source / "items.jsonl").read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines]
    for item in items:
        change(item)
    (target / "items.jsonl").write_text(
        "".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) + "\n"
                for i in items), encoding="utf-8")
    return target


@pytest.mark.slow
def test_leaky_wording_is_flagged(dataset: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    def leak(item: dict[str, Any]) -> None:
        for statement in item["statements"]:
            if statement["label"]:
                statement["text"] = statement["text"].rstrip(".") + " indeed."

    leaky = _rewrite(dataset, tmp_path / "leaky", leak)
    report = run_audit(leaky, thresholds=Thresholds(1.0, 1.0, 0.55))
    blind = report.row("blind", "all statements")
    assert blind is not None and blind.accuracy > 0.65
    assert [c.name for c in report.checks if not c.passed] == \
        ["blind wording classifier accuracy"]
    assert main(["audit", str(leaky), "--max-hard-set", "1", "--max-statement", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("FAILED: blind wording classifier")


@pytest.mark.slow  # builds and audits a 48-item dataset
def test_cli_passes_with_loose_limits_and_writes_json(
        dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "audit.json"
    assert main(["audit", str(dataset), *LOOSE, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "no_chart" in printed and "item sets: hard" in printed and "95% CI" in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    scopes = {(r["solver"], r["scope"]) for r in data["rows"]}
    assert {("no_chart", "reads chart"), ("no_table", "reads table"),
            ("no_text", "reads text"), ("blind", "all statements")} <= scopes
    for row in data["rows"]:
        e = row["estimate"]
        assert e["low"] <= e["accuracy"] <= e["high"] and e["n"] > 0


@pytest.mark.slow  # builds and audits a 48-item dataset
def test_cli_names_each_failing_check(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(dataset), "--max-hard-set", "0", "--max-statement", "0",
                 "--max-blind", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("FAILED: ") for line in err)
    assert any("no_chart accuracy on 'reads chart'" in line for line in err)
    assert not any("blind" in line for line in err)


@pytest.mark.slow  # builds and audits a 48-item dataset
def test_cli_user_errors_exit_2(tmp_path: Path, dataset: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(tmp_path)]) == 2
    assert "not a hopvista dataset" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["audit", str(dataset), "--max-blind", "2"])
    assert exc.value.code == 2
    assert main(["audit", str(dataset), "--folds", "1000"]) == 2
    assert "fewer than the 1000 folds" in capsys.readouterr().err


@pytest.mark.slow
def test_audit_is_deterministic(dataset: Path) -> None:
    assert run_audit(dataset, seed=3).to_json() == run_audit(dataset, seed=3).to_json()


def test_bootstrap_interval_brackets_the_accuracy_and_is_seeded() -> None:
    from hopvista.audit.stats import Bootstrap

    correct = np.array([1, 0, 1, 1, 0, 1, 1, 0] * 10, dtype=float)
    total = np.ones_like(correct)
    first = Bootstrap(len(correct), 4).estimate(correct, total, 0.5)
    assert first == Bootstrap(len(correct), 4).estimate(correct, total, 0.5)
    assert first.accuracy == 0.625 and first.n == 80 and first.chance == 0.5
    assert 0.5 < first.low < first.accuracy < first.high < 0.75
    empty = Bootstrap(3, 0).estimate(np.zeros(3), np.zeros(3), 0.5)
    assert empty.n == 0


def test_a_failed_check_says_whether_its_interval_reaches_the_limit() -> None:
    from hopvista.audit.report import Check

    noisy = Check("no_chart Hard item-set accuracy", 0.209, 0.119, 0.308, 0.20, False)
    clear = Check("blind wording classifier accuracy", 0.70, 0.66, 0.74, 0.55, False)
    passed = Check("no_text Hard item-set accuracy", 0.15, 0.08, 0.22, 0.20, True)
    assert noisy.message() == ("FAILED: no_chart Hard item-set accuracy 20.9% [11.9%, 30.8%] "
                               "(limit 20.0%; the interval reaches the limit: audit more items "
                               "to tell a shortcut from noise)")
    assert clear.message().endswith("(limit 55.0%)") and clear.message().startswith("FAILED")
    assert passed.message().startswith("ok: ") and passed.message().endswith("(limit 20.0%)")
    from hopvista.output.card import BUILD_AUDIT, audit_section
    audit = {"folds": 5, "seed": 0, "items": 200, "rows": [],
             "checks": [{"name": c.name, "accuracy": c.accuracy, "low": c.low, "high": c.high,
                         "limit": c.limit, "passed": c.passed} for c in (noisy, clear)]}
    card = audit_section(audit, 200, BUILD_AUDIT).splitlines()
    assert card[-2].startswith("- FAILED: no_chart") and "audit more items" in card[-2]
    assert card[-1] == "- FAILED: blind wording classifier accuracy 70.0% (limit 55.0%)"
