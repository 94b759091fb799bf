"""A program's numbers: decimal strings without separators, read exactly."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

_PLAIN_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
#: Longest number text read: a longer one is not a displayed value (and could overflow).
MAX_NUMBER_CHARS = 40


def program_number(text: Any) -> Decimal:
    """A program's number ("-1234.5": a decimal string without separators), exactly.

    ``ValueError`` for anything else: NaN, infinities, exponents, non-strings, huge texts.
    """
    if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS or \
            not _PLAIN_DECIMAL.fullmatch(text):
        raise ValueError(f"not a decimal number: {str(text)[:40]!r}")
    return Decimal(text)
