"""Which panel columns a passage states (so it never sits beside a chart of that column).

A passage *states* a column when it writes one of its entity's values of that column, in any
period, as :mod:`hopvista.program.stated_numbers` reads written numbers (the one implementation,
which
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

from hopvista.program.stated_numbers import stated_values

__all__ = ["columns_stated"]


def columns_stated(text: str, values: Mapping[str, Sequence[Decimal | None]],
                   precision: Mapping[str, int]) -> frozenset[str]:
    """Keys of the columns whose values (of one entity, any period) ``text`` writes."""
    return frozenset(key for key, series in values.items()
                     if stated_values(text, [v for v in series if v is not None],
                                      precision[key]))
