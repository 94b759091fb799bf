"""gen eval under hostile servers, options, run folders and disks: the key never reaches disk
or output, one run per folder, a failed run leaves nothing that refuses its corrected rerun,
no run inside a dataset, options and endpoints checked up front, no reply can crash a run (or
its reruns), and a full or read-only disk is one line."""

from __future__ import annotations

import errno
import gzip
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from tests.conftest import build_dataset, read_items
from tests.scripted_server import Script, serve

KEY = "sk-hostile-Q7f3a9c0e5d1b2c3d4e5f6a7b8"
ORGANISATION = "org-hostile-5c4b3a2918273645"
CLOSED = "http://127.0.0.1:9/v1"  # nothing listens on the discard port


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile-eval") / "tiny"
    build_dataset(out, "-n", "6", "--seed", "3", "--no-images", "--no-defences")
    return out


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(autouse=True)
def _quick_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's plots (most of a small run's time) drawn as empty SVGs: these tests
    are about what reaches the report, not how it is drawn."""
    monkeypatch.setattr("hopvista.eval.report._bars", lambda *args: "<svg></svg>")


def _eval(dataset: Path, out: Path, url: str | None, *extra: str,
          model: str = "openai:scripted") -> int:
    args = ["eval", str(dataset), "--model", model, "--out", str(out), "--setting",
            "no-chart", "--quiet"]
    if url is not None:
        args += ["--base-url", url, "--option", "max_retries=0", "--option", "timeout=10"]
    return main([*args, *extra])


def _results(run: Path) -> list[dict[str, Any]]:
    text = (run / "results.jsonl").read_bytes().decode("utf-8")  # strict: valid UTF-8
    return [json.loads(line) for line in text.split("\n") if line]


def _strict_json(path: Path) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{path} holds {name}, which is not JSON")
    return json.loads(path.read_bytes().decode("utf-8"), parse_constant=refuse)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(("gen: error: ", "gen eval: error: ")), err
    assert "Traceback" not in err
    return lines[0]


# 1. Keys never reach disk or output ----------------------------------------------------------

def _pieces(secret: str, size: int = 12) -> list[str]:
    return [secret[i:i + size].lower() for i in range(len(secret) - size + 1)]


def _assert_nowhere(secret: str, root: Path, *texts: str) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes().decode("utf-8", "replace").lower()
            assert not any(p in data for p in _pieces(secret)), path
    for text in texts:
        assert not any(p in text.lower() for p in _pieces(secret)), text


def test_a_server_that_echoes_the_key_gets_it_written_nowhere(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", ORGANISATION)
    cues = [item["statements"][0]["text"] for item in read_items(tiny)]
    script = Script({
        cues[0]: [("echo-header", "Authorization")],  # "Bearer <key>"
        cues[1]: [("raw", 200, b'{"choices": [{"message": {"content": "Answer: 1 '
                   b'(@Authorization@)"}}], "usage": {"prompt_tokens": 5}}')],
        cues[2]: [f"Answer: 2. By the way your key is {KEY.upper()}."],
        cues[3]: [f"Answer: none, said {KEY[:-5]}…"],  # cut short
        cues[4]: [("echo-key", 401)],  # an error
        cues[5]: [("echo-header", "OpenAI-Organization")],  # a header the client sends
    })
    run, cache = tmp_path / "run", tmp_path / "cache"
    with serve(script) as url:
        assert _eval(tiny, run, url) == 0
        assert _eval(tiny, tmp_path / "elsewhere", url, "--cache", str(cache)) == 0
        assert _eval(tiny, run, url) == 0  # from the cache
        results = {r["id"].split("-")[-1]: r for r in _results(run)}
        assert results["000000.base"]["response"] == "Bearer ***"
        assert results["000000.base"]["cached"] is True
        assert any(r["error"] is not None and "HTTP 401" in r["error"]
                   for r in results.values())
        # An answer an older run cached with the key in it is redacted when read.
        entry = next((run / "cache").rglob("*.json"))
        record = json.loads(entry.read_text())
        entry.write_text(json.dumps({**record, "text": f"Answer: 3 {KEY}"}))
        assert _eval(tiny, run, url) == 0
    assert any(r["response"] == "Answer: 3 ***" for r in _results(run))
    out = capsys.readouterr()
    _assert_nowhere(KEY, tmp_path, out.out, out.err)
    _assert_nowhere(ORGANISATION, tmp_path, out.out, out.err)


# 2. One run per folder -----------------------------------------------------------------------

def test_a_second_gen_eval_into_the_same_folder_is_refused_at_once(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = Script({"": [("sleep", 0.4, "Answer: 1")]})
    run = tmp_path / "run"
    first: dict[str, int] = {}
    with serve(script) as url:
        thread = threading.Thread(target=lambda: first.setdefault(
            "code", _eval(tiny, run, url, "--limit", "3", "--concurrency", "1")))
        thread.start()
        deadline = time.monotonic() + 30
        while not script.requests.get("") and time.monotonic() < deadline:
            time.sleep(0.02)
        started = time.monotonic()
        assert _eval(tiny, run, url, "--limit", "3", "--concurrency", "1") == 2
        assert time.monotonic() - started < 5
        line = _one_error_line(capsys.readouterr().err)
        thread.join(60)
    assert f"pid {os.getpid()}" in line and f"--out {run}" in line
    assert first["code"] == 0
    assert script.requests[""] == 3  # every item asked once, by the first run
    assert not (run / ".lock").exists()


# 3. A failed run leaves nothing that refuses its corrected rerun ------------------------------

@pytest.mark.parametrize("mistake", [
    ("--setting", "interleaved"),  # images a --no-images dataset does not have
    ("--option", "timeout=-1"),
    ("--prompt", "{{ no_such_variable }}"),
], ids=["setting", "option", "prompt"])
def test_a_failed_run_leaves_nothing_behind(tiny: Path, tmp_path: Path, mistake: tuple[str, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    flag, value = mistake
    if flag == "--prompt":
        (tmp_path / "prompt.j2").write_text(value)
        value = str(tmp_path / "prompt.j2")
    run = tmp_path / "runs" / "run"
    script = Script({"": ["Answer: 1"]})
    with serve(script) as url:
        assert _eval(tiny, run, url, flag, value) == 2
        _one_error_line(capsys.readouterr().err)
        assert not (tmp_path / "runs").exists()
        assert sum(script.requests.values()) == 0
        assert _eval(tiny, run, url) == 0
    assert len(_results(run)) == 6


def test_a_run_with_no_answer_yet_is_taken_over_by_the_corrected_command(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert _eval(tiny, run, CLOSED) == 0  # every request fails: no answer
    assert all(r["error"] for r in _results(run))
    capsys.readouterr()
    with serve(Script({"": ["Answer: 1"]})) as url:
        assert _eval(tiny, run, url) == 0
    assert "no answer yet" in capsys.readouterr().err
    assert all(r["error"] is None for r in _results(run))
    # A run that has answers is still never replaced by another one.
    assert _eval(tiny, run, None, model="oracle") == 2
    assert "another model" in capsys.readouterr().err
    assert all(r["error"] is None for r in _results(run))


def test_a_rerun_may_raise_the_timeout_that_failed_it(tiny: Path, tmp_path: Path) -> None:
    cues = [item["statements"][0]["text"] for item in read_items(tiny)]
    script = Script({cue: ["Answer: 1"] if k % 2 else [("sleep", 1.5, "Answer: 2")]
                     for k, cue in enumerate(cues)})
    run = tmp_path / "run"
    with serve(script) as url:
        assert _eval(tiny, run, url, "--option", "timeout=0.5") == 0
        assert [r["error"] for r in _results(run)].count("timed out") == 3
        assert _eval(tiny, run, url, "--option", "timeout=10", "--option", "max_retries=1") == 0
    assert all(r["error"] is None for r in _results(run))
    assert json.loads((run / "run.json").read_text())["options"]["timeout"] == "10"


# 4. No run inside a dataset, nor anywhere that is not a folder --------------------------------

def _target(kind: str, tiny: Path, tmp_path: Path) -> Path:
    if kind == "dataset":
        return tiny
    if kind == "inside":
        return tiny / "run"
    if kind == "deep-inside":
        return tiny / "data" / "x" / "run"
    if kind == "through-symlink":
        (tmp_path / "link").symlink_to(tiny)
        return tmp_path / "link" / "run"
    if kind == "file":
        (tmp_path / "file").write_text("keep")
        return tmp_path / "file"
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return tmp_path / "fifo"
    if kind == "loop":
        (tmp_path / "a").symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(tmp_path / "a")
        return tmp_path / "a" / "run"
    if kind == "under-file":
        (tmp_path / "file").write_text("keep")
        return tmp_path / "file" / "run"
    raise AssertionError(kind)


KINDS = ["dataset", "inside", "deep-inside", "through-symlink", "file", "fifo", "loop",
         "under-file"]


@pytest.mark.parametrize("flag", ["--out", "--cache"])
@pytest.mark.parametrize("kind", KINDS)
def test_out_and_cache_must_be_folders_outside_any_dataset(
        tiny: Path, tmp_path: Path, kind: str, flag: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    before = _files(tiny)
    target = _target(kind, tiny, tmp_path)
    out = target if flag == "--out" else tmp_path / "run"
    extra = ("--cache", str(target)) if flag == "--cache" else ()
    assert _eval(tiny, out, None, *extra, model="oracle") == 2
    line = _one_error_line(capsys.readouterr().err)
    assert f"{flag} {target}" in line
    assert _files(tiny) == before
    assert not (tmp_path / "run").exists()
    if kind in ("file", "under-file"):
        assert (tmp_path / "file").read_text() == "keep"


@pytest.mark.parametrize("kind", ["inside-export", "export", "inside-other-run",
                                  "cache-is-other-run"])
def test_no_run_or_cache_inside_an_export_or_another_run(
        tiny: Path, tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An export or another run is hopvista's whole folder: a run or a cache written into it
    would make the next export or report refuse it."""
    export, other = tmp_path / "export", tmp_path / "other"
    assert main(["export", str(tiny), "--format", "inspect", "--setting", "chart-as-table",
                 "--out", str(export)]) == 0
    assert _eval(tiny, other, None, model="oracle") == 0
    capsys.readouterr()
    before = {folder: _files(folder) for folder in (export, other)}
    out, extra = {
        "inside-export": (export / "run", ()),
        "export": (export, ()),
        "inside-other-run": (other / "nested", ()),
        "cache-is-other-run": (tmp_path / "run", ("--cache", str(other))),
    }[kind]
    assert _eval(tiny, out, None, *extra, model="oracle") == 2
    line = _one_error_line(capsys.readouterr().err)
    assert ("--cache" if extra else "--out") in line
    assert {folder: _files(folder) for folder in (export, other)} == before
    assert main(["export", str(tiny), "--format", "inspect", "--setting", "chart-as-table",
                 "--out", str(export)]) == 0


