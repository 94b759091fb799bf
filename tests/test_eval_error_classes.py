"""gen eval --error-classes and --judge: FCMR's and MMTabReal's error classes of wrong answers,
by rule (unknown answers, the stage protocol, markup attribution, the answer sets) and by a
scripted judge; classes given after the fact to a run whose answers are cached."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.eval.error_classes import error_summary, rule_classes
from hopvista.model import Item
from hopvista.model.format import DATASET_FORMAT, FORMAT_VERSION
from tests.scripted_server import Script, serve

KEY = "sk-test-hopvista-err0rc1a55"
SELECTION = "condition satisfaction & selection"
STATEMENTS = [("FC+CT+TR", ["text", "table", "chart"]), ("FC+AR+RK", ["text", "table", "chart"]),
              ("TR", ["chart"])]


def _three(k: int) -> dict[str, Any]:
    """A three-statement item asking "Question k?", statements 1 and 3 true."""
    return {
        "id": f"fin-{k:06d}.base", "base_id": f"fin-{k:06d}", "domain": "financial",
        "kind": "three_statement", "difficulty": "hard", "answer": [1, 3],
        "answer_type": "indices", "question": f"Question {k}? Which statements are true?",
        "statements": [{"text": f"Statement {n} of item {k}.", "label": n != 2, "type": t,
                        "modalities": m} for n, (t, m) in enumerate(STATEMENTS, start=1)],
        "provenance": {"generator": "test", "source": "test"}}


def _qa(k: int, answer: Any, answer_type: str) -> dict[str, Any]:
    return {
        "id": f"wtq-{k:06d}.base", "base_id": f"wtq-{k:06d}", "domain": "wtq",
        "kind": "table_qa", "inputs": {"table": {"header": ["City", "Q"],
                                                 "rows": [["New York", "1"]]}},
        "question": f"Question {k}?", "answer": answer, "answer_type": answer_type,
        "provenance": {"generator": "test", "source": "wtq"}}


JUDGED = {  # the judge's reply per question it is asked about
    2: '{"fcmr": "Trend assessment", "mmtabreal": "reasoning"}',
    9: "I think this is a reasoning error.",
    10: '{"fcmr": "arithmetic slip", "mmtabreal": "mathematics"}',
    12: '```json\n{"fcmr": ["data/value interpretation"], "mmtabreal": "mathematics"}\n```',
}
CASES: list[tuple[dict[str, Any], str, dict[str, Any] | None]] = [
    # item, the model's reply, the error classes expected after the judged run
    (_three(0), "Answer: 1", {"fcmr": [SELECTION], "mmtabreal": ["partial answer"],
                              "by": "rule"}),
    (_three(1), "Answer: 1, 2, 3", {"fcmr": [SELECTION], "mmtabreal": ["extra information"],
                                    "by": "rule"}),
    (_three(2), "Answer: 2", {"fcmr": ["trend assessment"], "mmtabreal": ["reasoning"],
                              "by": "judge"}),
    (_qa(3, ["Apple", "Google"], "list"), 'Answer: ["apple"]',
     {"fcmr": [SELECTION], "mmtabreal": ["partial answer"], "by": "rule"}),
    (_qa(4, ["Apple"], "list"), "Answer: Apple, Google",
     {"fcmr": [SELECTION], "mmtabreal": ["extra information"], "by": "rule"}),
    (_qa(5, "New York City", "text"), "Answer: York City",
     {"fcmr": [SELECTION], "mmtabreal": ["partial answer"], "by": "rule"}),
    (_qa(6, "Paris", "text"), "Answer: Paris, France",
     {"fcmr": [SELECTION], "mmtabreal": ["extra information"], "by": "rule"}),
    (_qa(7, "12.5", "number"), "Answer: unknown",
     {"fcmr": ["unknown"], "mmtabreal": ["unknown"], "by": "rule"}),
    (_qa(8, "12.5", "number"), "I cannot tell from the table.",
     {"fcmr": ["unknown"], "mmtabreal": ["unknown"], "by": "rule"}),
    (_qa(9, "12.5", "number"), "Answer: 13",
     {"fcmr": [], "mmtabreal": [], "by": "judge", "unreadable": "not JSON"}),
    (_qa(10, "7", "number"), "Answer: 8",
     {"fcmr": [], "mmtabreal": [], "by": "judge", "unreadable": "unknown fcmr class"}),
    (_qa(11, "1", "number"), "Answer: 1", None),
    (_qa(12, "4", "number"), "Answer: 5",
     {"fcmr": [], "mmtabreal": [], "by": "judge", "unreadable": "request failed"}),
]


def _dataset(folder: Path) -> Path:
    folder.mkdir(parents=True)
    lines = [Item.model_validate(item).model_dump_json() for item, _, _ in CASES]
    (folder / "items.jsonl").write_text("".join(line + "\n" for line in lines))
    (folder / "manifest.json").write_text(json.dumps({
        "format": DATASET_FORMAT, "format_version": FORMAT_VERSION, "config": {},
        "seed": 0, "counts": {"items": len(CASES)}}))
    return folder


def _results(run: Path) -> dict[str, dict[str, Any]]:
    lines = (run / "results.jsonl").read_text().split("\n")
    return {r["id"]: r for r in map(json.loads, filter(None, lines))}


def _summary(run: Path) -> dict[str, Any]:
    return json.loads((run / "summary.json").read_text())


class _Judge:
    """The scripted judge: a reply per question, question 12 failing on its first request."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def __call__(self, prompt: str) -> Any:
        number = int(re.search(r"Question (\d+)\?", prompt).group(1))  # type: ignore[union-attr]
        self.asked.append(number)
        if number == 12 and self.asked.count(12) == 1:
            return ("status", 500)
        return JUDGED[number]


