"""A timed point's median with its bootstrap interval (launches, then blocks), and a speedup's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collectives.run import timing


def test_blocks_not_iterations_are_resampled():
    # two launches' blocks disagree by 2x: the interval spans both, however many iterations
    times = [1.0] * 50 + [2.0] * 50
    median, low, high = timing.median_interval(times, [50, 50])
    assert (low, high) == (1.0, 2.0) and low <= median <= high
    with pytest.raises(ValueError, match="blocks of 99 iterations for 100 times"):
        timing.median_interval(times, [50, 49])


def test_launches_not_blocks_are_the_independent_units():
    # three launches of ten blocks each; one launch ran 5x slower (a mode of the machine):
    # resampling blocks alone would call the median certain, resampling launches does not
    fast, slow = [1.0] * 10, [5.0] * 10
    times = [*fast, *fast, *slow]
    assert timing.median_interval(times, [1] * 30) == (1.0, 1.0, 1.0)
    assert timing.median_interval(times, [1] * 30, [10, 10, 10]) == (1.0, 1.0, 5.0)
    with pytest.raises(ValueError, match="launches of 29 blocks for 30 blocks"):
        timing.median_interval(times, [1] * 30, [10, 10, 9])
    # a tuned run slower than its default only in the launch that met the slow mode: no
    # speedup is claimed beyond the interval
    default = (times, [1] * 30, [10, 10, 10])
    tuned = ([*fast, *slow, *fast], [1] * 30, [10, 10, 10])
    assert timing.ratio_interval(default, tuned) == (1.0, 0.2, 5.0)


def test_one_block_has_no_spread_to_resample():
    assert timing.median_interval([3.0, 1.0, 2.0], [3]) == (2.0, 1.0, 3.0)
    ratio, low, high = timing.ratio_interval(([2.0, 2.0], [2], [1]), ([1.0, 1.0], [1, 1], [2]))
    assert ratio == 2.0 and math.isnan(low) and math.isnan(high)


def test_a_speedup_s_interval_holds_its_ratio_and_is_reproducible():
    rng = np.random.default_rng(1)
    slow, fast = 2 + rng.random(30) * 0.2, 1 + rng.random(30) * 0.1
    first = timing.ratio_interval((slow, [3] * 10, [5, 5]), (fast, [3] * 10, [5, 5]))
    assert first == timing.ratio_interval((slow, [3] * 10, [5, 5]), (fast, [3] * 10, [5, 5]))
    ratio, low, high = first
    assert 1.7 < low <= ratio <= high < 2.4
    assert timing.relative_width(ratio, low, high) == pytest.approx((high - low) / ratio)
