"""Strict JSON and a streaming line reader: nothing a corrupt file holds can crash the verifier.

``json.loads`` accepts things a dataset must not contain (``NaN``, ``Infinity``, ``1e999`` read
as an infinite float, duplicate keys of which the last silently wins) and raises
``RecursionError`` on deep nesting. :func:`parse_strict` turns all of these into
``ValueError`` with a short reason. :func:`read_lines` reads a file line by line in binary,
so memory stays flat however long the file is, and a line too long to be an item is skipped
without being held in memory.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Longest line accepted as an item (a generous bound: items are tens of kilobytes).
MAX_LINE_BYTES = 8 << 20


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]!r} is out of range")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key[:40]!r}")
        result[key] = value
    return result


def parse_strict(text: str) -> Any:
    """Parse JSON text; ``ValueError`` for invalid JSON, NaN/Infinity, out-of-range numbers,
    duplicate keys or nesting too deep to read."""
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise ValueError("nested too deeply") from None


@dataclass(frozen=True)
class Line:
    """One line of a JSON Lines file: its 1-based number and its text, or why it has none."""

    number: int
    text: str | None
    problem: str | None = None
    newline: bool = True


def _skip_rest_of_line(fh: Any) -> bool:
    """Consume the rest of an over-long line; whether it ended with a newline."""
    while True:
        block = fh.readline(1 << 20)
        if not block:
            return False
        if block.endswith(b"\n"):
            return True


def read_lines(path: Path, max_bytes: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """The lines of ``path`` (opened by the caller's checks as a regular file), one at a time.

    A line that is not UTF-8 or longer than ``max_bytes`` comes with ``text=None`` and a
    ``problem``; the last line says whether it ended with a newline.
    """
    with path.open("rb") as fh:
        number = 0
        while True:
            raw = fh.readline(max_bytes + 1)
            if not raw:
                return
            number += 1
            if len(raw) > max_bytes and not raw.endswith(b"\n"):
                newline = _skip_rest_of_line(fh)
                yield Line(number, None, f"longer than {max_bytes} bytes", newline)
                continue
            newline = raw.endswith(b"\n")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Line(number, None, f"not UTF-8 text (byte {exc.start + 1}: {exc.reason})",
                           newline)
                continue
            yield Line(number, text[:-1] if newline else text, None, newline)


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal with their types (``1``, ``1.0`` and ``true`` differ;
    key order does not matter)."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False
