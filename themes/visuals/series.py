"""What the tiny charts (sparkline, minibar, minipie) share: drawing a series and reading off
the facts a reader can see in it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from hopvista.rng import Streams

CLEAR_GAP = 0.12
"""How far (a fraction of the series' range, or of its largest value for bars and slices) the
extreme must stand from the runner-up for a question to ask which it is."""

TREND_GAP = 0.25
"""How far the last value must stand from the first (a fraction of the range) for a
question to ask whether the series rose or fell."""

SAMPLE_TRIES = 32
"""How many series a sampler draws at most looking for one with clear facts."""


SeriesDraw = Callable[[np.random.Generator, int], list[float]]
"""Draws a series of the given length from the given generator."""


def sample_series(streams: Streams, slot: str, lengths: tuple[int, int], draw: SeriesDraw,
                  clear: Callable[[list[float]], bool]) -> list[float]:
    """A series whose length is drawn between ``lengths`` (stream ``slot.values.count``) and
    whose values ``draw`` takes from stream ``slot.values``, drawn again until ``clear`` holds
    for it, at most :data:`SAMPLE_TRIES` times (the last draw when none is clear)."""
    rng = streams.stream(f"{slot}.values")
    length = streams.integer(f"{slot}.values.count", *lengths)
    values: list[float] = []
    for _ in range(SAMPLE_TRIES):
        values = draw(rng, length)
        if clear(values):
            break
    return values


def whole_numbers(low: int, high: int) -> SeriesDraw:
    """A :data:`SeriesDraw` of whole numbers from ``low`` to ``high`` (both included)."""
    def draw(rng: np.random.Generator, length: int) -> list[float]:
        return [float(v) for v in rng.integers(low, high + 1, size=length)]
    return draw


def clear_extreme(values: Sequence[float], largest: bool, scale: float) -> int | None:
    """The 1-based position of the largest (smallest) value when it stands ``CLEAR_GAP *
    scale`` from every other value, else ``None``."""
    if len(values) < 2 or scale <= 0:
        return None
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=largest)
    best, runner = values[order[0]], values[order[1]]
    return order[0] + 1 if abs(best - runner) >= CLEAR_GAP * scale else None


def trend(values: Sequence[float]) -> str | None:
    """``"up"`` or ``"down"`` when the last value stands clearly above or below the first."""
    span = max(values) - min(values)
    if span <= 0 or abs(values[-1] - values[0]) < TREND_GAP * span:
        return None
    return "up" if values[-1] > values[0] else "down"


def random_walk(rng: np.random.Generator, count: int) -> list[float]:
    """``count`` whole numbers between 0 and 100 wandering from a random start."""
    value = float(rng.integers(20, 81))
    walk = []
    for _ in range(count):
        value = min(100.0, max(0.0, value + float(rng.integers(-18, 19))))
        walk.append(value)
    return walk
