"""Small draws shared by the stages: a uniform in a range, one element of a sequence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Range = tuple[float, float]
T = TypeVar("T")

#: Redraws allowed to make a fact's needle (or a name) unique before accepting a clash.
TRIES = 40


def uniform(rng: np.random.Generator, r: Range) -> float:
    """One float drawn uniformly from ``[r[0], r[1])``."""
    return float(rng.uniform(r[0], r[1]))


def pick(rng: np.random.Generator, seq: Sequence[T]) -> T:
    """One element of ``seq`` (one draw of ``rng.integers``)."""
    return seq[int(rng.integers(len(seq)))]
