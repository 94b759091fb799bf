"""``gen eval --model human``: a person answers on a page served on 127.0.0.1.

In a real browser (Chromium, JavaScript off): three answers typed on the page are exactly
the run's answers and are scored as a model's; the page fetches nothing off 127.0.0.1; a
session stopped by Ctrl-C or killed goes on from the first unanswered item. Without a
browser: the page's guards (its address, its form token, its Content-Security-Policy) and
the options a user can get wrong.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.eval import human
from hopvista.eval.backends import ModelError, Prompt, PromptImage, Reply
from hopvista.eval.human import CONTENT_SECURITY_POLICY, Human
from hopvista.eval.prompts import DEFAULT_SETTING, build_prompt, default_template, setting
from hopvista.eval.runner import score_response
from hopvista.model.dataset import load
from tests.conftest import build_dataset

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5"
    "ErkJggg==")


# --- the page's guards, in-process ---------------------------------------------------------

class _Session:
    """A :class:`Human` serving its page, and a thread asking it one prompt."""

    def __init__(self, prompt: Prompt) -> None:
        self.lines: list[str] = []
        self.model = Human({}, announce=self.lines.append)
        self.model.prepare([], None)  # type: ignore[arg-type]
        self.reply: list[Reply] = []
        self.failed: list[ModelError] = []
        self.thread = threading.Thread(target=self._ask, args=(prompt,), daemon=True)
        self.thread.start()

    def _ask(self, prompt: Prompt) -> None:
        try:
            self.reply.append(self.model.answer(prompt))
        except ModelError as exc:
            self.failed.append(exc)

    def get(self, host: str | None = None) -> tuple[int, dict[str, str], str]:
        request = urllib.request.Request(self.model.url)
        if host is not None:
            request.add_unredirected_header("Host", host)
        return _open(request)

    def post(self, **fields: str) -> tuple[int, dict[str, str], str]:
        body = urllib.parse.urlencode(fields).encode()
        return _open(urllib.request.Request(self.model.url + "answer", data=body))


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _open(request: urllib.request.Request) -> tuple[int, dict[str, str], str]:
    """Status, headers and body of ``request`` (a redirect is not followed)."""
    try:
        with _OPENER.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def _token(page: str) -> str:
    found = re.search(r'name="token" value="([^"]*)"', page)
    assert found, page
    return found.group(1)


@pytest.fixture
def session() -> Iterator[_Session]:
    prompt = Prompt(("Is <b>this</b> true?\n", PromptImage(PNG, "chart"), "\nAnswer: 1"))
    served = _Session(prompt)
    yield served
    # End as a browser would after its last answer: it follows the redirect and is told the
    # session ended (else the server would wait a few seconds for it).
    closing = threading.Thread(target=served.model.close)
    closing.start()
    with contextlib.suppress(OSError):  # the server had stopped: no page was expected
        served.get()
    closing.join(10)


def test_the_page_shows_the_prompt_in_order_and_loads_nothing(session: _Session) -> None:
    status, headers, page = session.get()
    assert status == 200
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY
    assert "<script" not in page
    prompt = page[page.index('id="prompt"'):page.index("</form>")]
    text, image = prompt.index("Is &lt;b&gt;this&lt;/b&gt; true?"), prompt.index("<img")
    assert text < image < prompt.index("Answer: 1")  # the prompt's order, its text escaped
    assert f'src="data:image/png;base64,{base64.b64encode(PNG).decode()}"' in prompt
    assert session.lines == [f"answer the items at {session.model.url} (Ctrl-C stops; the "
                             "same command goes on from the first unanswered item)"]


def test_an_answer_needs_the_form_of_the_item_shown(session: _Session) -> None:
    _, _, page = session.get()
    assert session.post(token="stale", answer="1")[0] == 303  # not taken
    assert not session.reply
    _, _, again = session.post(token=_token(page), answer="  ")
    assert "Type an answer first" in again and not session.reply
    session.post(token=_token(page), answer="Answer: 1\r\n")
    session.thread.join(10)
    assert session.reply[0].text == "Answer: 1\n"
    assert session.reply[0].seconds is not None and session.reply[0].seconds >= 0


def test_a_request_to_another_name_is_refused(session: _Session) -> None:
    status, _, body = session.get(host="attacker.example:80")
    assert (status, body) == (421, "wrong host")


def test_a_closed_session_gives_the_waiting_item_no_answer(session: _Session) -> None:
    session.model.close()
    session.thread.join(10)
    assert not session.thread.is_alive() and not session.reply
    assert [str(e) for e in session.failed] == [
        "the session ended before this item was answered"]


def test_an_item_just_answered_is_not_shown_again_while_the_run_takes_the_answer() -> None:
    """The browser follows the answer's redirect at once; the run's thread may not have
    taken the answer yet (held off here by holding the desk's lock, as a loaded machine
    may): the page must not show the answered item again."""
    desk = human._Desk(2)
    prompt = Prompt(("Is this true?\nAnswer: 1",))
    asking = threading.Thread(target=desk.ask, args=(prompt,), daemon=True)
    asking.start()
    asked = desk.shown(5)
    assert asked is not None
    with desk._changed:  # the run's thread cannot wake until this block ends
        assert desk.take(asked.token, "Answer: 1")
        assert desk.shown(0) is None
    asking.join(5)
    assert not asking.is_alive() and desk.answered == 1


def test_the_last_answers_redirect_is_told_the_session_ended(session: _Session) -> None:
    """The run ends as soon as the last answer is taken: the page's redirect, which comes
    after, still finds the server and is told the session ended."""
    _, _, page = session.get()
    assert session.post(token=_token(page), answer="Answer: 1")[0] == 303
    session.thread.join(10)
    closing = threading.Thread(target=session.model.close)
    closing.start()
    time.sleep(0.3)  # the run has ended; the browser follows the redirect now
    _, _, done = session.get()
    closing.join(10)
    assert 'id="done"' in done and not closing.is_alive()


def test_a_waiting_page_that_reloads_as_the_run_ends_is_told_it_ended(
        session: _Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last answer is given; the run ends while the page, told "waiting", is about to
    reload: the server stays up until that reload has been told the session ended."""
    monkeypatch.setattr(human, "WAIT_SECONDS", 0.05)
    _, _, page = session.get()
    session.post(token=_token(page), answer="Answer: 1")
    session.thread.join(10)
    _, _, waiting = session.get()  # no item is asked: "waiting", and the page reloads
    assert 'http-equiv="refresh"' in waiting and 'id="done"' not in waiting
    closing = threading.Thread(target=session.model.close)
    closing.start()
    time.sleep(0.3)  # the run has ended; the page reloads now
    _, _, done = session.get()
    closing.join(10)
    assert 'id="done"' in done and not closing.is_alive()


