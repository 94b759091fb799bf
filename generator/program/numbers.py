"""A program's numbers: decimal strings without separators, read exactly."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Any

_PLAIN_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
#: Longest number text read: a longer one is not a displayed value (and could overflow).
MAX_NUMBER_CHARS = 40
#: Most digits before the point of a number an answer or a cell may hold.
MAX_DIGITS = 60
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_CURRENCY = "$€£¥"


def program_number(text: Any) -> Decimal:
    """A program's number ("-1234.5": a decimal string without separators), exactly.

    ``ValueError`` for anything else: NaN, infinities, exponents, non-strings, huge texts.
    """
    if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS or \
            not _PLAIN_DECIMAL.fullmatch(text):
        raise ValueError(f"not a decimal number: {str(text)[:40]!r}")
    return Decimal(text)


def read_number(value: Any) -> Decimal | None:
    """``value`` as an exact decimal, or ``None`` when it is not a single number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _bounded(Decimal(value) if isinstance(value, int) else Decimal(str(value)))
    if not isinstance(value, str) or len(value) > 4 * MAX_DIGITS:
        return None
    text = unicodedata.normalize("NFKC", value).strip().replace("\u2212", "-")
    negative = text.startswith("(") and text.endswith(")")
    text = text.strip("()").strip().rstrip("%").strip().replace(",", "").replace(" ", "")
    text = text.lstrip(_CURRENCY) if not text.startswith("-") else \
        "-" + text[1:].lstrip(_CURRENCY)
    if not _NUMBER.fullmatch(text):
        return None
    number = _bounded(Decimal(text))
    return -number if negative and number is not None else number


def _bounded(number: Decimal) -> Decimal | None:
    """``number`` when it is finite and has at most :data:`MAX_DIGITS` digits before the
    point."""
    if not number.is_finite() or number.adjusted() >= MAX_DIGITS:
        return None
    return number
