"""``gen audit`` on an ``mmtables`` build: solvers that never see the cell pictures stay near
the answer prior, and the checks fail on a build whose pictures or wording give answers away."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.program.cells import ProgramError, execute
from tests.conftest import read_items, reseal

NO_IMAGE_CHECK = "no_image accuracy above prior, all items"
BLIND_CHECK = "blind accuracy above prior, closed answers"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``gen build mmtables -n 480 --seed 1 --no-images`` (the first 480 items of a build
    docs/audit.md measures), built once for the module; tests only read it (or copy it)."""
    out = tmp_path_factory.mktemp("mmaudit") / "mm"
    assert main(["build", "mmtables", "-n", "480", "--seed", "1", "--no-images", "--out",
                 str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def audited(built: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``gen audit BUILT --json FILE``: its exit code, what it printed and the JSON report."""
    report = tmp_path_factory.mktemp("mmaudit-json") / "audit.json"
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        code = main(["audit", str(built), "--json", str(report)])
    return {"code": code, "out": printed.getvalue(), "report": json.loads(report.read_text())}


def forged(built: Path, tmp_path: Path, change: Any) -> Path:
    """A copy of ``built`` whose items ``change`` rewrites, resealed."""
    out = tmp_path / "forged"
    shutil.copytree(built, out)
    reseal(out, change(read_items(out)))
    return out


def row(report: dict[str, Any], solver: str, scope: str) -> dict[str, Any]:
    return next(r for r in report["rows"] if r["solver"] == solver and r["scope"] == scope)


def check(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in report["checks"] if c["name"] == name)


def test_audit_prints_each_solver_with_its_interval_and_passes(
        audited: dict[str, Any]) -> None:
    assert audited["code"] == 0
    out = audited["out"]
    assert "480 mmtable items" in out
    for solver, scope in (("no_image", "all items"), ("prior", "all items"),
                          ("blind", "closed answers"), ("no_image", "question_type: visual"),
                          ("prior", "archetype: maps-only")):
        line = next(line for line in out.splitlines()
                    if line.startswith(solver) and f" {scope} " in line)
        assert "[" in line and "%," in line, line
    assert f"ok: {NO_IMAGE_CHECK}" in out
    assert f"ok: {BLIND_CHECK}" in out


def test_the_no_image_solver_stays_within_the_limit_of_its_prior(
        audited: dict[str, Any]) -> None:
    report = audited["report"]
    assert audited["code"] == 0
    no_image = row(report, "no_image", "all items")
    prior = row(report, "prior", "all items")
    assert no_image["estimate"]["accuracy"] - prior["estimate"]["accuracy"] <= 0.05
    assert check(report, NO_IMAGE_CHECK)["passed"]


def test_the_blind_classifier_is_near_the_prior_on_closed_answers(
        audited: dict[str, Any]) -> None:
    report = audited["report"]
    blind = row(report, "blind", "closed answers")
    prior = row(report, "prior", "closed answers")
    assert blind["estimate"]["accuracy"] - prior["estimate"]["accuracy"] <= 0.05
    assert check(report, BLIND_CHECK)["passed"]


def test_json_report_has_its_format_kind_rows_and_checks(audited: dict[str, Any]) -> None:
    report = audited["report"]
    assert list(report)[0] == "format" and report["format"] == "hopvista-audit"
    assert report["kind"] == "mmtables"
    assert report["items"] == 480 and report["folds"] == 5 and report["seed"] == 0
    assert {r["solver"] for r in report["rows"]} == {"no_image", "prior", "blind"}
    for r in report["rows"]:
        assert set(r) == {"solver", "scope", "estimate", "by_prior"}
        e = r["estimate"]
        assert e["low"] <= e["accuracy"] <= e["high"], r
    assert [c["name"] for c in report["checks"]] == [NO_IMAGE_CHECK, BLIND_CHECK]
    assert {"accuracy", "low", "high", "limit", "passed"} <= set(report["checks"][0])


def _pictures_carry_nothing(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every picture of a kind made the same (the first of its kind), answers recomputed:
    the table's text alone then decides every question."""
    first: dict[str, dict[str, Any]] = {}
    kept = []
    for item in items:
        for visual in item["inputs"]["visuals"]:
            model = first.setdefault(visual["kind"], visual)
            visual["colors"], visual["attributes"] = model["colors"], model["attributes"]
        table = item["inputs"]["table"]
        grid = [table["header"], *table["rows"]]
        visuals = {(v["row"], v["col"]): v for v in item["inputs"]["visuals"]}
        try:
            answer = execute(grid, visuals, item["program"])
        except ProgramError:
            continue
        if type(answer) is type(item["answer"]):
            kept.append(item | {"answer": answer})
    return kept


def test_the_check_fails_when_the_pictures_carry_nothing(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leaky = forged(built, tmp_path, _pictures_carry_nothing)
    assert main(["audit", str(leaky)]) == 1
    err = capsys.readouterr().err
    assert f"FAILED: {NO_IMAGE_CHECK}" in err
    assert BLIND_CHECK not in err


def _wording_tells_yes_or_no(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each yes/no question ends with a word that gives its answer away."""
    for item in items:
        if isinstance(item["answer"], bool):
            item["question"] += " Surely." if item["answer"] else " Doubtfully."
    return items


def test_the_check_fails_when_the_wording_gives_the_answer(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leaky = forged(built, tmp_path, _wording_tells_yes_or_no)
    assert main(["audit", str(leaky)]) == 1
    err = capsys.readouterr().err
    assert f"FAILED: {BLIND_CHECK}" in err


def test_a_looser_limit_lets_a_leak_pass(built: Path, tmp_path: Path) -> None:
    leaky = forged(built, tmp_path, _wording_tells_yes_or_no)
    assert main(["audit", str(leaky), "--max-prior-gap", "1"]) == 0


def test_too_few_items_for_the_folds_is_one_error_line(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    few = forged(built, tmp_path, lambda items: items[:3])
    assert main(["audit", str(few)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gen: error: {few}: 3 mmtable item(s), fewer than the 5 folds of the audit"]


def test_a_prior_gap_out_of_range_is_refused(
        built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["audit", str(built), "--max-prior-gap", "2"])
    assert exc.value.code == 2
    assert "--max-prior-gap" in capsys.readouterr().err


def test_the_build_records_the_audit_gen_audit_reproduces(
        built: Path, audited: dict[str, Any]) -> None:
    recorded = json.loads((built / "manifest.json").read_text())["audit"]
    assert recorded["items"] == 480 and recorded["sampled"] is False
    report = audited["report"]
    for r in recorded["rows"]:
        assert round(row(report, r["solver"], r["scope"])["estimate"]["accuracy"], 4) \
            == r["accuracy"]
    assert [c["name"] for c in recorded["checks"]] == [NO_IMAGE_CHECK, BLIND_CHECK]
    card = (built / "README.md").read_text()
    assert "## Does every picture matter?" in card
    assert "| no_image | all items |" in card and "| blind | closed answers |" in card
    assert f"- ok: {NO_IMAGE_CHECK}" in card


def test_a_small_build_is_not_audited_and_its_card_says_how_to(tmp_path: Path) -> None:
    out = tmp_path / "small"
    assert main(["build", "mmtables", "-n", "16", "--no-images", "--out", str(out)]) == 0
    assert json.loads((out / "manifest.json").read_text())["audit"] is None
    assert "Run `gen audit <this folder>`" in (out / "README.md").read_text()


def _each_item_twice(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each item followed by a copy of it as a second variant of its base item."""
    doubled = []
    for item in items:
        copy = json.loads(json.dumps(item))
        copy["id"] = f"{item['base_id']}.copy"
        copy["variant"]["name"] = "copy"
        doubled += [item, copy]
    return doubled


def test_variants_of_one_item_share_a_fold_so_none_is_learned_from_its_twin(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    twins = forged(built, tmp_path, _each_item_twice)
    manifest = json.loads((twins / "manifest.json").read_text())
    (twins / "manifest.json").write_text(json.dumps(manifest | {"kind": "augmented"}))
    assert main(["audit", str(twins)]) == 0
    out = capsys.readouterr().out
    assert "960 mmtable items" in out
    assert f"ok: {BLIND_CHECK}" in out
