"""gen eval --strategy and --table-format: what a scripted OpenAI-compatible server is asked
under each prompt strategy, one-shot examples that are never the item, self-refine's second
turn (cached, counted, costed, resumed after a kill), and the harness exports."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.eval.backends import MODELS, Exchange, Prompt, PromptImage
from hopvista.eval.openai_model import OpenAIChat
from tests.conftest import build_dataset, read_items
from tests.scripted_server import Script, serve

KEY = "sk-strategy-test-key"
REVIEW = "Review your answer above."


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four Hard items without images."""
    out = tmp_path_factory.mktemp("strategies") / "tiny"
    build_dataset(out, "-n", "4", "--hops", "3", "--seed", "5", "--no-images")
    return out


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def _reference(item: dict[str, Any]) -> str:
    return ", ".join(map(str, item["answer"])) or "none"


def _replier(items: list[dict[str, Any]], revised: Callable[[dict[str, Any]], str] | None = None
             ) -> Callable[[str], str]:
    """Answers the item whose question ends the prompt (a one-shot prompt shows another
    item's first): a wrong answer first, the right one when asked to revise."""
    def reply(prompt: str) -> str:
        item = max(items, key=lambda i: prompt.rfind(i["question"]))
        if REVIEW in prompt:
            return f"I misread a value.\nAnswer: {(revised or _reference)(item)}"
        return "Answer: none" if item["answer"] else "Answer: 1, 2, 3"
    return reply


def _eval(data: Path, run: Path, url: str, *extra: str) -> int:
    return main(["eval", str(data), "--model", "openai:scripted", "--base-url", url,
                 "--out", str(run), "--quiet", "--concurrency", "2", "--setting",
                 "chart-as-table", *extra])


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


@pytest.fixture
def asked(tiny: Path, tmp_path: Path, key: None) -> Iterator[Callable[..., Script]]:
    """Runs gen eval on ``tiny`` with the flags given against a server that answers each
    item; returns the script (what the server was asked)."""
    items = read_items(tiny)

    def run(*flags: str, name: str = "run", again: tuple[str, ...] | None = None) -> Script:
        script = Script({"": [("call", _replier(items))]})
        with serve(script) as url:
            assert _eval(tiny, tmp_path / name, url, *flags) == 0
            if again is not None:
                assert _eval(tiny, tmp_path / f"{name}-again", url, *again) == 0
        return script

    yield run


def test_the_default_strategy_asks_and_writes_exactly_what_a_run_without_it_does(
        asked: Callable[..., Script], tmp_path: Path) -> None:
    script = asked(name="plain", again=("--strategy", "cot", "--table-format", "json"))
    asked_twice = [json.dumps(b["messages"]) for b in script.bodies]
    assert len(asked_twice) == 8 and sorted(asked_twice[:4]) == sorted(asked_twice[4:])
    for name in ("run.json", "results.jsonl", "summary.json"):
        assert (tmp_path / "plain" / name).read_bytes() == \
            (tmp_path / "plain-again" / name).read_bytes()


