"""The tiny charts (minibar, sparkline, minipie) draw their series with one bounded retry:
the same seed gives the same attributes as before, a clear series is kept at once and an
unlucky one is given up after a fixed number of draws."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS
from hopvista.themes.visuals.series import SAMPLE_TRIES, sample_series, whole_numbers

PINNED: dict[str, dict[str, Any]] = {
    "minibar": {"values": [37.0, 31.0, 34.0, 66.0, 6.0], "color": "yellow", "axis": "grey"},
    "sparkline": {"values": [42.0, 58.0, 49.0, 52.0, 45.0, 40.0, 34.0, 30.0, 37.0, 39.0, 22.0,
                             8.0],
                  "color": "purple", "marker": "grey"},
    "minipie": {"values": [24.0, 20.0, 22.0, 41.0],
                "colors": ["purple", "grey", "red", "yellow"]},
}
"""What each kind samples for seed 0, item ``item-1``, slot ``r1c2``: a change here changes
every multimodal-table build that draws the kind."""


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_tiny_chart_samples_the_same_attributes_for_the_same_seed(name: str) -> None:
    assert VISUAL_KINDS.get(name).sample(Streams(0, "item-1"), slot="r1c2") == PINNED[name]


class CountedDraws:
    """A series draw that records how often it was called and answers from a script."""

    def __init__(self, series: list[list[float]]) -> None:
        self.series, self.calls = series, 0

    def __call__(self, rng: np.random.Generator, length: int) -> list[float]:
        drawn = self.series[min(self.calls, len(self.series) - 1)]
        self.calls += 1
        return drawn


def test_the_first_clear_series_is_kept() -> None:
    draws = CountedDraws([[1.0], [2.0], [3.0], [4.0]])
    kept = sample_series(Streams(0, "item-1"), "r1c2", (3, 6), draws,
                         lambda values: values[0] >= 3)
    assert kept == [3.0] and draws.calls == 3


def test_an_unclear_series_is_given_up_after_the_bounded_number_of_draws() -> None:
    draws = CountedDraws([[float(i)] for i in range(SAMPLE_TRIES + 5)])
    kept = sample_series(Streams(0, "item-1"), "r1c2", (3, 6), draws, lambda values: False)
    assert draws.calls == SAMPLE_TRIES and kept == [float(SAMPLE_TRIES - 1)]


def test_the_series_length_and_values_come_from_the_slots_streams() -> None:
    streams = Streams(5, "item-1")
    drawn = sample_series(streams, "r2c1", (3, 6), whole_numbers(5, 100), lambda values: True)
    length = streams.integer("r2c1.values.count", 3, 6)
    expected = [float(v) for v in streams.stream("r2c1.values").integers(5, 101, size=length)]
    assert drawn == expected and 3 <= len(drawn) <= 6
    assert all(5 <= v <= 100 and v == int(v) for v in drawn)
