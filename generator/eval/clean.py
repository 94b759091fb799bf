"""What the evaluator writes is clean: secrets redacted, every value plain JSON.

**Secrets.** A :class:`Redactor` replaces every occurrence of a secret (the API key, and what
else a model sends with its requests: :func:`secrets_of`) with ``***`` in a text or in any
JSON-like value, in any letter case, and also every run of :data:`PARTIAL` or more characters
of a secret (a server that echoes ``Bearer <key>``, or the key cut short, loses it too). A
value shorter than :data:`SHORTEST` characters is no secret (``ollama``, ``EMPTY``, ``none``
are what local servers are given) and is left alone: redacting it would rewrite answers.

**Plain JSON.** :func:`plain` makes a value that ``json.dumps`` writes as valid UTF-8 JSON
whatever a model or a dataset put in it: a lone surrogate (``"\\ud800"`` in a reply's JSON,
which UTF-8 cannot encode) becomes U+FFFD, the replacement character; a NaN, an infinity or
an integer of more than 4,096 bits becomes ``null``; keys become strings; nesting deeper
than :data:`DEEPEST` becomes ``null``. It changes nothing in a value that is plain already.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from typing import Any

SHORTEST = 6
"""Secrets shorter than this are left alone."""
PARTIAL = 12
"""A run of this many characters of a secret is redacted wherever it appears."""
MASK = "***"
DEEPEST = 64
"""Nesting kept by :func:`plain`."""
LONGEST_INT_BITS = 4096
"""Integers longer than this are written as ``null`` (Python refuses to print the longest)."""
ENVIRONMENT_SECRETS = ("OPENAI_API_KEY",)
"""Environment variables redacted whatever the model (a plug-in may read them too)."""

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SURROGATE = re.compile("[\ud800-\udfff]")


def secrets_of(model: object) -> list[str]:
    """The secrets to keep off disk for ``model``: the values of
    :data:`ENVIRONMENT_SECRETS` and whatever the model's ``secrets()`` lists."""
    found = [os.environ.get(name) or "" for name in ENVIRONMENT_SECRETS]
    listed = getattr(model, "secrets", None)
    if callable(listed):
        found += [s for s in listed() if isinstance(s, str)]
    return found


class Redactor:
    """Replaces secrets in texts and JSON-like values (see the module docstring)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._windows: dict[int, set[str]] = {}
        for secret in {s.translate(_ASCII_LOWER) for s in secrets if len(s) >= SHORTEST}:
            size = min(PARTIAL, len(secret))
            self._windows.setdefault(size, set()).update(
                secret[i:i + size] for i in range(len(secret) - size + 1))

    def __bool__(self) -> bool:
        return bool(self._windows)

    def text(self, text: str) -> str:
        """``text`` with every secret and every long enough piece of one masked."""
        if not self._windows:
            return text
        folded = text.translate(_ASCII_LOWER)  # the same length as text
        spans: list[tuple[int, int]] = []
        for size, windows in self._windows.items():
            spans += [(i, i + size) for i in range(len(folded) - size + 1)
                      if folded[i:i + size] in windows]
        if not spans:
            return text
        parts, last = [], 0
        for start, end in _merged(spans):
            parts += [text[last:start], MASK]
            last = end
        parts.append(text[last:])
        return "".join(parts)

    def value(self, value: Any) -> Any:
        """``value`` with :meth:`text` applied to every string in it, keys included."""
        if not self._windows:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def plain_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON that encodes as UTF-8 (see the module docstring)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return plain_text(value)
    if isinstance(value, int):
        return value if value.bit_length() <= LONGEST_INT_BITS else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth >= DEEPEST:
        return None
    if isinstance(value, dict):
        return {plain_text(str(k)): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    return plain_text(str(value))


def json_line(value: Any) -> str:
    """``value`` as one line of JSON (keys sorted, non-ASCII kept), made :func:`plain`."""
    return json.dumps(plain(value), ensure_ascii=False, sort_keys=True, allow_nan=False)