@pytest.mark.parametrize(("strategy", "says", "fmt"), [
    ("direct", "without any explanation", "pipe"),
    ("four-stage", "Modality identification: for each value", "markdown"),
    ("modality-integration", "First bring the inputs together", "json"),
])
def test_each_strategy_sends_its_own_prompt_with_the_table_as_asked(
        asked: Callable[..., Script], tmp_path: Path, strategy: str, says: str, fmt: str
        ) -> None:
    script = asked("--strategy", strategy, "--table-format", fmt)
    prompts = [_user_texts(b) for b in script.bodies]
    assert len(prompts) == 4 and all(len(p) == 1 and says in p[0] for p in prompts)
    assert all("Think step by step, checking each statement" not in p[0] for p in prompts)
    heading = {"pipe": "Table (pipe-separated rows, the header first):\n",
               "markdown": "Table (Markdown):\n", "json": "Table (JSON, one object per row):\n"}
    for (text,) in prompts:
        table = text.split(heading[fmt], 1)[1].split("\n\n", 1)[0]
        rows = table.strip().splitlines()
        if fmt == "json":
            assert table.startswith("[") and json.loads(table)
            continue
        assert len(rows) >= 3 and all(" | " in row for row in rows if set(row) - set("|-"))
        assert "{" not in table and ("|---|" in table) == (fmt == "markdown")
        chart = text.split("Chart, given as its data (", 1)[1]
        assert chart.startswith(heading[fmt][len("Table ("):].replace("per row", "per data point"))
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (run["strategy"], run["table_format"]) == (strategy, fmt)
    assert says in run["prompts"]["three_statement"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["run"]["strategy"] == strategy


def test_one_shot_shows_another_items_example_with_its_answer_never_the_item(
        asked: Callable[..., Script], tiny: Path, tmp_path: Path) -> None:
    items = {i["id"]: i for i in read_items(tiny)}
    script = asked("--strategy", "one-shot", "--seed", "3")
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["seed"] == 3 and set(run["examples"]) == set(items)
    for body in script.bodies:
        shown, asked_part = _user_texts(body)[0].split("Now the task to answer.")
        item = next(i for i in items.values() if i["question"] in asked_part)
        example = items[run["examples"][item["id"]]]
        assert example["base_id"] != item["base_id"]
        assert item["question"] not in shown and example["question"] in shown
        assert shown.rstrip().endswith(f"Answer: {_reference(example)}")
        assert example["question"] not in asked_part
    assert all(r["correct"] is not None for r in _results(tmp_path / "run"))


def test_self_refine_asks_a_second_turn_in_one_conversation_counting_both(
        tiny: Path, tmp_path: Path, key: None) -> None:
    items = read_items(tiny)
    script = Script({"": [("call", _replier(items))]})
    prices = tmp_path / "prices.yaml"
    prices.write_text("scripted: {input: 1000, output: 10000}\n")
    run = tmp_path / "run"
    with serve(script) as url:
        # FCMR Table 5's last row: modality integration, four stages, then self-refine.
        strategy = "four-stage-integrated+self-refine"
        assert _eval(tiny, run, url, "--strategy", strategy, "--prices", str(prices)) == 0
        first = len(script.bodies)
        one_turn = (100 * 1000 + 20 * 10000) / 1e6  # the server counts 100 in, 20 out
        costed = _results(run)
        assert all(r["cost"] == pytest.approx(2 * one_turn) for r in costed)
        assert all([t["cost"] for t in r["turns"]] == pytest.approx([one_turn, one_turn])
                   for r in costed)
        assert json.loads((run / "summary.json").read_text())["cost"] == \
            pytest.approx(8 * one_turn)
        assert _eval(tiny, run, url, "--strategy", strategy, "--prices", str(prices)) == 0
    assert first == 8 and len(script.bodies) == 8  # two turns per item; the rerun asks none
    seconds = [b["messages"] for b in script.bodies if len(b["messages"]) > 1]
    assert len(seconds) == 4
    for messages in seconds:
        assert [m["role"] for m in messages] == ["user", "assistant", "user"]
        assert "in four stages" in messages[0]["content"]
        assert messages[1]["content"].startswith("Answer: ") and REVIEW in messages[2]["content"]
    results = _results(run)  # the rerun's: every turn from the cache
    assert all(r["cached"] and r["correct"] for r in results)
    fresh = json.loads((run / "summary.json").read_text())
    assert fresh["accuracy"]["value"] == 1.0 and fresh["cached"] == 4
    assert all(r["tokens"] == {"input": 200, "output": 40} for r in results)
    assert all([t["response"].startswith("Answer: ") for t in r["turns"]] == [True, False]
               for r in results)


def test_a_conversation_sends_each_turn_with_its_images_in_order(key: None) -> None:
    script = Script({"": ["Answer: 2"]})
    with serve(script) as url:
        model = OpenAIChat({"model": "m", "base_url": url})
        first = Prompt(("Look at ", PromptImage(b"\x89PNG", "table"), " and answer."))
        reply = model.converse([Exchange(first, "Answer: 1")], Prompt(("Check it.",)))
    assert reply.text == "Answer: 2" and reply.input_tokens == 100
    (body,) = script.bodies
    user, assistant, again = body["messages"]
    assert [p["type"] for p in user["content"]] == ["text", "image_url", "text"]
    assert user["content"][1]["image_url"]["url"] == "data:image/png;base64,iVBORw=="
    assert assistant == {"role": "assistant", "content": "Answer: 1"}
    assert again == {"role": "user", "content": "Check it."}


class _OneTurn:
    """A plug-in model that answers prompts and holds no conversation."""

    def __init__(self, options: Mapping[str, str]) -> None:
        pass

    def answer(self, prompt: Prompt) -> str:
        return "Answer: none"


@pytest.mark.parametrize(("flags", "line"), [
    (["--model", "one-turn", "--strategy", "self-refine"],
     "gen: error: --strategy self-refine: asks a second turn in one conversation, and the "
     "model one-turn holds none"),
    (["--model", "oracle", "--strategy", "direct"],
     "gen: error: --model oracle: a baseline that reads the item, not a prompt"),
    (["--model", "one-turn", "--strategy", "nope"],
     "gen: error: --strategy: no strategy 'nope' (strategies: cot, direct, four-stage"),
    (["--model", "one-turn", "--strategy", "direct+four-stage"],
     "gen: error: --strategy direct+four-stage: direct and four-stage each bring"),
    (["--model", "one-turn", "--strategy", "direct", "--seed", "2"],
     "gen: error: --seed: the strategy direct draws nothing"),
])
def test_what_cannot_be_asked_is_one_line_and_writes_nothing(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str],
        line: str) -> None:
    MODELS.register("one-turn", _OneTurn)
    try:
        code = main(["eval", str(tiny), "--out", str(tmp_path / "run"), "--quiet",
                     "--setting", "chart-as-table", *flags])
    finally:
        MODELS.unregister("one-turn")
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(line) and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_a_model_without_conversations_still_answers_one_turn_strategies(
        tiny: Path, tmp_path: Path) -> None:
    MODELS.register("one-turn", _OneTurn)
    try:
        assert main(["eval", str(tiny), "--model", "one-turn", "--strategy", "four-stage",
                     "--out", str(tmp_path / "run"), "--quiet", "--setting", "chart-as-table"]) == 0
    finally:
        MODELS.unregister("one-turn")
    assert len(_results(tmp_path / "run")) == 4


