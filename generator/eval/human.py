"""``human``: a person answers the items on a page this machine serves, and the run is
written like any model's, so ``gen report`` sets people beside models.

``gen eval DATASET --model human --out RUN`` serves a page at ``http://127.0.0.1:PORT/`` (a
free port, printed on stderr; ``--option port=N`` for a fixed one) and asks the items one at
a time, in dataset order. Each item is shown exactly as a model is sent it in the run's
setting: the same :class:`~hopvista.eval.backends.Prompt`, its text parts and images in
order. The person types the answer as the prompt asks for it and submits the form; the
answer is parsed and scored by the same rules as a model's. The time from the moment an item
is first shown to the moment its answer arrives is the item's ``seconds`` in
``results.jsonl``.

Answers go to the run's cache as they arrive (:mod:`hopvista.eval.cache`, with the time
taken), so the session stops at any moment — every item answered, Ctrl-C, a closed
terminal — and the same command goes on from the first unanswered item (with another
``port`` too: it is how the page is served, not what is asked). ``--option person=NAME``
names the person in the run and in the cache key, so people sharing a ``--cache`` keep
their own answers.

The page needs no JavaScript (it has none) and loads nothing from the network: images are
``data:`` URLs, the style is inline, and a Content-Security-Policy forbids every other load.
The server listens on 127.0.0.1 only, answers requests addressed to it by that name (or
``localhost``) only, and takes an answer only with the form's token of the item shown, so a
stale page or another site cannot answer for the person.
"""

from __future__ import annotations

import base64
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from secrets import token_urlsafe
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jinja2 import Environment, StrictUndefined, Template

from hopvista.errors import UserError
from hopvista.eval.backends import MODELS, ModelError, Prompt, PromptImage, Reply, check_options
from hopvista.eval.replies import MAX_REPLY_CHARS
from hopvista.model import Item
from hopvista.model.dataset import Dataset

__all__ = ["CONTENT_SECURITY_POLICY", "HOST", "Human"]

HOST = "127.0.0.1"
KNOWN = {"port", "person"}
CONTENT_SECURITY_POLICY = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                           "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
"""What the page may load: its inline style and ``data:`` images, nothing else."""
MAX_FORM_BYTES = 4 * MAX_REPLY_CHARS
"""The largest form body read, in bytes."""
WAIT_SECONDS = 5.0
"""How long a page request waits for the next item before it answers "waiting"."""
REFRESH_SECONDS = 1
"""How soon a waiting page reloads itself."""
PERSON_CHARS = 100


Announce = Callable[[str], None]


def _announce_on_stderr(line: str) -> None:
    print(f"gen eval: {line}", file=sys.stderr, flush=True)


@dataclass
class _Asked:
    """The item asked now: its prompt, the token its form carries, when it was first shown,
    and the answer once given."""

    prompt: Prompt
    token: str
    shown_at: float | None = None
    answer: str | None = None
    seconds: float | None = None


