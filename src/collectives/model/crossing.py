"""Where the cheapest algorithm changes: one interpolation rule for every caller.

Times are known at the grid's message sizes. Between two neighbouring sizes every time is
taken as the straight line through its two grid values: exact where the counts are affine in
M (between sizes that N divides, on any flat fabric). Winner ranges, crossovers, "from which
size does ring win for good" and the time of a message between grid sizes all follow from it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

Range = tuple[float, float, str]  # [low, high) bytes, and the algorithm cheapest there


def crossing(
    x0: float, x1: float, loser0: float, loser1: float, winner0: float, winner1: float
) -> float:
    """Where the line through (x0, winner0), (x1, winner1) passes below the line through
    (x0, loser0), (x1, loser1): the winner is not cheaper at x0 and is at x1."""
    rise = (winner1 - winner0) - (loser1 - loser0)
    return x0 + (loser0 - winner0) / rise * (x1 - x0)


def interpolate(sizes: np.ndarray, values: np.ndarray, at: float) -> float:
    """The value at size `at` on the straight line between the neighbouring grid sizes;
    beyond either end, on the line through the two nearest (sizes ascending)."""
    if len(sizes) == 0:
        return math.nan
    if len(sizes) == 1:
        return float(values[0])
    right = int(np.clip(np.searchsorted(sizes, at), 1, len(sizes) - 1))
    x0, x1, y0, y1 = sizes[right - 1], sizes[right], values[right - 1], values[right]
    return float(y0 + (y1 - y0) * (at - x0) / (x1 - x0))


def winner_ranges(
    sizes: Sequence[float], winners: Sequence[str], times: Mapping[str, Sequence[float]]
) -> list[Range]:
    """The intervals [low, high) of message sizes in which each algorithm is the cheapest.

    `winners[i]` is the cheapest at `sizes[i]` (ascending) and `times[name][i]` its time
    there. Where the winner changes between two grid sizes the boundary is where the two
    times cross (crossing); the first interval starts at 0, the last never ends.
    """
    intervals: list[list] = []
    for index, winner in enumerate(winners):
        if intervals and intervals[-1][2] == winner:
            continue
        start = 0.0
        if intervals:
            loser = intervals[-1][2]
            before, at = index - 1, index
            start = crossing(
                sizes[before], sizes[at], times[loser][before], times[loser][at],
                times[winner][before], times[winner][at],
            )  # fmt: skip
            intervals[-1][1] = start
        intervals.append([start, math.inf, winner])
    return [(float(low), float(high), name) for low, high, name in intervals]


def takes_over(
    sizes: Sequence[float], incumbent: Sequence[float], challenger: Sequence[float]
) -> tuple[float, float]:
    """From which size the challenger is strictly cheaper at every larger grid size: the
    first such grid size, and the boundary interpolated before it (crossing; 0 if it is
    cheaper everywhere). (NaN, NaN) if it is not cheaper at the largest size."""
    cheaper = [c < i for c, i in zip(challenger, incumbent, strict=True)]
    if not cheaper or not cheaper[-1]:
        return math.nan, math.nan
    if all(cheaper):
        return float(sizes[0]), 0.0
    last = max(index for index, wins in enumerate(cheaper) if not wins)
    boundary = crossing(
        sizes[last], sizes[last + 1], incumbent[last], incumbent[last + 1],
        challenger[last], challenger[last + 1],
    )  # fmt: skip
    return float(sizes[last + 1]), float(boundary)
