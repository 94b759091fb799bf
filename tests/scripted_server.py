"""An OpenAI-compatible chat endpoint on loopback that answers from a script.

The script maps a *cue* (a piece of text the prompt contains, e.g. one of the item's
statements) to a list of behaviours, one per request carrying that cue; the last behaviour
repeats. A behaviour is a reply text, or one of:

``("status", CODE, HEADERS)``   an error answer (``{"error": {...}}``) with that status
``("sleep", SECONDS, TEXT)``     answer TEXT after SECONDS (past the client's timeout)
``("malformed",)``               a 200 whose body is not JSON
``("echo-key", CODE)``           an error whose message repeats the request's Authorization
``("echo-header", NAME)``        a 200 whose answer is the request's header NAME
``("call", FUNCTION)``          answer FUNCTION(prompt text): a reply computed from what was
                                 asked (a text, or any behaviour above)
``("raw", CODE, BODY, HEADERS)`` exactly BODY (bytes) with that status, as JSON unless HEADERS
                                 say otherwise; ``@HEADER@`` in BODY becomes the request's
                                 header HEADER (e.g. ``@Authorization@``)

Every request is counted per cue, with its headers, so tests can say what was asked.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = str | tuple[Any, ...]


class Script:
    """What the server answers, and what it was asked."""

    def __init__(self, script: dict[str, list[Behaviour]]) -> None:
        self.script = script
        self.requests: dict[str, int] = defaultdict(int)
        self.unmatched = 0
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()

    def next(self, prompt: str) -> Behaviour | None:
        with self.lock:
            for cue, behaviours in self.script.items():
                if cue in prompt:
                    n = self.requests[cue]
                    self.requests[cue] += 1
                    return behaviours[min(n, len(behaviours) - 1)]
            self.unmatched += 1
            return None


def _prompt_text(body: dict[str, Any]) -> str:
    texts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [p.get("text", "") for p in content if p.get("type") == "text"]
    return "\n".join(texts)


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with script.lock:
                script.bodies.append(body)
                script.headers.append({k.lower(): v for k, v in self.headers.items()})
            prompt = _prompt_text(body)
            behaviour = script.next(prompt)
            if isinstance(behaviour, tuple) and behaviour[0] == "call":
                behaviour = behaviour[1](prompt)
            if behaviour is None:
                self._json(404, {"error": {"message": "no script for this prompt"}})
                return
            if isinstance(behaviour, str):
                self._reply(body, behaviour)
                return
            kind = behaviour[0]
            if kind == "status":
                self._json(behaviour[1], {"error": {"message": f"scripted {behaviour[1]}",
                                                    "type": "scripted"}},
                           behaviour[2] if len(behaviour) > 2 else None)
            elif kind == "sleep":
                time.sleep(behaviour[1])
                with suppress(BrokenPipeError, ConnectionResetError):
                    self._reply(body, behaviour[2])
            elif kind == "malformed":
                data = b"<html>this is not json"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif kind == "echo-key":
                self._json(behaviour[1], {"error": {
                    "message": f"bad key {self.headers.get('Authorization')}"}})
            elif kind == "echo-header":
                self._reply(body, str(self.headers.get(behaviour[1])))
            elif kind == "raw":
                self._raw(behaviour[1], behaviour[2],
                          behaviour[3] if len(behaviour) > 3 else {})

        def _raw(self, code: int, data: bytes, headers: dict[str, str]) -> None:
            for name in re.findall(rb"@([A-Za-z-]+)@", data):
                value = str(self.headers.get(name.decode())).encode()
                data = data.replace(b"@" + name + b"@", value)
            self.send_response(code)
            sent = {"Content-Type": "application/json", "Content-Length": str(len(data)),
                    **headers}
            for key, value in sent.items():
                self.send_header(key, value)
            self.end_headers()
            with suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        def _reply(self, body: dict[str, Any], text: str) -> None:
            self._json(200, {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            })

    return Handler


@contextmanager
def serve(script: Script) -> Iterator[str]:
    """Run the server on 127.0.0.1 (a free port); yields its base URL (``…/v1``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    server.daemon_threads = True
    # shutdown() waits for serve_forever's next poll: a short one ends each test at once
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
