"""Accuracy with a bootstrap 95% interval over items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hopvista.rng import derive

RESAMPLES = 1000


@dataclass(frozen=True)
class Estimate:
    """An accuracy, its 95% bootstrap interval, how many answers it counts, and chance."""

    accuracy: float
    low: float
    high: float
    n: int
    chance: float


class Bootstrap:
    """One set of item resamples (multiplicity per item), shared by every estimate."""

    def __init__(self, count: int, seed: int, resamples: int = RESAMPLES) -> None:
        rng = derive(seed, "audit", "bootstrap", count)
        draws = rng.integers(0, count, size=(resamples, count)) if count else \
            np.zeros((resamples, 0), dtype=np.int64)
        self.weights = np.zeros((resamples, count), dtype=np.float64)
        for row, picked in enumerate(draws):
            self.weights[row] = np.bincount(picked, minlength=count)

    def estimate(self, correct: np.ndarray, total: np.ndarray, chance: float) -> Estimate:
        """Accuracy Σcorrect / Σtotal over items, and its percentile interval."""
        n = int(total.sum())
        if n == 0:
            return Estimate(float("nan"), float("nan"), float("nan"), 0, chance)
        hits, counts = self.weights @ correct, self.weights @ total
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = hits / counts
        ratios = ratios[counts > 0]
        low, high = np.percentile(ratios, [2.5, 97.5])
        return Estimate(float(correct.sum() / n), float(low), float(high), n, chance)