class _Desk:
    """Between the run and the page: the item asked now, and the answer the page brings."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.answered = 0
        self._asked: _Asked | None = None
        self._closed = False
        self._serving = 0
        self._returning = False  # a page will ask again: it was answered, or told to wait
        self._told_done = False  # a page has been told the session ended
        self._changed = threading.Condition()

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Count a page request while it is answered (:meth:`close` lets it finish)."""
        with self._changed:
            self._serving += 1
        try:
            yield
        finally:
            with self._changed:
                self._serving -= 1
                self._changed.notify_all()

    def ask(self, prompt: Prompt) -> Reply:
        """Show ``prompt`` on the page and wait for its answer (``ModelError`` if the
        session ends first)."""
        asked = _Asked(prompt, token_urlsafe(16))
        with self._changed:
            if self._closed:
                raise ModelError("the session ended before this item was answered")
            self._asked = asked
            self._changed.notify_all()
            while asked.answer is None and not self._closed:
                self._changed.wait(0.5)  # a timeout, so that Ctrl-C is seen at once
            self._asked = None
            if asked.answer is None:
                raise ModelError("the session ended before this item was answered")
            self.answered += 1
            return Reply(asked.answer, seconds=asked.seconds)

    def shown(self, wait: float) -> _Asked | None:
        """The item to show (its first showing starts its clock), waiting at most ``wait``
        seconds for one; ``None`` if there is none (yet, or any more: :attr:`closed`). An
        item answered a moment ago is not shown again while the run takes its answer."""
        deadline = time.monotonic() + wait
        with self._changed:
            while self._unasked() and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._returning = True
                    return None
                self._changed.wait(left)
            asked = None if self._unasked() else self._asked
            self._returning = False
            if asked is None:
                self._told_done = True
                self._changed.notify_all()
            if asked is not None and asked.shown_at is None:
                asked.shown_at = time.monotonic()
            return asked

    def _unasked(self) -> bool:
        """Whether no item waits for an answer (call with the lock held)."""
        return self._asked is None or self._asked.answer is not None

    def take(self, token: str, answer: str) -> bool:
        """Give ``answer`` to the item whose form carries ``token``; ``False`` if that item
        is no longer asked (a page submitted twice, or from before a restart)."""
        with self._changed:
            asked = self._asked
            if asked is None or asked.answer is not None or token != asked.token:
                return False
            now = time.monotonic()
            asked.seconds = round(now - (asked.shown_at or now), 3)
            asked.answer = answer
            self._returning = True  # redirected to the page, which asks for the next item
            self._changed.notify_all()
            return True

    @property
    def closed(self) -> bool:
        """Whether the session has ended."""
        return self._closed

    def close(self, grace: float = 3 * REFRESH_SECONDS + 2) -> None:
        """End the session: a waiting item gets no answer, and a page that will ask for the
        next item (it was just answered, or told to wait and reloads itself) is told the
        session ended: a request waiting now is answered at once, one that comes within
        ``grace`` seconds still reaches the server (a page showing an item is not waited
        for)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            self._changed.wait_for(
                lambda: self._serving == 0 and (self._told_done or not self._returning), grace)


def _page_template() -> Template:
    source = resources.files("hopvista.templates.human").joinpath("page.html.j2")
    environment = Environment(autoescape=True, undefined=StrictUndefined)
    return environment.from_string(source.read_text(encoding="utf-8"))


def prompt_parts(prompt: Prompt) -> list[dict[str, str | None]]:
    """The prompt's parts as the page shows them: text, or an image as a ``data:`` URL
    (``text``, ``src`` and ``role``; ``None`` where a part has none)."""
    return [{"text": None, "src": _data_url(part), "role": part.role}
            if isinstance(part, PromptImage) else {"text": part, "src": None, "role": None}
            for part in prompt.parts]


def _data_url(image: PromptImage) -> str:
    return "data:image/png;base64," + base64.b64encode(image.png).decode("ascii")


class _Page:
    """The page: renders the desk's state."""

    def __init__(self, desk: _Desk) -> None:
        self.desk = desk
        self.template = _page_template()

    def render(self, asked: _Asked | None, note: str | None = None) -> bytes:
        state = "item" if asked is not None else "done" if self.desk.closed else "waiting"
        return self.template.render(
            state=state, parts=prompt_parts(asked.prompt) if asked is not None else [],
            token=asked.token if asked is not None else "", answered=self.desk.answered,
            total=self.desk.total, note=note, refresh=REFRESH_SECONDS).encode("utf-8")


class _Server(ThreadingHTTPServer):
    """The page's server: its request threads end with the process."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection the browser dropped is no concern of the run's; nothing printed."""


