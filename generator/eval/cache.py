"""Model responses on disk, keyed by what was asked: a rerun costs nothing and an interrupted
run resumes where it stopped.

The key is a SHA-256 of the model's name, its endpoint and request parameters (what its
``cache_identity()`` says), and the prompt (each text part, and each image's role and
SHA-256) — never of an API key. Only models with a ``cache_identity`` are cached. One JSON file
per response (``ab/abcdef….json``), written atomically as the response arrives, so a run
killed at any moment loses at most the requests then in flight. Only answers are kept: a
request that failed is asked again by the next run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hopvista.atomic import write_atomic
from hopvista.models import Prompt, Reply


def prompt_digest(prompt: Prompt) -> str:
    """A SHA-256 of a prompt: each text part, and each image's role and SHA-256."""
    parts = [p if isinstance(p, str) else {"image": p.role,
                                           "sha256": hashlib.sha256(p.png).hexdigest()}
             for p in prompt.parts]
    material = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(material.encode()).hexdigest()


def request_key(identity: dict[str, Any], digest: str) -> str:
    """The cache key of asking the prompt whose :func:`prompt_digest` is ``digest`` of the
    model ``identity`` describes (its name, endpoint and request parameters: the model's
    ``cache_identity()``)."""
    material = json.dumps({"model": identity, "prompt": digest}, sort_keys=True,
                          ensure_ascii=False)
    return hashlib.sha256(material.encode()).hexdigest()


class ResponseCache:
    """Cached replies under ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Reply | None:
        """The reply stored under ``key``, or ``None`` (a damaged entry counts as missing)."""
        try:
            record = json.loads(self._path(key).read_text(encoding="utf-8"))
            return Reply(str(record["text"]), record.get("input_tokens"),
                         record.get("output_tokens"))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, reply: Reply) -> None:
        """Store ``reply`` under ``key``."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"text": reply.text, "input_tokens": reply.input_tokens,
                  "output_tokens": reply.output_tokens}
        write_atomic(path, json.dumps(record, ensure_ascii=False).encode())