@pytest.mark.parametrize(("option", "message"), [
    ("port=99999", "gen: error: --option port=99999: must be a port number from 0 to 65535 "
                   "(0: a free one)"),
    ("colour=red", "gen: error: --option colour: the model human has no such option (its "
                   "options: person, port)"),
])
def test_a_bad_option_is_one_line_and_writes_nothing(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str,
        message: str) -> None:
    run = tmp_path / "run"
    assert main(["eval", str(tiny), "--model", "human", "--option", option,
                 "--out", str(run)]) == 2
    assert capsys.readouterr().err.strip() == message
    assert not run.exists()


def test_a_port_in_use_is_one_line_and_writes_nothing(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = tmp_path / "run"
        assert main(["eval", str(tiny), "--model", "human", "--option", f"port={port}",
                     "--setting", "chart-as-table", "--out", str(run)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"gen: error: --option port={port}: cannot listen on 127.0.0.1:{port}: Address "
        "already in use")
    assert not run.exists()


def test_self_refine_with_a_person_is_one_line_and_writes_nothing(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["eval", str(tiny), "--model", "human", "--strategy", "self-refine",
                 "--out", str(run)]) == 2
    assert capsys.readouterr().err.strip() == (
        "gen: error: --strategy self-refine: asks a second turn in one conversation, and the "
        "model human holds none (it has no converse(history, prompt) method)")
    assert not run.exists()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("human") / "tiny"
    build_dataset(out, "-n", "2", "--seed", "4", "--no-images", "--no-defences")
    return out


# --- a person in Chromium ------------------------------------------------------------------

class _Gen:
    """``gen eval DATASET --model human`` in a subprocess, and the page's address."""

    def __init__(self, dataset: Path, run: Path, limit: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hopvista.cli.main", "eval", str(dataset), "--model",
             "human", "--limit", str(limit), "--out", str(run), "--quiet"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        assert self.process.stderr is not None
        line = self.process.stderr.readline().decode()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, line + self.process.stderr.read().decode()
        self.url = found.group(0)

    def finish(self) -> tuple[int, str]:
        out, err = self.process.communicate(timeout=60)
        return self.process.returncode, err.decode()

    def stop(self, how: signal.Signals) -> tuple[int, str]:
        os.kill(self.process.pid, how)
        return self.finish()

    def await_done(self, page: Any) -> None:
        """Wait for the page to say the session ended; if it does not, fail with what the
        page shows and what gen said."""
        try:
            page.wait_for_selector("#done", timeout=20_000)
        except Exception as exc:
            running = self.process.poll() is None
            if running:
                self.process.kill()
            code, err = self.finish()
            raise AssertionError(f"no #done ({exc}); gen {'was running, ' if running else ''}"
                                 f"exit {code}: {err}\npage: {page.content()}") from None


def _expected_prompts(dataset: Path, count: int) -> list[Prompt]:
    """The prompts the runner sends a model for the first ``count`` items."""
    data = load(dataset)
    items = [item for _, item in zip(range(count), data, strict=False)]
    how = setting(DEFAULT_SETTING)
    return [build_prompt(item, data, how, default_template(item.kind), None) for item in items]


def _answer(page: Any, url: str, text: str, expected: Prompt) -> None:
    """Open the page, check it shows ``expected`` as the runner builds it, answer, and
    return once the page that follows has loaded."""
    page.goto(url)
    shown = [element.get_attribute("src") or element.text_content()
             for element in page.query_selector_all("#prompt > *")]
    assert shown == [
        "data:image/png;base64," + base64.b64encode(part.png).decode()
        if isinstance(part, PromptImage) else part for part in expected.parts]
    page.fill("#answer", text)
    with page.expect_navigation(timeout=30_000):  # the next page (an item, or "waiting")
        page.click("#submit")


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_a_person_answers_three_items_and_the_run_scores_exactly_those(
        six: Path, tmp_path: Path, chromium: Any) -> None:
    data = load(six)
    items = [item for _, item in zip(range(3), data, strict=False)]
    right = "Answer: " + (", ".join(str(n + 1) for n, s in enumerate(items[0].statements)
                                    if s.label) or "none")
    typed = [right, "I think\nAnswer: 1, 2, 3", "none"]
    prompts = _expected_prompts(six, 3)
    run = tmp_path / "run"
    gen = _Gen(six, run, 3)
    context = chromium.new_context(java_script_enabled=False)
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    try:
        for text, prompt in zip(typed, prompts, strict=True):
            _answer(page, gen.url, text, prompt)
        gen.await_done(page)
        code, err = gen.finish()
    finally:
        context.close()
        if gen.process.poll() is None:
            gen.process.kill()
    assert code == 0, err
    results = _results(run)
    assert [r["response"] for r in results] == typed
    assert [r["correct"] for r in results] == [
        score_response(item, text)[0].correct for item, text in zip(items, typed, strict=True)]
    assert results[0]["correct"] is True
    assert all(r["seconds"] > 0 and r["cost"] is None for r in results)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["answered"] == 3 and summary["seconds"]["items"] == 3
    assert "Time per item" in (run / "report.html").read_text()
    origin = gen.url.rstrip("/")
    assert requested and all(u.startswith((origin + "/", "data:")) for u in requested), requested


@pytest.mark.slow
def test_a_stopped_or_killed_session_goes_on_from_the_first_unanswered_item(
        six: Path, tmp_path: Path, chromium: Any) -> None:
    typed = ["Answer: 1", "Answer: none", "Answer: 2, 3"]
    prompts = _expected_prompts(six, 3)
    run = tmp_path / "run"
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        gen = _Gen(six, run, 3)  # Ctrl-C after the first answer
        _answer(page, gen.url, typed[0], prompts[0])
        page.wait_for_selector("#prompt")  # the second item is shown: the first is kept
        code, err = gen.stop(signal.SIGINT)
        assert code == 130 and "Traceback" not in err, err
        gen = _Gen(six, run, 3)  # killed after the second
        _answer(page, gen.url, typed[1], prompts[1])
        page.wait_for_selector("#prompt")
        code, err = gen.stop(signal.SIGKILL)
        assert code == -signal.SIGKILL
        gen = _Gen(six, run, 3)  # the third, and the run is written
        _answer(page, gen.url, typed[2], prompts[2])
        gen.await_done(page)
        code, err = gen.finish()
    finally:
        context.close()
        if gen.process.poll() is None:
            gen.process.kill()
    assert code == 0, err
    results = _results(run)
    assert [r["response"] for r in results] == typed
    assert [r["cached"] for r in results] == [True, True, False]
    assert all(r["seconds"] > 0 for r in results)
