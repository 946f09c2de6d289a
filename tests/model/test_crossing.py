"""The one interpolation rule: crossings, winner ranges, take-overs, times between sizes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collectives.model.crossing import crossing, interpolate, takes_over, winner_ranges

SIZES = [10.0, 100.0, 1000.0]


def test_crossing_of_two_lines():
    # loser 1 -> 1, winner 2 -> 0: equal at the midpoint
    assert crossing(100.0, 1000.0, 1.0, 1.0, 2.0, 0.0) == pytest.approx(550.0)


@pytest.mark.parametrize(
    ("incumbent", "challenger", "grid", "boundary"),
    [
        ([1, 1, 1], [2, 2, 0], 1000.0, 550.0),  # crosses halfway between 100 and 1000
        ([1, 1, 1], [0, 0, 0], 10.0, 0.0),  # always cheaper
        ([1, 1, 1], [2, 2, 2], math.nan, math.nan),  # never
        ([1, 1, 1], [0, 2, 0], 1000.0, 550.0),  # the last change counts
        ([1, 1, 1], [1, 1, 0], 1000.0, 100.0),  # a tie is not cheaper
    ],
)
def test_takes_over(incumbent, challenger, grid, boundary):
    found = takes_over(SIZES, incumbent, challenger)
    assert found == pytest.approx((grid, boundary), nan_ok=True)


def test_winner_ranges_start_at_zero_and_never_end():
    times = {"a": [1.0, 2.0, 3.0], "b": [2.0, 2.0, 2.0]}
    ranges = winner_ranges(SIZES, ["a", "b", "b"], times)
    assert ranges == [(0.0, 100.0, "a"), (100.0, math.inf, "b")]  # equal at 100
    assert winner_ranges(SIZES, ["a", "a", "a"], times) == [(0.0, math.inf, "a")]


def test_winner_ranges_agree_with_takes_over_for_two():
    times = {"rd": [1.0, 2.0, 9.0], "ring": [3.0, 3.0, 3.0]}
    winners = ["rd" if rd <= ring else "ring" for rd, ring in zip(*times.values(), strict=True)]
    last = winner_ranges(SIZES, winners, times)[-1]
    assert last[2] == "ring" and last[0] == takes_over(SIZES, times["rd"], times["ring"])[1]


def test_interpolate_between_and_beyond_the_grid():
    sizes, values = np.array(SIZES), np.array([1.0, 10.0, 100.0])
    assert interpolate(sizes, values, 55.0) == pytest.approx(5.5)
    assert interpolate(sizes, values, 1900.0) == pytest.approx(190.0)  # extended
    assert interpolate(sizes[:1], values[:1], 5.0) == 1.0
    assert math.isnan(interpolate(sizes[:0], values[:0], 5.0))
