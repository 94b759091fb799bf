"""Whether a chart column can be computed from table columns in the data actually shown.

The pack's identities say which columns are linked in principle; real filings add links of
their own (Apple's operating income is exactly gross margin minus operating expenses). This
check looks at the displayed numbers: if the chart series equals a signed sum of at most
three table columns for every entity and year, up to rounding, the chart is not needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from functools import cache
from itertools import combinations, product

import numpy as np

MAX_TERMS = 3


def derivation(target: Sequence[Decimal], columns: Mapping[str, Sequence[Decimal]],
               precision: int) -> tuple[tuple[int, str], ...] | None:
    """A signed combination of at most three ``columns`` equal to ``target`` everywhere (up
    to the rounding of displayed values), or ``None``. Series are aligned lists of values.

    Combinations are tried smallest first, columns in name order, plus before minus; the
    first that holds in exact decimals is returned. Where the series are aligned, a float
    screen, as wide as any float error could make it, passes every combination the exact
    test could accept, so only those are summed in decimals; misaligned ones (a foreign
    item's) are all summed, as they are (an answer, or the error of a missing value)."""
    names = sorted(columns)
    if not names:
        return None
    unit = Decimal(1).scaleb(-precision) / 2
    aligned = bool(target) and all(len(columns[n]) == len(target) for n in names)
    if aligned:
        goal = np.array([float(t) for t in target])
        values = np.array([[float(v) for v in columns[n]] for n in names])
        # float error of a sum of at most four values, each off by half an ulp of its size
        slack = 8 * np.finfo(float).eps * (np.abs(values).max(initial=0.0) * MAX_TERMS
                                           + np.abs(goal).max(initial=0.0) + 1.0)
    for size in range(1, min(MAX_TERMS, len(names)) + 1):
        tolerance = unit * (size + 1)
        picks, signs = _terms(len(names), size)
        rows: Iterable[int] = range(len(picks))
        if aligned:
            residual = np.abs(goal - np.einsum("cs,csi->ci", signs, values[picks])).max(axis=1)
            rows = np.flatnonzero(residual <= float(tolerance) + slack)
        for row in rows:
            terms = tuple((int(s), names[int(k)]) for s, k in
                          zip(signs[row], picks[row], strict=True))
            if all(abs(t - sum((s * columns[n][i] for s, n in terms), Decimal(0))) <= tolerance
                   for i, t in enumerate(target)):
                return terms
    return None


@cache
def _terms(count: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every signed combination of ``size`` of ``count`` columns, in the order
    :func:`derivation` tries them: column indices and signs, one row each."""
    rows = [(names, signs) for names in combinations(range(count), size)
            for signs in product((1, -1), repeat=size)]
    return (np.array([r[0] for r in rows], dtype=int).reshape(-1, size),
            np.array([r[1] for r in rows], dtype=float).reshape(-1, size))
