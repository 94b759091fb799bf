"""gen eval --protocol stages: FCMR's four steps graded against the programs, through a
scripted OpenAI-compatible server, the oracle, the summary and the report."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.eval.baselines import chart_margins
from hopvista.eval.stages import grade, oracle_reply
from hopvista.model import Item
from hopvista.model.dataset import load
from tests.conftest import build_dataset, read_items, reseal
from tests.scripted_server import Script, serve

KEY = "sk-test-hopvista-stages"
CUE = "Check each statement in four steps"

Reply = dict[str, Any]


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stages") / "four"
    build_dataset(out, "-n", "4", "--seed", "4", "--no-images", "--no-defences")
    return out


def _items(dataset: Path) -> list[Item]:
    return list(load(dataset))


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()
            if line]


def _value_index(entry: Reply, modality: str | None = None) -> int:
    """The first named value of a table or chart cell (of ``modality`` when given)."""
    return next(k for k, v in enumerate(entry["values"])
                if v["modality"] in ("table", "chart") and modality in (None, v["modality"]))


def misread(reply: Reply) -> str:
    """Statement 1 reads its first table or chart value wrong."""
    k = _value_index(reply["statements"][0])
    value = reply["statements"][0]["values"][k]
    value["value"] = str(float(value["value"].replace(",", "")) + 1000.5)
    return value["modality"]


def concluded_wrong(reply: Reply) -> None:
    """Statement 1 reads everything right and concludes the opposite."""
    reply["statements"][0]["conclusion"] = not reply["statements"][0]["conclusion"]


def wrong_modality(reply: Reply) -> str:
    """Statement 1 says its first table or chart value is in the other modality."""
    value = reply["statements"][0]["values"][_value_index(reply["statements"][0])]
    right = value["modality"]
    value["modality"] = "chart" if right == "table" else "table"
    return right


def skipped(reply: Reply) -> str:
    """Statement 1 leaves out its first table or chart value."""
    values = reply["statements"][0]["values"]
    return values.pop(_value_index(reply["statements"][0]))["modality"]


def _scripted(items: list[Item], margins: tuple[float, float],
              change: Callable[[Reply], Any], changed: dict[str, Any]) -> Callable[[str], str]:
    """A server's reply function: the oracle's stage reply to the item asked, changed (what
    ``change`` returns goes to ``changed`` under the item's id)."""
    def reply(prompt: str) -> str:
        item = next(i for i in items if i.statements[0].text in prompt)
        answer = copy.deepcopy(oracle_reply(item, margins))
        changed[item.id] = change(answer)
        return "Here are the steps.\n```json\n" + json.dumps(answer) + "\n```"
    return reply


def _run_scripted(dataset: Path, run: Path, change: Callable[[Reply], Any],
                  monkeypatch: pytest.MonkeyPatch, changed: dict[str, Any] | None = None
                  ) -> list[dict[str, Any]]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    items = _items(dataset)
    margins = chart_margins(load(dataset))
    script = Script({CUE: [("call", _scripted(items, margins, change,
                                              {} if changed is None else changed))]})
    with serve(script) as url:
        assert main(["eval", str(dataset), "--model", "openai:scripted", "--base-url", url,
                     "--protocol", "stages", "--setting", "chart-as-table", "--out", str(run),
                     "--quiet"]) == 0
    assert script.unmatched == 0
    return _results(run)


@pytest.mark.parametrize(("change", "stage"), [
    (misread, "retrieval"), (wrong_modality, "identification"), (skipped, "planning")])
def test_a_reply_is_put_in_the_stage_it_first_fails(
        four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        change: Callable[[Reply], str], stage: str) -> None:
    modalities: dict[str, str] = {}
    results = _run_scripted(four, tmp_path / "run", change, monkeypatch, modalities)
    for result in results:
        first, *others = result["stages"]
        assert first["first_failure"] == stage, result["id"]
        assert first["modalities"][modalities[result["id"]]] == stage
        assert all(s["first_failure"] is None for s in others)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["stages"]["first_failure"][stage] == len(results)
    assert summary["stages"]["first_failure"]["passed"] == 2 * len(results)


def test_right_values_and_a_wrong_conclusion_fail_at_reasoning(
        four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = _run_scripted(four, tmp_path / "run", concluded_wrong, monkeypatch)
    for result in results:
        first = result["stages"][0]
        assert first["first_failure"] == "reasoning"
        assert set(first["modalities"].values()) == {"reasoning"}
        assert result["correct"] is False and result["parse_rule"] == "stages-json"


def test_the_oracle_passes_every_stage_and_the_report_shows_the_breakdown(
        four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["eval", str(four), "--model", "oracle", "--protocol", "stages",
                 "--out", str(tmp_path / "oracle"), "--quiet"]) == 0
    results = _results(tmp_path / "oracle")
    assert all(r["correct"] for r in results)
    assert all(s["first_failure"] is None and set(s["modalities"].values()) == {None}
               for r in results for s in r["stages"])
    assert json.loads((tmp_path / "oracle" / "run.json").read_text())["protocol"] == "stages"
    _run_scripted(four, tmp_path / "misread", misread, monkeypatch)
    run = json.loads((tmp_path / "misread" / "run.json").read_text())
    assert CUE in run["prompts"]["three_statement"]  # the template the run asked with
    report = (tmp_path / "misread" / "report.html").read_text()
    assert "<h2>Stages (--protocol stages)</h2>" in report
    assert "<th>retrieval</th>" in report and "data-facet='stages-1'" in report
    assert main(["report", str(tmp_path / "oracle"), str(tmp_path / "misread"),
                 "--out", str(tmp_path / "both.html")]) == 0
    both = (tmp_path / "both.html").read_text()
    assert "First failing stage, every modality" in both
    assert "Stages: oracle · table-json · stages" in both
    assert "Stages: openai:scripted · chart-as-table · stages" in both


def test_a_run_without_the_protocol_has_no_stages(four: Path, tmp_path: Path) -> None:
    assert main(["eval", str(four), "--model", "oracle", "--out", str(tmp_path / "plain"),
                 "--quiet"]) == 0
    assert all("stages" not in r for r in _results(tmp_path / "plain"))
    assert "stages" not in json.loads((tmp_path / "plain" / "summary.json").read_text())
    assert "protocol" not in json.loads((tmp_path / "plain" / "run.json").read_text())


def test_a_model_that_cannot_answer_the_protocol_is_one_line(
        four: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(four), "--model", "random", "--protocol", "stages",
                 "--out", str(tmp_path / "r"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("gen: error: --protocol stages: the model 'random' answers items "
                   "directly and cannot answer the stage protocol (the oracle and "
                   "openai:NAME can)")
    assert not (tmp_path / "r").exists()


def test_a_harness_export_says_it_does_not_carry_the_protocol(
        four: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(four), "--format", "inspect", "--protocol", "stages",
                 "--out", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err.strip() == (
        "gen: error: --protocol stages: harness exports carry the answer prompt only; the "
        "stage protocol is graded against each statement's program by gen eval --protocol "
        "stages, not by a harness")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(("flags", "message"), [
    (("--strategy", "one-shot"), "--protocol stages and --strategy one-shot: the stage "
     "protocol asks its own prompt in one turn; drop --strategy"),
    (("--strategy", "self-refine"), "--protocol stages and --strategy self-refine: the stage "
     "protocol asks its own prompt in one turn; drop --strategy"),
    (("--table-format", "pipe"), "--protocol stages and --table-format pipe: the stage "
     "protocol's prompt shows tables as JSON; drop --table-format"),
])
def test_the_protocol_with_another_prompt_strategy_is_one_line(
        four: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, flags: tuple[str, str], message: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stages-strategy")
    run = tmp_path / "r"
    assert main(["eval", str(four), "--model", "openai:m", "--base-url", "http://127.0.0.1:9",
                 "--protocol", "stages", *flags, "--out", str(run), "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == f"gen: error: {message}"
    assert not run.exists()


def _flipping_misread(items: list[Item], margins: tuple[float, float]
                      ) -> tuple[Item, Reply, int, bool]:
    """A reply to one of ``items`` whose statement 1 misreads one value so that its program
    decides the other way: the reply, the index of the misread value and that decision."""
    for item in items:
        reply = oracle_reply(item, margins)
        entry = reply["statements"][0]
        if entry["conclusion"] is None:
            continue
        for k, value in enumerate(entry["values"]):
            if value["modality"] == "text":
                continue
            for wrong in ("-99999999", "99999999"):
                changed = copy.deepcopy(reply)
                changed["statements"][0]["values"][k]["value"] = wrong
                flipped = not entry["conclusion"]
                changed["statements"][0]["conclusion"] = flipped
                if grade(item, json.dumps(changed), margins).stages[0]["modalities"] == {
                        m: ("retrieval" if m == value["modality"] else None)
                        for m in grade(item, json.dumps(reply), margins).stages[0][
                            "modalities"]}:
                    return item, changed, k, flipped
    raise AssertionError("no misread value flips a program of the dataset")


def test_reasoning_is_judged_on_the_values_the_model_read(four: Path) -> None:
    margins = chart_margins(load(four))
    item, reply, k, flipped = _flipping_misread(_items(four), margins)
    misread_in = reply["statements"][0]["values"][k]["modality"]
    # concluding as its own misreading implies: a retrieval error, and no reasoning error
    assert grade(item, json.dumps(reply), margins).stages[0]["first_failure"] == "retrieval"
    # the same misreading with the conclusion the shown values imply: the conclusion does
    # not follow from what the model read, so every other modality fails at reasoning
    reply["statements"][0]["conclusion"] = not flipped
    modalities = grade(item, json.dumps(reply), margins).stages[0]["modalities"]
    assert modalities[misread_in] == "retrieval"
    assert {m: f for m, f in modalities.items() if m != misread_in} == {
        m: "reasoning" for m in modalities if m != misread_in}


def test_statements_without_programs_are_refused_naming_the_item(
        four: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "released"
    shutil.copytree(four, data)
    items = read_items(data)
    items[1]["statements"][0]["program"] = None
    items[1]["statements"][0]["cells"] = []
    reseal(data, items)
    assert main(["eval", str(data), "--model", "oracle", "--protocol", "stages",
                 "--out", str(tmp_path / "r"), "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"gen: error: --protocol stages: item {items[1]['id']}, statement 1 has no program "
        "to grade the stages against")
    assert not (tmp_path / "r").exists()