def test_a_runs_own_cache_folder_may_be_named(tiny: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert _eval(tiny, run, None, "--cache", str(run / "cache"), model="oracle") == 0
    assert _eval(tiny, run, None, "--cache", str(run / "cache"), model="oracle") == 0


# 5. Options and endpoints refused up front ----------------------------------------------------

@pytest.mark.parametrize("flag,value,named", [
    ("--option", "timeout=nan", "--option timeout"),
    ("--option", "timeout=-1", "--option timeout"),
    ("--option", "timeout=0", "--option timeout"),
    ("--option", "timeout=inf", "--option timeout"),
    ("--option", "temperature=inf", "--option temperature"),
    ("--option", "temperature=-0.5", "--option temperature"),
    ("--option", "temperature=2.5", "--option temperature"),
    ("--option", "max_retries=-1", "--option max_retries"),
    ("--option", "max_retries=1e9", "--option max_retries"),
    ("--option", "max_tokens=0", "--option max_tokens"),
    ("--option", "max_tokens=1_000", "--option max_tokens"),
    ("--option", "seed=1.5", "--option seed"),
    ("--option", "seed=" + "9" * 40, "--option seed"),
    ("--option", "colour=blue", "--option colour"),
    ("--concurrency", "100000", "--concurrency"),
    ("--base-url", "not a url", "--base-url"),
    ("--base-url", "file:///etc/passwd", "--base-url"),
    ("--base-url", "ftp://example.com/v1", "--base-url"),
    ("--base-url", "localhost:8000/v1", "--base-url"),
    ("--base-url", "http://", "--base-url"),
    ("--base-url", "http://[::1/v1", "--base-url"),
    ("--base-url", "http://example.com:99999/v1", "--base-url"),
    ("--base-url", "http://exa%mple.com/v1", "--base-url"),
    ("--base-url", f"http://me:{KEY}@example.com/v1", "--base-url"),
    ("--base-url", "http://example.com/v1?key=1", "--base-url"),
])
def test_bad_options_and_endpoints_are_refused_before_anything(
        tiny: Path, tmp_path: Path, flag: str, value: str, named: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    base = [] if flag == "--base-url" else ["--base-url", CLOSED]
    run = tmp_path / "run"
    try:
        code = main(["eval", str(tiny), "--model", "openai:m", "--out", str(run), "--setting",
                     "no-chart", "--quiet", *base, flag, value])
    except SystemExit as exc:  # argparse's own refusal
        code = int(str(exc.code))
    assert code == 2
    line = _one_error_line(capsys.readouterr().err)
    assert named in line and KEY not in line
    assert not run.exists()


def test_an_endpoint_from_the_environment_is_checked_too(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "file:///etc/passwd")
    assert _eval(tiny, tmp_path / "run", None) == 2
    assert "OPENAI_BASE_URL" in _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("value", ["abc", "nan", "1.5", "9" * 5000],
                         ids=["text", "nan", "fraction", "5000-digits"])
def test_a_baseline_refuses_bad_options_too(tiny: Path, tmp_path: Path, value: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert _eval(tiny, tmp_path / "r", None, "--option", f"seed={value}", model="random") == 2
    assert "--option seed" in _one_error_line(capsys.readouterr().err)
    assert _eval(tiny, tmp_path / "r", None, "--base-url", CLOSED, model="oracle") == 2
    assert "--base-url" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "r").exists()


# 6. No reply can crash a run, or its reruns ---------------------------------------------------

def _body(content: Any = "Answer: 1", **fields: Any) -> bytes:
    payload = {"choices": [{"message": {"role": "assistant", "content": content}}], **fields}
    return json.dumps(payload).encode()


DIGITS = "7" * 4301
SCORED = {  # bodies whose answer is scored
    "lone-surrogate": _body("Answer: 1 \ud800 and \udfff"),
    "long-number-answer": _body(f"Answer: {DIGITS}"),
    "long-number-created": _body() [:-1] + f', "created": {DIGITS}}}'.encode(),
    "nested-json-answer": _body("[" * 50_000 + "]" * 50_000),
    "nul-and-controls": _body("Answer: 1\u0000\u001b[31m\u0007\u202e"),
    "invalid-utf8": _body("Answer: 1 XX").replace(b"XX", b"\xff\xfe"),
    "quadratic-bait": _body("```{}" * 30_000 + " all" * 30_000),
    "null-content": _body(None),
}
MALFORMED = {  # bodies that are errors of the item
    "nested-json-body": b"[" * 200_000 + b"]" * 200_000,
    "long-number-tokens": _body()[:-1] + f', "usage": {{"prompt_tokens": {DIGITS}}}}}'.encode(),
    "negative-tokens": _body(usage={"prompt_tokens": -5, "completion_tokens": 3}),
    "absurd-tokens": _body(usage={"prompt_tokens": 1e300, "completion_tokens": 3}),
    "nan-tokens": _body()[:-1] + b', "usage": {"prompt_tokens": NaN}}',
    "text-tokens": _body(usage={"completion_tokens": "ten"}),
    "usage-not-object": _body(usage="lots"),
    "number-content": _body(42),
    "object-content": _body({"answer": 1}),
    "list-content": _body([{"type": "text", "text": "Answer: 1"}]),
    "no-choices": json.dumps({"choices": []}).encode(),
    "choices-object": json.dumps({"choices": {"0": {"message": {"content": "1"}}}}).encode(),
    "choices-string": json.dumps({"choices": "Answer: 1"}).encode(),
    "choice-not-object": json.dumps({"choices": [1]}).encode(),
    "message-string": json.dumps({"choices": [{"message": "Answer: 1"}]}).encode(),
    "body-array": b"[1, 2]",
    "body-null": b"null",
    "body-empty": b"",
    "body-html": b"<html>not json</html>",
    "huge-body": _body("Answer: 1 " + "x" * (17 << 20)),
    "long-answer": _body("Answer: 1 " + "x" * 1_000_001),
}


def _check_run(run: Path) -> list[dict[str, Any]]:
    results = _results(run)
    summary = _strict_json(run / "summary.json")
    for r in results:
        assert (r["error"] is None) != (r["response"] is None)
        assert r["cost"] is None or r["cost"] >= 0
        assert all(t is None or (isinstance(t, int) and t >= 0) for t in r["tokens"].values())
    assert summary["cost"] is None or summary["cost"] >= 0
    assert (run / "report.html").read_bytes().decode("utf-8")
    return results


@pytest.mark.parametrize("name", sorted(SCORED) + sorted(MALFORMED))
def test_no_reply_crashes_a_run_or_its_rerun(tiny: Path, tmp_path: Path, name: str) -> None:
    body = SCORED.get(name, MALFORMED.get(name))
    script = Script({"": [("raw", 200, body)]})
    run = tmp_path / "run"
    with serve(script) as url:
        for _ in range(2):  # the second run reads what the first cached
            assert _eval(tiny, run, url, "--limit", "2", "--concurrency", "2") == 0
            results = _check_run(run)
    if name in SCORED:
        assert all(r["error"] is None for r in results), results[0]["error"]
        assert all(r["cached"] for r in results)
        assert script.requests[""] == 2
    else:
        assert all(r["error"].startswith("malformed response") for r in results)
        assert script.requests[""] == 4  # an error is asked again
    if name == "lone-surrogate":
        assert "\ufffd and \ufffd" in results[0]["response"]


def test_a_compressed_bomb_is_an_item_error(tiny: Path, tmp_path: Path) -> None:
    bomb = gzip.compress(_body("Answer: 1 " + "0" * (64 << 20)))
    script = Script({"": [("raw", 200, bomb, {"Content-Encoding": "gzip"})]})
    with serve(script) as url:
        assert _eval(tiny, tmp_path / "run", url, "--limit", "1") == 0
    assert _check_run(tmp_path / "run")[0]["error"].startswith("malformed response")


def test_an_unscorable_short_answer_is_wrong_not_a_crash(tmp_path: Path) -> None:
    from hopvista.model import Item
    from hopvista.model.format import DATASET_FORMAT, FORMAT_VERSION

    data = tmp_path / "qa"
    data.mkdir()
    items = [Item.model_validate({
        "id": f"qa-{k:06d}.base", "base_id": f"qa-{k:06d}", "domain": "wtq",
        "kind": "table_qa", "inputs": {"table": {"header": ["City", "Q"],
                                                 "rows": [["Oslo", "12"]]}},
        "question": f"Question {k}?", "answer": answer, "answer_type": kind,
        "provenance": {"generator": "test", "source": "wtq"}})
        for k, (answer, kind) in enumerate([("12", "number"), (["1", "2"], "list")])]
    (data / "items.jsonl").write_text("".join(i.model_dump_json() + "\n" for i in items))
    (data / "manifest.json").write_text(json.dumps({
        "format": DATASET_FORMAT, "format_version": FORMAT_VERSION, "config": {}, "seed": 0,
        "counts": {"items": 2}}))
    script = Script({"Question 0?": ["Answer: " + "9" * 40],
                     "Question 1?": ["Answer: [" + "[" * 5000 + "]" * 5000 + "]"]})
    with serve(script) as url:
        for _ in range(2):
            assert main(["eval", str(data), "--model", "openai:m", "--base-url", url,
                         "--out", str(tmp_path / "run"), "--quiet"]) == 0
    results = _check_run(tmp_path / "run")
    assert [r["correct"] for r in results] == [False, False]
    # a number too long to read as one, and a list nested past Python's limit, are compared
    # as text
    assert (results[0]["parsed"], results[0]["parse_rule"]) == ("9" * 40, "marker")
    assert results[1]["parse_rule"] == "marker" and results[1]["parsed"].startswith("[[[")


def _poison(entry: Path, kind: str) -> None:
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "folder":
        entry.mkdir()
    elif kind == "symlink":
        entry.symlink_to("/dev/zero")
    else:
        entry.write_bytes({
            "garbage": b"\x00\xff not json",
            "long-number": b'{"text": "Answer: 1", "input_tokens": ' + DIGITS.encode() + b"}",
            "negative-tokens": b'{"text": "Answer: 1", "input_tokens": -3}',
            "text-not-string": b'{"text": ["Answer: 1"]}',
            "not-object": b'["Answer: 1"]',
            "nested": b"[" * 100_000,
            "nan": b'{"text": "Answer: 1", "output_tokens": NaN}',
        }[kind])


POISONS = ["garbage", "long-number", "negative-tokens", "text-not-string", "not-object",
           "nested", "nan", "fifo", "folder", "symlink"]


def test_damaged_cache_entries_count_as_missing(tiny: Path, tmp_path: Path) -> None:
    script = Script({"": ["Answer: 1"]})
    run = tmp_path / "run"
    with serve(script) as url:
        assert _eval(tiny, run, url) == 0
        for poisons in (POISONS[:6], POISONS[6:]):
            entries = sorted((run / "cache").rglob("*.json"))
            for entry, kind in zip(entries, poisons, strict=False):
                _poison(entry, kind)
            assert _eval(tiny, run, url) == 0
            assert [r["cached"] for r in _check_run(run)].count(False) == len(poisons)
    assert script.requests[""] == 6 + len(POISONS)  # every damaged entry was asked again


def test_files_gen_eval_reads_are_regular_and_sane(tiny: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tmp_path / "fifo")
    prices = tmp_path / "prices.yaml"
    for flag, value in (("--prompt", tmp_path / "fifo"), ("--prices", tmp_path / "fifo"),
                        ("--prompt", tmp_path)):
        assert _eval(tiny, tmp_path / "r", CLOSED, flag, str(value)) == 2
        assert flag in _one_error_line(capsys.readouterr().err)
    for price in (".nan", "-1", ".inf"):
        prices.write_text(f"scripted: {{input: {price}, output: 1}}\n")
        assert _eval(tiny, tmp_path / "r", CLOSED, "--prices", str(prices)) == 2
        assert "scripted" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "r").exists()


# 7. A full disk or a read-only folder is one line ---------------------------------------------

_REASON = {errno.EROFS: "the file system is read-only", errno.ENOSPC: "the disk is full"}


@pytest.mark.parametrize("target,code", [
    ("run.json", errno.EROFS), ("results.jsonl", errno.ENOSPC),
    ("summary.json", errno.ENOSPC), ("report.html", errno.EROFS),
    ("cache", errno.ENOSPC), ("external-cache", errno.EROFS), ("any-write", errno.ENOSPC),
])
def test_a_full_or_read_only_disk_is_one_line(
        tiny: Path, tmp_path: Path, target: str, code: int, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    run, cache = tmp_path / "run", tmp_path / "external"
    extra = ("--cache", str(cache)) if target == "external-cache" else ()
    real = os.replace

    def failing(source: Any, destination: Any, *args: Any, **kwargs: Any) -> None:
        where = Path(destination)
        hit = where.name == target if "." in target else \
            (cache if target == "external-cache" else run / "cache") in where.parents
        if hit:
            raise OSError(code, os.strerror(code))
        real(source, destination, *args, **kwargs)

    def full(path: Path, data: bytes) -> None:
        raise OSError(code, os.strerror(code))

    script = Script({"": ["Answer: 1"]})
    with serve(script) as url:
        with monkeypatch.context() as disk:
            if target == "any-write":
                disk.setattr("hopvista.output.atomic.write_atomic", full)
            disk.setattr(os, "replace", failing)
            assert _eval(tiny, run, url, *extra) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert os.strerror(code) in line or _REASON[code] in line
        assert ("--cache" if target == "external-cache" else "--out") in line or \
            str(run) in line
        assert not (run / ".lock").exists()
        assert _eval(tiny, run, url, *extra) == 0  # the corrected disk: the run goes on
    assert len(_check_run(run)) == 6


def test_a_key_given_twice_in_a_price_table_is_one_line(tiny: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("m: {input: 1, output: 1}\nm: {input: 9, output: 9}\n")
    assert _eval(tiny, tmp_path / "run", None, "--prices", str(prices), model="oracle") == 2
    line = _one_error_line(capsys.readouterr().err)
    assert f"{prices}:2" in line and "given twice" in line
    assert not (tmp_path / "run").exists()


# -- gen report on a forged run folder ---------------------------------------------------------

@pytest.fixture(scope="module")
def random_run(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the ``random`` baseline on ``tiny`` (tests copy it)."""
    out = tmp_path_factory.mktemp("hostile-report") / "run"
    assert main(["eval", str(tiny), "--model", "random", "--out", str(out), "--quiet"]) == 0
    return out


def _forge(run: Path, name: str, change: Any) -> None:
    path = run / name
    if name == "results.jsonl":
        lines = path.read_text(encoding="utf-8").split("\n")
        record = json.loads(lines[1])
        lines[1] = json.dumps(change(record))
        path.write_text("\n".join(lines), encoding="utf-8")
        return
    path.write_text(json.dumps(change(json.loads(path.read_text(encoding="utf-8")))),
                    encoding="utf-8")


def _set(*keys: str, value: Any) -> Any:
    def change(data: Any) -> Any:
        node = data
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
        return data
    return change


@pytest.mark.parametrize(("name", "change", "says"), [
    ("summary.json", _set("accuracy", value=[1, 2]), "summary.json: field 'accuracy': "),
    ("summary.json", _set("accuracy", "value", value=[1]), "summary.json: field "
                                                          "'accuracy.value': "),
    ("summary.json", _set("by", value=[1]), "summary.json: field 'by': "),
    ("summary.json", _set("by", "difficulty", "easy", value="x"), "summary.json: field "
                                                                  "'by.difficulty.easy': "),
    ("summary.json", _set("metrics", value=5), "summary.json: field 'metrics': "),
    ("summary.json", _set("cost", value="x"), "summary.json: field 'cost': "),
    ("summary.json", _set("tokens", "input", value="<script>alert(1)</script>"),
     "summary.json: field 'tokens.input': "),
    ("summary.json", lambda data: [data], "summary.json: field '(top level)': "),
    ("run.json", _set("dataset", value=[1]), "run.json: field 'dataset': "),
    ("results.jsonl", _set("id", value=[1]), "results.jsonl:2: field 'id': "),
], ids=["accuracy-list", "value-list", "by-list", "facet-entry", "metrics-number", "cost-text",
        "tokens-markup", "summary-list", "run-dataset", "result-id"])
def test_gen_report_names_the_file_and_field_of_a_forged_run(
        random_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
        change: Any, says: str) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for entry in random_run.iterdir():
        if entry.is_file():
            (run / entry.name).write_bytes(entry.read_bytes())
    _forge(run, name, change)
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "r.html")]) == 2
    err = _one_error_line(capsys.readouterr().err)
    assert err.startswith(f"gen: error: {run / says}"), err
    assert not (tmp_path / "r.html").exists()
