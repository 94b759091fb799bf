"""Model responses on disk, keyed by what was asked: a rerun costs nothing and an interrupted
run resumes where it stopped.

The key is a SHA-256 of the model's name, its endpoint and request parameters (what its
``cache_identity()`` says), and the prompt (each text part, and each image's role and
SHA-256; for a conversation's later turn, every earlier prompt and answer too) — never of an
API key. Only models with a ``cache_identity`` are cached. One JSON file per response
(``ab/abcdef….json``), written atomically as the response arrives, so a run killed at any
moment loses at most the requests then in flight. Only answers are kept: a request that
failed is asked again by the next run.

An entry is trusted no more than a reply: one that is not a regular file, is larger than
:data:`MAX_ENTRY_BYTES`, is not JSON or does not hold what :func:`checked_reply` accepts
(written by another version, damaged, or put there by hand) counts as missing, and is
replaced by the next answer.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.eval.backends import Exchange, ModelError, Prompt, Reply
from hopvista.eval.replies import MAX_REPLY_CHARS, checked_reply
from hopvista.output import atomic

MAX_ENTRY_BYTES = 8 * MAX_REPLY_CHARS
"""The largest cache file read (a reply of the longest length, every character escaped)."""


def prompt_digest(prompt: Prompt) -> str:
    """A SHA-256 of a prompt: each text part, and each image's role and SHA-256."""
    parts = [p if isinstance(p, str) else {"image": p.role,
                                           "sha256": hashlib.sha256(p.png).hexdigest()}
             for p in prompt.parts]
    material = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def conversation_digest(history: Sequence[Exchange], prompt: Prompt) -> str:
    """A SHA-256 of a conversation's next request: every earlier turn's prompt (its
    :func:`prompt_digest`) and answer, then the new prompt's digest."""
    turns = [[prompt_digest(turn.prompt), turn.reply] for turn in history]
    material = json.dumps({"turns": turns, "prompt": prompt_digest(prompt)},
                          ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def request_key(identity: dict[str, Any], digest: str) -> str:
    """The cache key of asking the prompt whose :func:`prompt_digest` is ``digest`` of the
    model ``identity`` describes (its name, endpoint and request parameters: the model's
    ``cache_identity()``)."""
    material = json.dumps({"model": identity, "prompt": digest}, sort_keys=True,
                          ensure_ascii=False)
    return hashlib.sha256(material.encode()).hexdigest()


class ResponseCache:
    """Cached replies under ``folder``; ``shown`` names it in messages (``--cache DIR``)."""

    def __init__(self, folder: Path, shown: str | None = None) -> None:
        self.folder = folder
        self.shown = shown or str(folder)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Reply | None:
        """The reply stored under ``key``, or ``None`` (a damaged entry counts as missing)."""
        data = _read_regular(self._path(key), MAX_ENTRY_BYTES)
        if data is None:
            return None
        try:
            record = json.loads(data.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return None
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            return None
        try:
            return checked_reply(Reply(record["text"], record.get("input_tokens"),
                                       record.get("output_tokens"), record.get("seconds")))
        except ModelError:
            return None

    def put(self, key: str, reply: Reply) -> None:
        """Store ``reply`` under ``key`` (not where a folder took the entry's place)."""
        path = self._path(key)
        record: dict[str, Any] = {"text": reply.text, "input_tokens": reply.input_tokens,
                                  "output_tokens": reply.output_tokens}
        if reply.seconds is not None:
            record["seconds"] = reply.seconds
        data = json.dumps(record, ensure_ascii=False).encode("utf-8", "replace")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic.write_atomic(path, data)
        except IsADirectoryError:
            return
        except OSError as exc:  # a full disk, a read-only folder
            raise UserError(f"{self.shown}: cannot write {path.relative_to(self.folder)}: "
                            f"{exc.strerror or exc}") from None


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not followed through a symlink) of at
    most ``limit`` bytes; ``None`` otherwise, or when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)
