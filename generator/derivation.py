"""Whether a chart column can be computed from table columns in the data actually shown.

The pack's identities say which columns are linked in principle; real filings add links of
their own (Apple's operating income is exactly gross margin minus operating expenses). This
check looks at the displayed numbers: if the chart series equals a signed sum of at most
three table columns for every entity and year, up to rounding, the chart is not needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from itertools import combinations, product

MAX_TERMS = 3


def derivation(target: Sequence[Decimal], columns: Mapping[str, Sequence[Decimal]],
               precision: int) -> tuple[tuple[int, str], ...] | None:
    """A signed combination of at most three ``columns`` equal to ``target`` everywhere (up
    to the rounding of displayed values), or ``None``. Series are aligned lists of values."""
    unit = Decimal(1).scaleb(-precision) / 2
    for size in range(1, MAX_TERMS + 1):
        tolerance = unit * (size + 1)
        for names in combinations(sorted(columns), size):
            for signs in product((1, -1), repeat=size):
                if all(abs(t - sum((s * columns[n][i] for s, n in zip(signs, names,
                                                                        strict=True)),
                                   Decimal(0))) <= tolerance
                       for i, t in enumerate(target)):
                    return tuple(zip(signs, names, strict=True))
    return None