def test_wrong_answers_get_classes_by_rule_then_by_a_judge_after_the_fact(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _dataset(tmp_path / "data")
    judge = _Judge()
    script = Script({f"Question {k}?": [reply] for k, (_, reply, _) in enumerate(CASES)})
    judging = Script({"Classify its error": [("call", judge)]})
    prices = tmp_path / "prices.yaml"
    prices.write_text("judge-model: {input: 1.0, output: 2.0}\n")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    run = tmp_path / "run"
    with serve(script) as url, serve(judging) as judge_url:
        ask = ["eval", str(data), "--model", "openai:scripted", "--base-url", url,
               "--setting", "no-chart", "--out", str(run), "--quiet",
               "--option", "max_retries=0", "--prices", str(prices)]
        judged = [*ask, "--judge", "openai:judge-model", "--judge-url", judge_url]
        assert main(ask) == 0
        assert not any("error_classes" in r for r in _results(run).values())
        assert "error_classes" not in _summary(run)
        answers = dict(script.requests)

        assert main([*ask, "--error-classes"]) == 0  # the rules alone, nothing asked again
        by_rule = _results(run)
        assert by_rule["fin-000002.base"]["error_classes"] == {"fcmr": [], "mmtabreal": [],
                                                              "by": None}
        assert by_rule["wtq-000003.base"]["error_classes"]["mmtabreal"] == ["partial answer"]
        assert _summary(run)["error_classes"]["unclassified"] == 4

        assert main(judged) == 0
        results = _results(run)
        for item, _, expected in CASES:
            found = results[item["id"]].get("error_classes")
            if expected is None:
                assert found is None
                continue
            found = dict(found)
            usage = found.pop("judge", None)
            assert (usage is not None) == (expected["by"] == "judge"), item["id"]
            if "unreadable" in found:
                found["unreadable"] = found["unreadable"].split(":")[0]
            assert found == expected, item["id"]
        assert sorted(judge.asked) == [2, 9, 10, 12]
        assert script.requests == answers and script.unmatched == 0  # the model: nothing

        errors = _summary(run)["error_classes"]
        assert (errors["wrong"], errors["by_rule"], errors["by_judge"],
                errors["unclassified"], errors["unknown"]) == (12, 8, 1, 3, 2)
        assert errors["fcmr"]["trend assessment"] == 1 and errors["fcmr"][SELECTION] == 6
        assert errors["mmtabreal"]["partial answer"] == 3
        assert errors["judge"]["asked"] == 4
        assert errors["judge"]["unreadable"] == 3
        assert errors["judge"]["unreadable_kinds"] == {"not JSON": 1, "request failed": 1,
                                                       "unknown fcmr class": 1}
        assert errors["judge"]["cost"] == pytest.approx(3 * (100 * 1 + 20 * 2) / 1e6)
        assert errors["by_modality"]["hard"]["chart"] == {
            "statements": 9, "wrong": 5, "rate": pytest.approx(5 / 9), "attributed": 0}
        report = (run / "report.html").read_text()
        assert "Error classes" in report and "FCMR Table 4" in report
        assert main(["report", str(run), "--out", str(tmp_path / "board.html")]) == 0
        assert "Judge <code>openai:judge-model</code>" in (tmp_path / "board.html").read_text()
        assert "openai:judge-model" in json.loads((run / "run.json").read_text())[
            "error_classes"]["judge"]

        # A rerun asks the judge only what failed: its cached replies, unreadable or not, stay.
        assert main(judged) == 0
    assert sorted(judge.asked) == [2, 9, 10, 12, 12]
    again = _results(run)["wtq-000012.base"]["error_classes"]
    assert again["fcmr"] == ["data/value interpretation"] and again["by"] == "judge"
    assert _summary(run)["error_classes"]["judge"]["cached"] == 3
    for path in run.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(("flags", "said"), [
    (["--judge", "gpt-4o"], "--judge 'gpt-4o': expected openai:MODEL"),
    (["--judge", "openai:j", "--judge-url", "ftp://example.org"],
     "--judge-url 'ftp://example.org': "),
    (["--judge-url", "http://127.0.0.1:9/v1"],
     "--judge-url: give --judge openai:MODEL, the judge it is the endpoint of"),
])
def test_a_bad_judge_is_refused_in_one_line_and_nothing_is_written(
        flags: list[str], said: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    data = _dataset(tmp_path / "data")
    run = tmp_path / "run"
    assert main(["eval", str(data), "--model", "oracle", "--out", str(run), *flags,
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"gen: error: {said}"), err
    assert not run.exists()


def _wrong_three(**fields: Any) -> tuple[Item, dict[str, Any]]:
    item = Item.model_validate(_three(0))
    result = {"id": item.id, "kind": item.kind, "difficulty": "hard", "error": None,
              "correct": False, "response": "Answer: 2", "parsed": [2],
              "statements": [{"type": t, "label": n != 2, "predicted": n == 2,
                              "modalities": m}
                             for n, (t, m) in enumerate(STATEMENTS, start=1)], **fields}
    return item, result


def _stage(statement: int, **modalities: str | None) -> dict[str, Any]:
    failures = [f for f in modalities.values() if f is not None]
    return {"statement": statement, "first_failure": failures[0] if failures else None,
            "modalities": {"text": None, "table": None, "chart": None, **modalities}}


@pytest.mark.parametrize(("stages", "fcmr", "mmtabreal"), [
    ([_stage(1, chart="retrieval")], ["trend assessment"], ["visual attributes"]),
    ([_stage(2, table="reasoning")], ["data/value interpretation"], ["mathematics"]),
    ([_stage(1, table="reasoning")], [SELECTION], ["reasoning"]),
    ([_stage(2, chart="reasoning")], ["ranking/ordering"], ["reasoning"]),
    ([_stage(1, text="retrieval")], ["information extraction & reasoning"], ["reasoning"]),
    ([_stage(3, chart="planning")], ["problem understanding & condition ignoring"],
     ["reasoning"]),
    ([_stage(1, text="identification"), _stage(2, table="retrieval"), _stage(3)],
     ["problem understanding & condition ignoring", "data/value interpretation"],
     ["structure", "mathematics"]),
])
def test_the_stage_protocol_gives_the_first_failing_stage_its_classes(
        stages: list[dict[str, Any]], fcmr: list[str], mmtabreal: list[str]) -> None:
    item, result = _wrong_three(stages=stages)
    found = rule_classes(item, result)
    assert found is not None
    assert (list(found.fcmr), list(found.mmtabreal)) == (fcmr, mmtabreal)


def test_stages_that_all_pass_leave_the_answer_sets_to_decide() -> None:
    item, result = _wrong_three(stages=[_stage(1), _stage(2), _stage(3)], parsed=[1],
                                response="Answer: 1")
    found = rule_classes(item, result)
    assert found is not None and list(found.mmtabreal) == ["partial answer"]


def test_the_modality_a_stage_failed_in_is_counted_beside_its_error_rate() -> None:
    item, result = _wrong_three(stages=[_stage(2, chart="retrieval"), _stage(1), _stage(3)])
    summary = error_summary([result], {"error_classes": {"judge": None}})
    assert summary is not None
    chart = summary["by_modality"]["hard"]["chart"]
    assert (chart["statements"], chart["wrong"], chart["attributed"]) == (3, 3, 1)
    assert summary["by_modality"]["hard"]["text"]["attributed"] == 0
    assert error_summary([result], {}) is None


@pytest.mark.parametrize(("failure", "fcmr", "mmtabreal"), [
    ("marker hijacked", "company/entity confusion", "visual attributes"),
    ("coordinate error", "data/value interpretation", "structure"),
    ("logical failure", "information extraction & reasoning", "reasoning"),
])
def test_markup_attribution_gives_its_classes(failure: str, fcmr: str, mmtabreal: str) -> None:
    item = Item.model_validate(_qa(0, "12", "number"))
    result = {"id": item.id, "error": None, "correct": False, "response": "Answer: 13",
              "parsed": "13", "markup_failure": failure}
    found = rule_classes(item, result)
    assert found is not None and (found.fcmr, found.mmtabreal) == ((fcmr,), (mmtabreal,))


def test_right_answers_errors_and_undecidable_answers_get_no_rule_class() -> None:
    item = Item.model_validate(_qa(0, "12", "number"))
    base = {"id": item.id, "response": "Answer: 13", "parsed": "13"}
    assert rule_classes(item, {**base, "error": None, "correct": True}) is None
    assert rule_classes(item, {**base, "error": "timeout", "correct": None}) is None
    assert rule_classes(item, {**base, "error": None, "correct": False}) is None
    three = Item.model_validate(_three(0))
    none = {"id": three.id, "error": None, "correct": False, "response": "Answer: none",
            "parsed": []}
    found = rule_classes(three, none)  # "none" is an answer, not a refusal: a partial one
    assert found is not None and found.mmtabreal == ("partial answer",)


def test_gen_report_names_a_forged_error_class_figure(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _dataset(tmp_path / "data")
    run = tmp_path / "run"
    assert main(["eval", str(data), "--model", "random", "--out", str(run),
                 "--error-classes", "--setting", "no-chart", "--quiet"]) == 0
    summary = _summary(run)
    assert summary["error_classes"]["wrong"] == sum(not r["correct"]
                                                    for r in _results(run).values())
    summary["error_classes"]["by_modality"]["hard"]["chart"]["wrong"] = "3"
    (run / "summary.json").write_text(json.dumps(summary))
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "board.html")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"gen: error: {run / 'summary.json'}: field "
        "'error_classes.by_modality.hard.chart.wrong': input should be a valid integer")
    assert not (tmp_path / "board.html").exists()
