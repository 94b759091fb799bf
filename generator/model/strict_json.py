"""Strict JSON for what a dataset holds.

``json.loads`` accepts things a dataset must not contain (``NaN``, ``Infinity``, ``1e999`` read
as an infinite float, duplicate keys of which the last silently wins) and raises
``RecursionError`` on deep nesting. :func:`parse_strict` turns all of these into
``ValueError`` with a short reason.
"""

from __future__ import annotations

import json
import math
from typing import Any


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
