"""A streaming line reader: nothing a corrupt file holds can crash the verifier.

:func:`read_lines` reads a file line by line in binary, so memory stays flat however long the
file is, and a line too long to be an item is skipped without being held in memory. Its JSON is
parsed by :func:`hopvista.model.strict_json.parse_strict`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Longest line accepted as an item (a generous bound: items are tens of kilobytes).
MAX_LINE_BYTES = 8 << 20


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
