"""A timed point's median with its block-bootstrap interval, and a speedup's."""

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


def test_one_block_has_no_spread_to_resample():
    assert timing.median_interval([3.0, 1.0, 2.0], [3]) == (2.0, 1.0, 3.0)
    ratio, low, high = timing.ratio_interval(([2.0, 2.0], [2]), ([1.0, 1.0], [1, 1]))
    assert ratio == 2.0 and math.isnan(low) and math.isnan(high)


def test_a_speedup_s_interval_holds_its_ratio_and_is_reproducible():
    rng = np.random.default_rng(1)
    slow, fast = 2 + rng.random(30) * 0.2, 1 + rng.random(30) * 0.1
    first = timing.ratio_interval((slow, [3] * 10), (fast, [3] * 10))
    assert first == timing.ratio_interval((slow, [3] * 10), (fast, [3] * 10))  # seeded
    ratio, low, high = first
    assert 1.7 < low <= ratio <= high < 2.4
    assert timing.relative_width(ratio, low, high) == pytest.approx((high - low) / ratio)