def test_harness_exports_carry_the_strategys_prompt_or_refuse_a_conversation(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "export"
    assert main(["export", str(tiny), "--format", "inspect", "--out", str(out), "--setting",
                 "chart-as-table", "--strategy", "four-stage", "--table-format", "pipe"]) == 0
    samples = (out / "samples.jsonl").read_text()
    assert "Modality identification" in samples and "pipe-separated rows" in samples
    assert "--strategy four-stage --table-format pipe" in (out / "README.md").read_text()
    shot = tmp_path / "shot"
    assert main(["export", str(tiny), "--format", "inspect", "--out", str(shot), "--setting",
                 "chart-as-table", "--strategy", "one-shot", "--limit", "2"]) == 0
    assert "Here is an example of the task" in (shot / "samples.jsonl").read_text()
    assert "--strategy one-shot --table-format json --seed 0" in \
        (shot / "README.md").read_text()
    refused = tmp_path / "refused"
    assert main(["export", str(tiny), "--format", "vlmevalkit", "--out", str(refused),
                 "--strategy", "self-refine"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gen: error: --strategy self-refine: a conversation of two turns") \
        and err.count("\n") == 1
    assert not refused.exists()


@pytest.mark.slow
def test_self_refine_resumes_after_a_kill_asking_nothing_twice(tiny: Path, tmp_path: Path
                                                               ) -> None:
    items = read_items(tiny)
    reply = _replier(items)
    script = Script({"": [("call", lambda prompt: ("sleep", 0.3, reply(prompt)))]})
    run = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    with serve(script) as url:
        command = [sys.executable, "-m", "hopvista.cli.main", "eval", str(tiny), "--model",
                   "openai:scripted", "--base-url", url, "--out", str(run), "--quiet",
                   "--concurrency", "1", "--strategy", "self-refine", "--setting",
                   "chart-as-table"]
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(script.bodies) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert not (run / "summary.json").exists()
        before = [json.dumps(b["messages"]) for b in script.bodies]
        assert 3 <= len(before) < 8
        assert subprocess.run(command, env=env, capture_output=True).returncode == 0
    asked = [json.dumps(b["messages"]) for b in script.bodies]
    # Only the request in flight at the kill (one at a time here) may be asked twice.
    assert len(asked) - len(set(asked)) <= 1 and len(set(asked)) == 8
    assert json.loads((run / "summary.json").read_text())["accuracy"]["value"] == 1.0
