"""Which panel columns a passage states (so it never sits beside a chart of that column).

A passage *states* a column when it writes one of its entity's values of that column, in any
period, as :mod:`hopvista.stated_numbers` reads written numbers (the one implementation, which
the generator and the verifier use for chart values too): a number token that is the value
rounded to the token's decimals, or the same as the value at the column's precision
(thousands separators allowed). Numbers with a single significant digit ("3 lines",
"9 districts") are too coarse to say which value they are and state nothing; four-digit
integers that read as years (1800-2099) state only a value exactly equal to them; a number
inside another ("21" in "2021" or "1,021") is never read on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from hopvista.stated_numbers import number_tokens

__all__ = ["columns_stated", "written_numbers"]


def written_numbers(text: str) -> list[tuple[Decimal, int]]:
    """``(value, decimals)`` of each number written in ``text`` that could state a value by
    rounding (years and single-significant-digit numbers left out)."""
    return [(t.value, t.decimals) for t in number_tokens(text)
            if t.significant >= 2 and not t.year]


def columns_stated(text: str, values: Mapping[str, Sequence[Decimal | None]],
                   precision: Mapping[str, int]) -> frozenset[str]:
    """Keys of the columns whose values (of one entity, any period) ``text`` writes."""
    tokens = number_tokens(text)
    if not tokens:
        return frozenset()
    return frozenset(key for key, series in values.items()
                     if any(value is not None and t.states(value, precision[key])
                            for value in series for t in tokens))