def _handler(page: _Page, port: Callable[[], int]) -> type[BaseHTTPRequestHandler]:
    """The request handler class serving ``page``."""

    class Handler(BaseHTTPRequestHandler):
        def version_string(self) -> str:
            """The ``Server`` header: no Python version."""
            return "hopvista"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            """Requests are not logged (the terminal shows the run's progress)."""

        def do_GET(self) -> None:  # noqa: N802
            if not self._addressed_here():
                return
            if urlsplit(self.path).path != "/":
                self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
                return
            with page.desk.serving():
                self._send(HTTPStatus.OK, page.render(page.desk.shown(WAIT_SECONDS)))

        def do_POST(self) -> None:  # noqa: N802
            if not self._addressed_here():
                return
            if urlsplit(self.path).path != "/answer":
                self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
                return
            with page.desk.serving():  # the session ends after the redirect is sent
                self._answer()

        def _answer(self) -> None:
            form = self._form()
            if form is None:
                return
            token, answer = form.get("token", ""), form.get("answer", "")
            if not answer.strip():
                asked = page.desk.shown(0)
                if asked is not None and asked.token == token:
                    self._send(HTTPStatus.OK, page.render(asked, "Type an answer first "
                                                          "(\"none\" is an answer)."))
                    return
            else:
                page.desk.take(token, answer.replace("\r\n", "\n"))
            self._redirect("/")

        def _addressed_here(self) -> bool:
            """Refuse a request addressed to another name (DNS rebinding)."""
            host = self.headers.get("Host", "")
            if host in {f"{HOST}:{port()}", f"localhost:{port()}"}:
                return True
            self._send(HTTPStatus.MISDIRECTED_REQUEST, b"wrong host", "text/plain")
            return False

        def _form(self) -> dict[str, str] | None:
            """The posted form's fields (their first values); ``None`` once refused."""
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                self._send(HTTPStatus.LENGTH_REQUIRED, b"length required", "text/plain")
                return None
            if not 0 <= length <= MAX_FORM_BYTES:
                self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, b"too large", "text/plain")
                return None
            body = self.rfile.read(length).decode("utf-8", "replace")
            try:
                fields = parse_qs(body, keep_blank_values=True, max_num_fields=8)
            except ValueError:  # more fields than the form has
                self._send(HTTPStatus.BAD_REQUEST, b"not this page's form", "text/plain")
                return None
            return {key: values[0] for key, values in fields.items() if values}

        def _redirect(self, where: str) -> None:
            self.send_response(HTTPStatus.SEE_OTHER)
            self.send_header("Location", where)
            self.send_header("Content-Length", "0")
            self._common_headers()
            self.end_headers()

        def _send(self, status: HTTPStatus, body: bytes,
                  kind: str = "text/html") -> None:
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self._common_headers()
            self.end_headers()
            self.wfile.write(body)

        def _common_headers(self) -> None:
            self.send_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("X-Frame-Options", "DENY")

    return Handler


def _port(options: Mapping[str, str]) -> int:
    text = options.get("port", "0").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 5 or int(text) > 65535:
        raise UserError(f"--option port={text[:40]}: must be a port number from 0 to 65535 "
                        "(0: a free one)")
    return int(text)


def _person(options: Mapping[str, str]) -> str | None:
    name = options.get("person")
    if name is None:
        return None
    if not name.strip() or len(name) > PERSON_CHARS or not name.isprintable():
        raise UserError(f"--option person={name[:40]!r}: must be a printable name of 1 to "
                        f"{PERSON_CHARS} characters")
    return name.strip()


@MODELS.register("human")
class Human:
    """A person, answering on a local page (see the module docstring)."""

    max_concurrency = 1

    def __init__(self, options: Mapping[str, str],
                 announce: Announce = _announce_on_stderr) -> None:
        check_options("human", options, KNOWN)
        self.port = _port(options)
        self.person = _person(options)
        self._announce = announce
        self._desk: _Desk | None = None
        self._server: _Server | None = None
        self._announced = False

    def cache_identity(self) -> dict[str, Any]:
        """The cache key's model part: a person (by name, when given), not a port."""
        return {"model": "human"} | ({"person": self.person} if self.person else {})

    def prepare(self, items: Sequence[Item], dataset: Dataset) -> None:
        """Start serving the page (``UserError`` if the port cannot be had); its address is
        printed when the first item is asked (a run whose answers are all cached asks
        none)."""
        del dataset
        desk = _Desk(len(items))
        try:
            server = _Server((HOST, self.port), _handler(
                _Page(desk), lambda: self.bound_port))
        except OSError as exc:
            raise UserError(f"--option port={self.port}: cannot listen on {HOST}:"
                            f"{self.port}: {exc.strerror or exc}") from None
        self._desk, self._server = desk, server
        threading.Thread(target=server.serve_forever, args=(0.1,), name="gen-eval-human",
                         daemon=True).start()

    @property
    def bound_port(self) -> int:
        """The port the page is served on."""
        return int(self._server.server_address[1]) if self._server is not None else self.port

    @property
    def url(self) -> str:
        """The page's address."""
        return f"http://{HOST}:{self.bound_port}/"

    def answer(self, prompt: Prompt) -> Reply:
        """Show ``prompt`` on the page and wait for the person's answer."""
        if self._desk is None:
            raise ModelError("the page is not served (the run did not prepare the model)")
        if not self._announced:
            self._announced = True
            self._announce(f"answer the items at {self.url} (Ctrl-C stops; the same command "
                           "goes on from the first unanswered item)")
        return self._desk.ask(prompt)

    def close(self) -> None:
        """End the session: the page says so, then the server stops."""
        if self._desk is not None:
            self._desk.close()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
