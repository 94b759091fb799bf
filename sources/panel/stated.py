"""Which panel columns a passage states (so it never sits beside a chart of that column).

A passage *states* a column when it writes one of its entity's values of that column, in any
period: a number written in the text with ``d`` decimals (thousands separators allowed)
equals the value rounded to ``d`` decimals, or to the column's precision. Numbers with a
single significant digit ("3 lines", "9 districts") are too coarse to say which value they
are and are not matched; four-digit integers that read as years (1900-2099) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal

__all__ = ["columns_stated", "written_numbers"]

_NUMBER = re.compile(r"(?<![\w.])[+-]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|\.\d)")


def _significant(text: str) -> int:
    return len(text.replace(",", "").replace(".", "").lstrip("0").rstrip("0") or "")


def written_numbers(text: str) -> list[tuple[Decimal, int]]:
    """``(value, decimals)`` of each number written in ``text`` that could state a value."""
    out: list[tuple[Decimal, int]] = []
    for match in _NUMBER.finditer(text):
        whole, fraction = match.group(1), match.group(2) or ""
        if not fraction and "," not in whole and re.fullmatch(r"(?:19|20)\d\d", whole):
            continue
        if _significant(whole + fraction) < 2:
            continue
        out.append((abs(Decimal(whole.replace(",", "") + fraction)),
                    len(fraction) - 1 if fraction else 0))
    return out


def _rounded(value: Decimal, decimals: int) -> Decimal:
    return abs(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def columns_stated(text: str, values: Mapping[str, Sequence[Decimal | None]],
                   precision: Mapping[str, int]) -> frozenset[str]:
    """Keys of the columns whose values (of one entity, any period) ``text`` writes."""
    written = written_numbers(text)
    if not written:
        return frozenset()
    stated: set[str] = set()
    for key, series in values.items():
        for value in series:
            if value is None:
                continue
            if any(number in (_rounded(value, decimals), _rounded(value, precision[key]))
                   for number, decimals in written):
                stated.add(key)
                break
    return frozenset(stated)
