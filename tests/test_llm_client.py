"""The LLM client of a build: answers cached by draw, JSON read leniently, failures named,
keys kept off disk, usage counted the same whoever asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopvista.eval.cache import ResponseCache
from hopvista.eval.prices import Prices
from hopvista.llm.client import (
    LlmClient,
    LlmReplyError,
    LlmRequestError,
    LlmSpec,
    Usage,
    parse_json,
)
from tests.scripted_server import Script, serve

KEY = "sk-test-0123456789abcdefghijklmnop"
JUDGE_KEY = "sk-judge-9876543210zyxwvutsrqpo"


def _client(url: str, tmp_path: Path, usage: Usage | None = None, stage: str = "paraphrase",
            timeout: float = 10, retries: int = 0,
            prices: Prices | None = None) -> LlmClient:
    spec = LlmSpec(stage, "openai:para", url, {"temperature": 0.7})
    return LlmClient(spec, ResponseCache(tmp_path / "cache"), prices or Prices({}),
                     usage or Usage(), timeout=timeout, retries=retries)


def test_an_answer_is_cached_by_draw_and_the_draw_is_sent_as_the_seed(tmp_path: Path) -> None:
    script = Script({"Say": ["first", "second"]})
    with serve(script) as url:
        usage = Usage()
        client = _client(url, tmp_path, usage)
        assert client.ask("Say hi").text == "first"
        assert client.ask("Say hi").text == "first"  # from the cache
        assert client.ask("Say hi", draw=7).text == "second"  # a new draw is a new question
        again = _client(url, tmp_path, Usage())
        assert again.ask("Say hi", draw=7).text == "second"
    assert script.requests["Say"] == 2
    assert [body["seed"] for body in script.bodies] == [0, 7]
    assert script.bodies[0]["temperature"] == 0.7
    stage = usage.stages["paraphrase"]
    assert (stage.prompts, stage.sent, stage.cached) == (3, 2, 1)
    assert usage.summary() == "paraphrase: 2 sent, 1 cached"


def test_usage_counts_what_the_build_needed_and_its_cost_from_the_totals(
        tmp_path: Path) -> None:
    prices = Prices({"para": (2.5, 10.0)})
    with serve(Script({"Q": ["a"]})) as url:
        first, second = Usage(), Usage()
        _client(url, tmp_path, first).ask("Q1")
        _client(url, tmp_path, first).ask("Q2")
        _client(url, tmp_path, second).ask("Q1")  # cached
        _client(url, tmp_path, second).ask("Q2")
    expected = {"paraphrase": {"model": "openai:para", "prompts": 2, "unusable": 0,
                               "input_tokens": 200, "output_tokens": 40,
                               "tokens_unknown": 0, "price_usd_per_million": [2.5, 10.0],
                               "cost_usd": 0.0009}}
    assert first.to_json(prices) == expected == second.to_json(prices)
    assert second.summary() == "paraphrase: 0 sent, 2 cached"
    assert first.to_json(Prices({}))["paraphrase"]["cost_usd"] is None


def test_json_is_read_from_fences_and_prose() -> None:
    assert parse_json('["a", "b"]') == ["a", "b"]
    assert parse_json('Sure! Here:\n```json\n["a"]\n```\nDone.') == ["a"]
    assert parse_json('The verdicts are {"1": "same"} as asked.') == {"1": "same"}
    with pytest.raises(LlmReplyError):
        parse_json("no json here [at all")


def test_a_reply_that_is_not_the_json_asked_for_is_unusable(tmp_path: Path) -> None:
    script = Script({"List": ["not json", '["x"]', '{"a": 1}']})

    def a_list(value: object) -> list[str]:
        if not isinstance(value, list):
            raise LlmReplyError("not a list")
        return [str(v) for v in value]

    with serve(script) as url:
        usage = Usage()
        client = _client(url, tmp_path, usage)
        with pytest.raises(LlmReplyError, match="not JSON"):
            client.ask_json("List it", check=a_list)
        assert client.ask_json("List it", draw=1, check=a_list) == ["x"]
        with pytest.raises(LlmReplyError, match="not a list"):
            client.ask_json("List it", draw=2, check=a_list)
    assert usage.stages["paraphrase"].unusable == 2


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    script = Script({"Slow": [("status", 429, {"Retry-After": "1"}), "done"]})
    with serve(script) as url:
        assert _client(url, tmp_path, retries=2).ask("Slow down").text == "done"
    assert script.requests["Slow"] == 2


@pytest.mark.parametrize("behaviour, message, status", [
    (("sleep", 3, "late"), "timed out", None),
    (("malformed",), "malformed response", None),
    (("status", 503), "HTTP 503", 503),
    (("status", 401), "HTTP 401", 401),
])
def test_a_request_that_fails_for_good_is_named(tmp_path: Path, behaviour: tuple[object, ...],
                                                message: str, status: int | None) -> None:
    with serve(Script({"Ask": [behaviour]})) as url:
        usage = Usage()
        with pytest.raises(LlmRequestError, match=message) as failed:
            _client(url, tmp_path, usage, timeout=0.5).ask("Ask once")
    assert failed.value.status == status
    assert usage.stages["paraphrase"].failed == 1
    assert not list((tmp_path / "cache").rglob("*.json"))  # a failure is asked again


def test_a_damaged_cache_entry_counts_as_missing(tmp_path: Path) -> None:
    script = Script({"Ask": ["fresh"]})
    with serve(script) as url:
        client = _client(url, tmp_path)
        client.ask("Ask me")
        [entry] = (tmp_path / "cache").rglob("*.json")
        entry.write_text("{broken")
        assert client.ask("Ask me").text == "fresh"
    assert script.requests["Ask"] == 2
    assert json.loads(entry.read_text())["text"] == "fresh"


def test_keys_come_from_the_environment_and_never_reach_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("HOPVISTA_JUDGE_API_KEY", JUDGE_KEY)
    script = Script({"Echo": [("echo-header", "Authorization")],
                     "Fail": [("echo-key", 400)]})
    with serve(script) as url:
        paraphraser = _client(url, tmp_path)
        judge = _client(url, tmp_path, stage="judge")
        assert paraphraser.ask("Echo para").text == "Bearer ***"
        assert judge.ask("Echo judge").text == "Bearer ***"
        with pytest.raises(LlmRequestError) as failed:
            judge.ask("Fail judge")
    assert [h["authorization"] for h in script.headers[:2]] == [f"Bearer {KEY}",
                                                                 f"Bearer {JUDGE_KEY}"]
    assert KEY[:12] not in str(failed.value) and JUDGE_KEY[:12] not in str(failed.value)
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            data = path.read_text()
            assert KEY[:12] not in data and JUDGE_KEY[:12] not in data
