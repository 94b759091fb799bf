"""``openai:NAME``: any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, LM Studio,
OpenRouter, …) through the ``openai`` package.

Options (``gen eval --base-url URL --option KEY=VALUE``), each checked before anything is
asked or written (``UserError`` naming the option otherwise):

``base_url``
    The endpoint (default: ``OPENAI_BASE_URL``, else OpenAI's): an ``http`` or ``https`` URL
    with a host (a name or an IP address) and optionally a port and a path; no user name or
    password (the key goes in ``OPENAI_API_KEY``), query or fragment. The key is read from
    ``OPENAI_API_KEY``; a local endpoint that needs none may leave it unset.
``temperature`` (0 to 2, default 0), ``max_tokens`` (1 to 2,147,483,647, default: the
server's), ``seed`` (a 64-bit integer)
    Sent with each request (and part of the cache key).
``timeout`` (seconds, more than 0 and at most 86,400, default 120), ``max_retries`` (0 to
20, default 4)
    The client retries 408, 409, 429, 5xx answers, timeouts and dropped connections with
    exponential backoff, honouring ``Retry-After``; a request that still fails raises
    :class:`~hopvista.eval.backends.ModelError` (an error of the item, asked again by a later run).

Numbers are written in ASCII digits (``0.7``, ``1e-3``, ``512``); NaN and infinities are
refused.

**What a server sends is not trusted.** Its body is read up to :data:`MAX_BODY_BYTES`, within
``timeout`` seconds, uncompressed (requests ask for no content coding), and parsed here: a
reply that is not a JSON object with a non-empty ``choices`` list whose first ``message``
has text (or null) ``content``, or whose ``usage`` holds anything but token counts, is an
error of the item (``malformed response: …``), as is one the client fails to handle.

Images go as base64 ``data:image/png`` URLs, in the prompt's order among its text parts. A
conversation (:meth:`OpenAIChat.converse`) sends each earlier turn as a user message and the
assistant's answer, then the new prompt.
The key is never stored: not in the cache key, the run, the results or an error message, and
:meth:`OpenAIChat.secrets` hands it (with the organisation and project the client sends as
headers) to the evaluator, which redacts it from everything it writes
(:mod:`hopvista.eval.clean`).
"""

from __future__ import annotations

import base64
import ipaddress
import json
import math
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from hopvista.errors import UserError
from hopvista.eval.backends import MODELS, Exchange, ModelError, Prompt, PromptImage, Reply
from hopvista.eval.replies import check_tokens

DEFAULTS = {"temperature": "0", "timeout": "120", "max_retries": "4"}
SENT = ("temperature", "max_tokens", "seed")
KNOWN = {"model", "base_url", *SENT, "timeout", "max_retries"}
MAX_BODY_BYTES = 16 * 1024 * 1024
"""The largest response body read."""
LONGEST_NUMBER = 30
"""Digits of a JSON integer the reply parser reads as a number (longer: not a count)."""

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")


@dataclass(frozen=True)
class _Range:
    """What an option may be: an integer or a number between bounds."""

    integer: bool
    low: float
    high: float
    low_open: bool
    text: str


RANGES = {
    "temperature": _Range(False, 0.0, 2.0, False, "a number from 0 to 2"),
    "max_tokens": _Range(True, 1, 2**31 - 1, False, "an integer from 1 to 2147483647"),
    "seed": _Range(True, -(2**63), 2**63 - 1, False, "an integer of 64 bits"),
    "timeout": _Range(False, 0.0, 86400.0, True, "seconds, more than 0 and at most 86400"),
    "max_retries": _Range(True, 0, 20, False, "an integer from 0 to 20"),
}


def _shown(value: str) -> str:
    return value if len(value) <= 40 else value[:40] + "…"


def option_value(options: Mapping[str, str], key: str) -> int | float | None:
    """Option ``key`` (or its default) read and checked against :data:`RANGES`; ``None``
    when neither is given. ``UserError`` naming the option otherwise."""
    value = options.get(key, DEFAULTS.get(key))
    if value is None:
        return None
    bounds = RANGES[key]
    text = value.strip()
    number: int | float
    if bounds.integer and _INTEGER.fullmatch(text) and len(text) <= 40:
        number = int(text)
    elif not bounds.integer and _DECIMAL.fullmatch(text) and len(text) <= 40:
        number = float(text)
    else:
        number = math.nan
    too_low = number <= bounds.low if bounds.low_open else number < bounds.low
    if not math.isfinite(number) or too_low or number > bounds.high:
        raise UserError(f"--option {key}={_shown(value)}: must be {bounds.text}")
    return number


