"""gen build --paraphrase M --judge J against a scripted OpenAI-compatible server: good
paraphrases kept and verified, rejected ones retried then left as templates, failures
counted, keys kept off disk, a killed build resumed from the cache with the same bytes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.domain import resolve_pack
from hopvista.sources import load_world
from tests.conftest import read_items
from tests.scripted_server import Behaviour, Script, serve

KEY = "sk-paraphrase-0123456789abcdefghij"

Transform = Callable[[str], str]


def listed(prompt: str) -> list[Any]:
    """The JSON list a stage prompt shows."""
    return json.loads(prompt.split("(JSON):\n", 1)[1].rsplit("\n\nReply", 1)[0])


def is_judge(prompt: str) -> bool:
    return prompt.startswith("Each pair")


def firm(text: str) -> str:
    """A harmless rewording the guard lets through."""
    return text.replace("The company", "The firm").replace("the company", "the firm")


def server(transform: Transform = firm, verdict: str = "same",
           answered: list[str] | None = None) -> Script:
    """A server whose lexical paraphrases are ``transform`` of each statement asked, whose
    syntactic pass gives them back as they are (both in a fenced block, as chat models
    write), and whose judge answers ``verdict`` for every pair."""
    def answer(prompt: str) -> Behaviour:
        if answered is not None:
            answered.append(prompt)
        if is_judge(prompt):
            return json.dumps([verdict] * len(listed(prompt)))
        lexical = prompt.startswith("Paraphrase each")
        texts = [transform(t) if lexical else t for t in listed(prompt)]
        return "Here you go:\n```json\n" + json.dumps(texts) + "\n```"
    return Script({"": [("call", answer)]})


def build(out: Path, url: str, cache: Path, *extra: str, judge_url: str | None = None,
          count: int = 3) -> int:
    return main(["build", "financial", "-n", str(count), "--no-images", "--out", str(out),
                 "--paraphrase", "openai:para", "--judge", "openai:judge",
                 "--paraphrase-url", url, "--judge-url", judge_url or url,
                 "--llm-cache", str(cache), "--llm-retries", "1", *extra])


def records(out: Path) -> list[tuple[str, dict[str, Any]]]:
    """(text, paraphrase) of every statement."""
    return [(s["text"], s["paraphrase"]) for item in read_items(out) for s in item["statements"]]


def manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text())


def test_good_paraphrases_are_kept_recorded_and_verified(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    out = tmp_path / "out"
    script = server()
    with serve(script) as url:
        assert build(out, url, tmp_path / "cache") == 0
    found = records(out)
    assert found and all(p["kept"] == 1 and text == firm(p["template"]) and p["checks"]
                         for text, p in found)
    assert any(text != p["template"] for text, p in found)
    attempt = found[0][1]["attempts"][0]
    assert attempt["judge"]["verdict"] == "same" and attempt["guard"] == []
    for item in read_items(out):  # the question shows the final texts
        assert all(s["text"] in item["question"] for s in item["statements"])
    data = manifest(out)
    assert data["llm"]["counts"] == {"statements": 9, "kept": 9, "attempts": 9, "fallback": {}}
    assert {k: v["prompts"] for k, v in data["llm"]["usage"].items()} == {"paraphrase": 6,
                                                                           "judge": 3}
    llm = data["config"]["llm"]
    assert llm["attempts"] == 3 and not llm["judge_is_paraphraser"]
    assert llm["paraphrase"]["parameters"] == {"temperature": 0.7}
    assert len(llm["judge"]["prompts"]["judge"]["sha256"]) == 64
    card = (out / "README.md").read_text()
    assert "## Paraphrases" in card and "| paraphrase | `openai:para` | 6 |" in card
    assert "--paraphrase openai:para --judge openai:judge" in card
    import pyarrow.parquet as pq

    [shard] = (out / "data").glob("*.parquet")
    rows = pq.read_table(shard).to_pylist()
    assert rows[0]["statements"][0]["paraphrase"]["kept"] == 1
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert "OK: 3 items verified" in capsys.readouterr().out


def test_a_paraphrased_build_passes_the_audit_and_its_card_shows_the_wording(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with serve(server()) as url:
        assert build(out, url, tmp_path / "cache", count=6) == 0
    card = (out / "README.md").read_text()
    for shown in ("| WPD (word position deviation) |", "| LD (lexical deviation) |",
                  "| level | statements | final text | template | FCMR |",
                  "| step | model | requests | input tokens | output tokens | cost (USD) |",
                  "- statements: 18; paraphrase kept: 18 (100.0%); template text kept: 0"):
        assert shown in card
    capsys.readouterr()
    loose = ["--max-hard-set", "1", "--max-statement", "1", "--max-blind", "1"]
    assert main(["audit", str(out), *loose]) == 0
    printed = capsys.readouterr().out
    assert "ok: surface cues per label: no cue separates the labels beyond chance" in printed
    assert "WPD" in printed and "LD" in printed


def _drop_year(text: str) -> str:
    return re.sub(r"\b(?:in |during |for )?(?:19|20)\d\d\b", "", text)


def _add_number(text: str) -> str:
    return text.rstrip(".") + ", by 7 percent."


def _flip(text: str) -> str:
    swaps = {"increas": "decreas", "decreas": "increas", "greater": "less", "less": "greater",
             "highest": "lowest", "lowest": "highest"}
    return re.sub(r"\b(" + "|".join(swaps) + ")", lambda m: swaps[m.group(0)], text)


def _swap_entity(names: list[str]) -> Transform:
    def swap(text: str) -> str:
        for name in names:
            if name in text:
                other = next(n for n in names if n != name)
                return text.replace(name, other)
        return text
    return swap


@pytest.mark.parametrize("kind", ["year", "number", "direction", "entity"])
def test_each_kind_of_change_is_rejected_by_the_guard_until_the_bound(
        tmp_path: Path, kind: str) -> None:
    out = tmp_path / "out"
    world = load_world("synthetic", resolve_pack("financial"), 0)  # the build's entities
    names = sorted((e.name for e in world.entities), key=len, reverse=True)
    transforms: dict[str, Transform] = {"year": _drop_year, "number": _add_number,
                                        "direction": _flip, "entity": _swap_entity(names)}
    transform = transforms[kind]
    with serve(server(transform)) as url:
        assert build(out, url, tmp_path / "cache", "--llm-attempts", "2", count=4) == 0
    changed = [(text, p) for text, p in records(out) if transform(p["template"]) != p["template"]]
    assert changed, f"no statement the {kind} change applies to"
    for text, p in changed:
        assert text == p["template"] and p["kept"] is None and p["checks"] == []
        assert len(p["attempts"]) == 2
        assert all(a["guard"] and a["judge"] is None for a in p["attempts"])
    assert manifest(out)["llm"]["counts"]["fallback"]["guard"] == len(changed)


def test_a_judges_changed_is_honoured(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with serve(server(verdict="changed")) as url:
        assert build(out, url, tmp_path / "cache", "--llm-attempts", "2", count=2) == 0
    for text, p in records(out):
        assert text == p["template"] and p["kept"] is None
        assert [a["judge"]["verdict"] for a in p["attempts"]] == ["changed", "changed"]
    counts = manifest(out)["llm"]["counts"]
    assert counts["fallback"] == {"judge: changed": 6} and counts["kept"] == 0
    assert "judge: changed 6" in (out / "README.md").read_text()


def test_a_judge_that_is_the_paraphraser_is_warned_of(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    out = tmp_path / "out"
    with serve(server()) as url:
        assert main(["build", "financial", "-n", "1", "--no-images", "--out", str(out),
                     "--paraphrase", "openai:same", "--judge", "openai:same",
                     "--paraphrase-url", url, "--judge-url", url,
                     "--llm-cache", str(tmp_path / "cache")]) == 0
    err = capsys.readouterr().err
    assert "--judge openai:same is the paraphrasing model at the same endpoint" in err
    assert manifest(out)["config"]["llm"]["judge_is_paraphraser"] is True


def test_retry_after_is_honoured_in_a_build(tmp_path: Path) -> None:
    out = tmp_path / "out"
    script = server()
    first = script.script[""]
    script.script[""] = [("status", 429, {"Retry-After": "1"}), *first]
    with serve(script) as url:
        assert build(out, url, tmp_path / "cache", count=1) == 0
    assert all(p["kept"] == 1 for _, p in records(out))


@pytest.mark.parametrize("failure", [("malformed",), ("sleep", 2, "late")])
def test_requests_that_fail_for_good_leave_templates_and_the_build_goes_on(
        tmp_path: Path, failure: Behaviour, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with serve(Script({"": [failure]})) as url:
        assert build(out, url, tmp_path / "cache", "--llm-retries", "0", "--llm-timeout",
                     "0.5", count=2) == 0
    for text, p in records(out):
        assert text == p["template"] and p["kept"] is None and len(p["attempts"]) == 1
        assert p["attempts"][0]["error"].startswith("request failed: ")
    assert manifest(out)["llm"]["counts"]["fallback"] == {"request failed": 6}
    card = (out / "README.md").read_text()
    assert "request failed 6" in card and "the build did not stop" in card
    assert "paraphrase: 0 sent, 0 cached, 2 failed" in capsys.readouterr().err


def test_replies_that_are_not_json_are_asked_again(tmp_path: Path) -> None:
    out = tmp_path / "out"
    script = server()
    script.script[""] = ["I cannot do that.", *script.script[""]]
    with serve(script) as url:
        assert build(out, url, tmp_path / "cache", count=1) == 0
    found = records(out)
    assert all(p["kept"] == 2 for _, p in found)
    assert all(p["attempts"][0]["error"].startswith("reply not JSON") for _, p in found)
    assert manifest(out)["llm"]["usage"]["paraphrase"]["unusable"] == 1


@pytest.mark.parametrize("status", [401, 404])
def test_an_endpoint_that_refuses_every_request_stops_the_build(
        tmp_path: Path, status: int, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with serve(Script({"": [("status", status)]})) as url:
        assert build(out, url, tmp_path / "cache", count=2) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"gen: error: --paraphrase openai:para: {url} refused the "
                             f"request (HTTP {status}")
    assert not out.exists()


MODELS = ["--paraphrase", "openai:p", "--judge", "openai:j"]


@pytest.mark.parametrize("args, message", [
    (["--judge", "openai:j"], "--judge applies to the paraphrase stage"),
    (["--paraphrase", "openai:p"], "--paraphrase needs --judge MODEL"),
    (["--llm-concurrency", "3"], "--llm-concurrency applies to the paraphrase stage"),
    (["--llm-cache", "c"], "--llm-cache applies to the paraphrase stage"),
    (["--prices", "p.yaml"], "--prices applies to the paraphrase stage"),
    ([*MODELS, "--paraphrase-url", "ftp://x"],
     "--paraphrase-url 'ftp://x': not an http:// or https:// URL"),
    ([*MODELS, "--judge-url", "http://user:pw@host/v1"],
     "--judge-url: holds a user name or password"),
    (["--paraphrase", "nosuch:p", "--judge", "openai:j", "--paraphrase-url",
      "http://127.0.0.1:9/v1", "--judge-url", "http://127.0.0.1:9/v1"],
     "--paraphrase nosuch:p: unknown model 'nosuch'"),
    (["--paraphrase", "openai:", "--judge", "openai:j"], "--paraphrase 'openai:': give a model"),
    (MODELS, "--paraphrase openai:p: set OPENAI_API_KEY (or --paraphrase-url URL for a "
             "local server)"),
    ([*MODELS, "--llm-attempts", "0"], "argument --llm-attempts: must be at least 1"),
    ([*MODELS, "--llm-attempts", "21"], "--llm-attempts 21: must be from 1 to 20"),
    ([*MODELS, "--llm-timeout", "nan"], "argument --llm-timeout: must be more than 0"),
])
def test_bad_flags_are_one_line_and_nothing_is_written(
        tmp_path: Path, args: list[str], message: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HOPVISTA_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "out"
    try:
        code = main(["build", "financial", "-n", "1", "--no-images", "--out", str(out), *args])
    except SystemExit as exc:  # what argparse refuses
        code = int(exc.code or 0)
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_key_never_reaches_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out, cache = tmp_path / "out", tmp_path / "cache"

    def echo(text: str) -> str:  # a paraphraser that repeats the key it was sent
        return text

    script = server(echo)
    first = script.script[""]
    script.script[""] = [("echo-header", "Authorization"), *first]
    with serve(script) as url:
        assert build(out, url, cache, count=1) == 0
    assert script.headers[0]["authorization"] == f"Bearer {KEY}"
    for path in [*out.rglob("*"), *cache.rglob("*")]:
        if path.is_file():
            assert KEY[:12].encode() not in path.read_bytes(), path


def test_a_rerun_asks_nothing_and_gives_the_same_bytes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    answered: list[str] = []
    with serve(server(answered=answered)) as url:
        assert build(tmp_path / "a", url, cache) == 0
        asked = len(answered)
        assert build(tmp_path / "b", url, cache) == 0
    assert len(answered) == asked == 9
    for name in ("items.jsonl", "manifest.json", "README.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_the_estimate_renders_every_prompt_and_sends_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["build", "financial", "-n", "3", "--out", str(out), "--paraphrase",
                 "openai:gpt-4o-mini", "--judge", "openai:gpt-4o", "--judge-url",
                 "http://127.0.0.1:9/v1", "--paraphrase-url", "http://127.0.0.1:9/v1",
                 "--llm-estimate"]) == 0
    printed = capsys.readouterr().out
    assert "estimate for 3 items (9 statements)" in printed
    assert "paraphrase (openai:gpt-4o-mini): 6 requests" in printed
    assert "judge (openai:gpt-4o): 3 requests" in printed
    assert "nothing was sent or written" in printed
    assert not out.exists()


@pytest.mark.slow
def test_a_killed_build_resumes_from_the_cache_with_the_same_bytes(tmp_path: Path) -> None:
    """A build killed (SIGKILL) in the middle of the stage, run again: it keeps the items
    written, asks no question twice, and writes the uninterrupted build's bytes."""
    answered: list[str] = []
    arrived: list[str] = []
    release = threading.Event()
    plain = server(answered=answered).script[""][0][1]

    def held(prompt: str) -> Behaviour:
        arrived.append(prompt)
        if len(arrived) > 9:  # three items answered: the rest waits until the kill
            release.wait(60)
            return ("status", 503)
        result: Behaviour = plain(prompt)
        return result

    script = Script({"": [("call", held)]})
    cache = tmp_path / "cache"
    with serve(script) as url:
        command = ["build", "financial", "-n", "5", "--no-images", "--paraphrase",
                   "openai:para", "--judge", "openai:judge", "--paraphrase-url", url,
                   "--judge-url", url, "--llm-cache", str(cache), "--llm-concurrency", "1",
                   "--llm-retries", "0"]
        env = {**os.environ, "OPENAI_API_KEY": ""}
        process = subprocess.Popen(
            [sys.executable, "-m", "hopvista.cli.main", *command, "--out", str(tmp_path / "a")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while len(arrived) < 10 and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1)  # the third item's line is flushed
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)
        finally:
            release.set()
        assert len(arrived) == 10 and len(answered) == 9
        script.script[""] = [("call", plain)]
        assert main([*command, "--out", str(tmp_path / "a")]) == 0
        assert len(answered) == 15  # the last two items' questions, once each
        assert main([*command, "--out", str(tmp_path / "b")]) == 0  # all from the cache
    assert len(answered) == 15
    assert max(Counter(answered).values()) == 1, "a question was asked twice"
    for name in ("items.jsonl", "manifest.json", "README.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_shards_merged_give_the_single_builds_bytes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with serve(server()) as url:
        assert build(tmp_path / "one", url, cache, count=4) == 0
        assert build(tmp_path / "s1", url, cache, "--shard", "1/2", count=4) == 0
        assert build(tmp_path / "s2", url, cache, "--shard", "2/2", count=4) == 0
    assert main(["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out",
                 str(tmp_path / "merged")]) == 0
    for name in ("items.jsonl", "manifest.json", "README.md"):  # the manifest hashes the rest
        assert (tmp_path / "one" / name).read_bytes() == \
            (tmp_path / "merged" / name).read_bytes()


def test_concurrency_changes_nothing_in_the_bytes(tmp_path: Path) -> None:
    with serve(server()) as url:
        assert build(tmp_path / "a", url, tmp_path / "c1", "--llm-concurrency", "1",
                     count=5) == 0
        assert build(tmp_path / "b", url, tmp_path / "c2", "--llm-concurrency", "5",
                     count=5) == 0
    for name in ("items.jsonl", "manifest.json", "README.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_pack_overrides_a_prompt_with_its_own_template(tmp_path: Path) -> None:
    import shutil

    pack = tmp_path / "pack"
    shutil.copytree(resolve_pack("financial").path, pack)
    (pack / "prompts").mkdir()
    (pack / "prompts" / "judge.j2").write_text(
        "Each pair below is for the pack's own judge of {{ plural }}.\n"
        "Pairs (JSON):\n{{ pairs_json }}\n\nReply with a JSON list of verdicts.\n")
    answered: list[str] = []
    out = tmp_path / "out"
    with serve(server(answered=answered)) as url:
        assert main(["build", str(pack), "-n", "1", "--no-images", "--out", str(out),
                     "--paraphrase", "openai:para", "--judge", "openai:judge",
                     "--paraphrase-url", url, "--judge-url", url,
                     "--llm-cache", str(tmp_path / "cache")]) == 0
    judged = [p for p in answered if is_judge(p)]
    assert judged and all("the pack's own judge of companies" in p for p in judged)
    prompts = manifest(out)["config"]["llm"]["judge"]["prompts"]["judge"]
    assert prompts["origin"] == "prompts/judge.j2"
    assert all(p["kept"] == 1 for _, p in records(out))


def test_a_broken_pack_prompt_is_one_line_before_anything_is_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    pack = tmp_path / "pack"
    shutil.copytree(resolve_pack("financial").path, pack)
    (pack / "prompts").mkdir()
    (pack / "prompts" / "paraphrase_lexical.j2").write_text("Say\n{{ nosuch.attribute }}\n")
    script = server()
    with serve(script) as url:
        assert main(["build", str(pack), "-n", "1", "--no-images", "--out",
                     str(tmp_path / "out"), "--paraphrase", "openai:para", "--judge",
                     "openai:judge", "--paraphrase-url", url, "--judge-url", url,
                     "--llm-cache", str(tmp_path / "cache")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "prompts/paraphrase_lexical.j2:2: " in err[0], err
    assert not script.bodies and not (tmp_path / "out").exists()
