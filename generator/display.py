"""How values are shown: numbers rounded to a column's precision and their text form, and
which texts can be shown at all.

Labels are computed from *displayed* values, so the table image, the table JSON and the
statements can never disagree by a rounding step.
"""

from __future__ import annotations

import unicodedata
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache


def shown(value: Decimal, precision: int) -> Decimal:
    """The value as displayed: rounded half-up to ``precision`` decimals."""
    return value.quantize(Decimal(1).scaleb(-precision), rounding=ROUND_HALF_UP)


def fmt(value: Decimal, precision: int | None = None) -> str:
    """Text form with thousands separators: ``Decimal('-1234.5') -> '-1,234.5'``.

    With ``precision=None`` the value keeps exactly the decimals it has (thresholds at
    midpoints may carry one more decimal than the column shows), trailing zeros trimmed
    only beyond the value's own exponent.
    """
    if precision is not None:
        if value.is_finite():
            return _fmt_shown(value, precision)
        value = shown(value, precision)
        places = precision
    else:
        exponent = value.as_tuple().exponent
        places = max(0, -exponent) if isinstance(exponent, int) else 0
    return _text(value, places)


@lru_cache(maxsize=8192)
def _fmt_shown(value: Decimal, precision: int) -> str:
    """:func:`fmt` at a precision (remembered: it depends on the value alone, not on how
    many decimals it carries, and instance draws show the same values again and again)."""
    return _text(shown(value, precision), precision)


def _text(value: Decimal, places: int) -> str:
    text = f"{abs(value):,.{places}f}"
    return f"-{text}" if value < 0 else text


def midpoint(a: Decimal, b: Decimal) -> Decimal:
    """The exact midpoint of two displayed values, without superfluous trailing zeros."""
    mid = (a + b) / 2
    return mid.quantize(Decimal(1)) if mid == mid.to_integral_value() else trim(mid)


def trim(value: Decimal) -> Decimal:
    """``value`` without trailing zeros after its decimal point (``1.50 -> 1.5``)."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        return value
    while exponent < 0 and digits and digits[-1] == 0:
        digits = digits[:-1]
        exponent += 1
    return Decimal((sign, digits, exponent))


def parse_shown(text: str) -> Decimal:
    """A displayed value back to its exact decimal (``'-1,234.5' -> Decimal('-1234.5')``)."""
    return Decimal(text.replace(",", ""))


def undrawable(text: str) -> str | None:
    """Why ``text`` cannot be drawn as plain text in a chart or a table, or ``None``: a
    control character (plotly's SVG cannot hold one), a lone surrogate (matplotlib cannot
    encode one) or a Unicode noncharacter."""
    for char in text:
        code = ord(char)
        category = unicodedata.category(char)
        if category == "Cc":
            return f"has a control character (U+{code:04X})"
        if category == "Cs":
            return f"has a lone surrogate (U+{code:04X})"
        if 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
            return f"has a Unicode noncharacter (U+{code:04X})"
    return None