def endpoint(value: str, where: str = "--base-url") -> str:
    """``value`` if it is an http(s) URL with a valid host and no credentials, query or
    fragment; ``UserError`` naming ``where`` and what is wrong otherwise."""
    def refuse(why: str, shown: str | None = value) -> UserError:
        return UserError(f"{where} {_shown(shown)!r}: {why}" if shown is not None
                         else f"{where}: {why}")

    if not value or any(c.isspace() or not c.isprintable() for c in value):
        raise refuse("not a URL (empty, or with spaces or control characters)")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - reading it checks it
    except ValueError as exc:
        raise refuse(f"not a URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise refuse("not an http:// or https:// URL (e.g. http://localhost:8000/v1)")
    if parts.username is not None or parts.password is not None:
        raise refuse("holds a user name or password (not shown here); give the key in "
                     "OPENAI_API_KEY", None)
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        raise refuse("has a query or a fragment (not shown here); give the endpoint only",
                     value.split("?")[0].split("#")[0])
    if not _valid_host(parts.hostname or ""):
        raise refuse("has no valid host name or IP address")
    return value


def _valid_host(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    try:
        name = host.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    labels = name[:-1].split(".") if name.endswith(".") else name.split(".")
    return 0 < len(name) <= 253 and all(_LABEL.fullmatch(label) for label in labels)


class ReplyRefused(Exception):
    """A response body the client must not read further (too large, too slow, encoded)."""


def _bounded_body(stream: Any, limit: int, seconds: float) -> Any:
    """A response's raw byte stream, stopped past ``limit`` bytes or ``seconds``."""
    import httpx2

    class BoundedBody(httpx2.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            read = 0
            deadline = time.monotonic() + seconds
            for chunk in stream:
                read += len(chunk)
                if read > limit:
                    raise ReplyRefused(f"the response is larger than {limit:,} bytes")
                if time.monotonic() > deadline:
                    raise ReplyRefused(f"the response took more than {seconds:g} s to arrive")
                yield chunk

        def close(self) -> None:
            stream.close()

    return BoundedBody()


def _bounding_hook(seconds: float) -> Any:
    """An httpx response hook bounding the body of every response (errors' too)."""
    def bound(response: Any) -> None:
        coding = response.headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("", "identity"):
            raise ReplyRefused(f"the response is compressed ({_shown(coding)}) though "
                               "none was asked for")
        response.stream = _bounded_body(response.stream, MAX_BODY_BYTES, seconds)
    return bound


@MODELS.register("openai")
class OpenAIChat:
    """A chat model behind an OpenAI-compatible endpoint (``api_key``, when given, is sent
    instead of ``OPENAI_API_KEY``)."""

    def __init__(self, options: Mapping[str, str], api_key: str | None = None) -> None:
        unknown = sorted(set(options) - KNOWN)
        if unknown:
            raise UserError(f"--option {unknown[0]}: openai:NAME has no such option "
                            f"(options: {', '.join(sorted(KNOWN - {'model'}))})")
        self.name = options.get("model") or ""
        if not self.name:
            raise UserError("--model openai:NAME: give the model's name after the colon")
        if options.get("base_url"):
            self.base_url: str | None = endpoint(options["base_url"])
        elif os.environ.get("OPENAI_BASE_URL"):
            self.base_url = endpoint(os.environ["OPENAI_BASE_URL"], "OPENAI_BASE_URL")
        else:
            self.base_url = None
        self.parameters: dict[str, Any] = {key: option_value(options, key) for key in SENT}
        self.parameters = {k: v for k, v in self.parameters.items() if v is not None}
        timeout = float(option_value(options, "timeout") or 0)
        retries = int(option_value(options, "max_retries") or 0)
        try:
            import openai
        except ImportError:
            raise UserError("openai:…: install the openai package (pip install openai)") \
                from None
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if not key and self.base_url is None:
            raise UserError("openai:…: set OPENAI_API_KEY (or --base-url for a local server)")
        self._errors = openai
        self._client = openai.OpenAI(
            api_key=key or "unused", base_url=self.base_url, timeout=timeout,
            max_retries=retries, default_headers={"Accept-Encoding": "identity"},
            http_client=openai.DefaultHttpxClient(
                event_hooks={"response": [_bounding_hook(timeout)]}))

    def cache_identity(self) -> dict[str, Any]:
        """What, besides the prompt, decides the answer (the cache key; no key in it)."""
        return {"model": f"openai:{self.name}", "endpoint": self.base_url,
                "parameters": self.parameters}

    def secrets(self) -> list[str]:
        """What the requests carry that must stay off disk: the key, and the organisation
        and project the client sends as headers."""
        client = self._client
        found = [client.api_key, getattr(client, "organization", None),
                 getattr(client, "project", None)]
        return [s for s in found if isinstance(s, str) and s]

    def answer(self, prompt: Prompt, seed: int | None = None) -> Reply:
        """Ask the endpoint (with ``seed`` instead of the ``seed`` option, when given)."""
        return self._complete([_message(prompt)], seed)

    def converse(self, history: Sequence[Exchange], prompt: Prompt) -> Reply:
        """Ask ``prompt`` as the next user message after ``history``, each earlier turn sent
        as its user message and the assistant's answer."""
        messages: list[dict[str, Any]] = []
        for turn in history:
            messages += [_message(turn.prompt), {"role": "assistant", "content": turn.reply}]
        return self._complete([*messages, _message(prompt)], None)

    def _complete(self, messages: Any, seed: int | None) -> Reply:
        """The endpoint's reply to ``messages``; ``ModelError`` when it fails for good."""
        parameters = self.parameters if seed is None else self.parameters | {"seed": seed}
        try:
            raw = self._client.chat.completions.with_raw_response.create(
                model=self.name, messages=messages, **parameters)
            body = raw.http_response.content
        except ReplyRefused as exc:
            raise ModelError(f"malformed response: {exc}") from None
        except self._errors.APIStatusError as exc:
            raise ModelError(f"HTTP {exc.status_code}: {_short(exc.message)}") from None
        except self._errors.APITimeoutError:
            raise ModelError("timed out") from None
        except self._errors.APIConnectionError as exc:
            raise ModelError(f"connection failed: {_short(str(exc))}") from None
        except self._errors.OpenAIError as exc:
            raise ModelError(f"{type(exc).__name__}: {_short(str(exc))}") from None
        except Exception as exc:  # the client tripped over what the server sent
            raise ModelError(f"malformed response: {type(exc).__name__}: "
                             f"{_short(str(exc))}") from None
        return read_reply(body)


def read_reply(body: bytes) -> Reply:
    """The reply in a chat completion's JSON body; ``ModelError`` (``malformed response:
    …``) for any other body."""
    try:
        data = json.loads(body.decode("utf-8", "replace"), parse_int=_count)
    except (ValueError, RecursionError) as exc:
        raise ModelError(f"malformed response: not JSON ({_short(str(exc))})") from None
    if not isinstance(data, dict):
        raise ModelError(f"malformed response: a JSON {_kind(data)}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise ModelError(f"malformed response: choices is a JSON {_kind(choices)}, not a list")
    if not choices:
        raise ModelError("malformed response: no choices (an empty list)")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise ModelError("malformed response: the first choice has no message")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ModelError(f"malformed response: the message's content is a JSON "
                         f"{_kind(content)}, not text")
    usage = data.get("usage")
    if usage is None:
        usage = {}
    if not isinstance(usage, dict):
        raise ModelError(f"malformed response: usage is a JSON {_kind(usage)}, not an object")
    tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
    check_tokens("input", tokens[0])
    check_tokens("output", tokens[1])
    return Reply(content or "", *tokens)


def _count(digits: str) -> int | float:
    """A JSON integer, or infinity when it is too long to be any count."""
    return int(digits) if len(digits) <= LONGEST_NUMBER else math.inf


def _kind(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean",
             type(None): "null", int: "number", float: "number"}
    return names.get(type(value), type(value).__name__)


def _message(prompt: Prompt) -> dict[str, Any]:
    """``prompt`` as a user message: its text, or its parts when it shows images."""
    content: str | list[dict[str, Any]] = \
        [_part(p) for p in prompt.parts] if prompt.images else prompt.text
    return {"role": "user", "content": content}


def _part(part: str | PromptImage) -> dict[str, Any]:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    url = "data:image/png;base64," + base64.b64encode(part.png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


def _short(text: str) -> str:
    """``text`` on one line of at most 200 characters, printable, without the key."""
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        text = text.replace(key, "***")
    line = " ".join("".join(c if c.isprintable() else " " for c in text[:2000]).split())
    return line[:200]
