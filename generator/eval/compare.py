"""Two runs on the same items: the difference in accuracy, paired.

Only items both runs answered count. The interval is a percentile bootstrap of the
difference over those items (both runs resampled alike, 1,000 resamples, seed 0); the p-value
is McNemar's exact test: under "no difference", the items one run gets right and the other
wrong split between the runs like a fair coin.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

import numpy as np

from hopvista.rng import derive

RESAMPLES = 1000


def paired(first: Sequence[dict[str, Any]], second: Sequence[dict[str, Any]],
           seed: int = 0) -> dict[str, Any] | None:
    """``second``'s accuracy minus ``first``'s on the items both answered, with its 95%
    interval and McNemar's p; ``None`` when they share no answered item."""
    a = {r["id"]: bool(r["correct"]) for r in first if r["error"] is None}
    b = {r["id"]: bool(r["correct"]) for r in second if r["error"] is None}
    common = sorted(set(a) & set(b))
    if not common:
        return None
    x = np.array([a[i] for i in common], dtype=float)
    y = np.array([b[i] for i in common], dtype=float)
    rng = derive(seed, "eval", "paired", len(common))
    draws = rng.integers(0, len(common), size=(RESAMPLES, len(common)))
    differences = (y[draws] - x[draws]).mean(axis=1)
    low, high = np.percentile(differences, [2.5, 97.5])
    only_first = int(((x == 1) & (y == 0)).sum())
    only_second = int(((x == 0) & (y == 1)).sum())
    return {"items": len(common), "first": float(x.mean()), "second": float(y.mean()),
            "difference": float(y.mean() - x.mean()), "low": float(low), "high": float(high),
            "only_first": only_first, "only_second": only_second,
            "p_value": mcnemar_exact(only_first, only_second)}


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(0, min(b, c) + 1)) / 2 ** n
    return float(min(1.0, 2 * tail))
