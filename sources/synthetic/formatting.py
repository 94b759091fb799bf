"""How amounts, counts and lists are written in the text (USD millions, one decimal)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

TENTH = Decimal("0.1")


def shown(d: Decimal) -> Decimal:
    """Rounded half-up to one decimal, as tables show USD millions."""
    return d.quantize(TENTH, rounding=ROUND_HALF_UP)


def money(d: Decimal) -> str:
    """``Decimal('-4512.34') -> '$4,512.3 million'`` (absolute value)."""
    return f"${abs(shown(d)):,} million"


def money_f(x: float) -> str:
    """A float amount of USD millions, written like :func:`money`."""
    return money(Decimal(f"{x:.1f}"))


def money_fine(x: float) -> str:
    """Like :func:`money_f`, with two decimals below $10 million (fewer equal amounts)."""
    return f"${x:,.2f} million" if x < 10 else money_f(x)


def count(n: int) -> str:
    """``4512 -> '4,512'``."""
    return f"{n:,}"


def pct(x: float) -> str:
    """A percentage with one decimal, without the sign: ``12.345 -> '12.3'``."""
    return f"{x:.1f}"


def ratio(num: Decimal, den: Decimal) -> str:
    """``num / den`` as a percentage (``'38.2%'``), or ``''`` when ``den`` is not positive."""
    if den <= 0:
        return ""
    return f"{(num / den * 100).quantize(TENTH, rounding=ROUND_HALF_UP)}%"


def join(names: Sequence[str]) -> str:
    """``['a', 'b', 'c'] -> 'a, b and c'``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def norm(text: str) -> str:
    """Lower case, commas dropped, whitespace collapsed (how fact keys compare values)."""
    return " ".join(text.lower().replace(",", "").split())
