"""How values are shown: numbers rounded to a column's precision and their text form, and
which texts can be shown at all.

Labels are computed from *displayed* values, so the table image, the table JSON and the
statements can never disagree by a rounding step.
"""

from __future__ import annotations

import unicodedata
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

#: Values a table or chart shows are below this in magnitude: a reader takes in fifteen
#: digits before the point at most, and floats (chart scales, fitted relations) hold every
#: integer below it exactly.
MAX_SHOWN_MAGNITUDE = Decimal("1e15")
#: Significant digits a shown value has at most (leading and trailing zeros aside): a float
#: holds any decimal of fifteen significant digits exactly enough to give it back.
MAX_SIGNIFICANT_DIGITS = 15


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


def value_significant_digits(value: Decimal) -> int:
    """How many significant digits a finite ``value`` has, trailing zeros not counted
    (``Decimal('120.50')`` has 4): what it takes to show the value exactly."""
    nonzero = [i for i, digit in enumerate(value.as_tuple().digits) if digit]
    return nonzero[-1] - nonzero[0] + 1 if nonzero else 0


def written_significant_digits(number: str) -> int:
    """How many significant digits a number has as written, trailing zeros counted ("300" has
    3, "0.050" has 2, "1,200.5" has 5): the precision its writer claims."""
    return len(number.replace(",", "").replace(".", "").lstrip("0"))


def unshowable_number(value: Decimal, precision: int) -> str | None:
    """Why ``value`` cannot be shown in a table or chart at ``precision`` decimals, or
    ``None``: it is not finite, its magnitude is :data:`MAX_SHOWN_MAGNITUDE` or more, or the
    value as shown has more than :data:`MAX_SIGNIFICANT_DIGITS` significant digits. The one
    bound of what a source may show and what ``gen verify`` accepts as shown."""
    if not value.is_finite():
        return "is not a finite number"
    if value.is_zero():
        return None  # whatever exponent it is written with
    written = value.as_tuple().digits
    if len(written) <= MAX_SIGNIFICANT_DIGITS and value.adjusted() < \
            MAX_SHOWN_MAGNITUDE.adjusted():
        return None  # rounding it can only drop digits, and it cannot reach the bound
    if value.adjusted() >= MAX_SHOWN_MAGNITUDE.adjusted() or \
            abs(shown(value, precision)) >= MAX_SHOWN_MAGNITUDE:
        return f"is too large to show (a table or chart shows magnitudes below " \
               f"1e{MAX_SHOWN_MAGNITUDE.adjusted()})"
    digits = value_significant_digits(shown(value, precision))
    if digits > MAX_SIGNIFICANT_DIGITS:
        return f"has {digits} significant digits as shown with {precision} decimal(s) " \
               f"(at most {MAX_SIGNIFICANT_DIGITS})"
    return None
