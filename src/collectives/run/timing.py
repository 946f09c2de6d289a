"""The statistics of a timed point on a shared machine: a median with its interval.

A point's times come in blocks: the iterations of one round of one launch, run back to
back. Iterations inside a block share the machine's state (a busy neighbour, a rank placed
badly), so they are not independent; blocks are. The interval of the median is therefore a
block bootstrap: whole blocks are resampled with replacement (seeded, so a rerun of the
same data gives the same interval), the nccl-tests/OSU convention of a median kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

CONFIDENCE = 0.9  # the intervals' coverage: 5% in each tail
RESAMPLES = 1000


def split_blocks(times: Sequence[float], blocks: Sequence[int]) -> list[np.ndarray]:
    """`times` cut into consecutive blocks of the given lengths."""
    if sum(blocks) != len(times):
        raise ValueError(f"blocks of {sum(blocks)} iterations for {len(times)} times")
    edges = np.cumsum([0, *blocks])
    values = np.asarray(times, dtype=float)
    return [values[start:stop] for start, stop in itertools.pairwise(edges)]


def _resampled_medians(blocks: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """The median of each bootstrap resample of whole blocks."""
    picks = rng.integers(0, len(blocks), size=(RESAMPLES, len(blocks)))
    return np.array([np.median(np.concatenate([blocks[i] for i in pick])) for pick in picks])


def median_interval(
    times: Sequence[float], blocks: Sequence[int], confidence: float = CONFIDENCE
) -> tuple[float, float, float]:
    """(median, low, high): the median of every time and its block-bootstrap interval. One
    block has no spread to resample: its interval is its own min..max."""
    parts = split_blocks(times, blocks)
    median = float(np.median(np.concatenate(parts)))
    if len(parts) < 2:
        return median, float(np.min(times)), float(np.max(times))
    tail = (1 - confidence) / 2
    low, high = np.quantile(_resampled_medians(parts, np.random.default_rng(0)), [tail, 1 - tail])
    return median, float(min(low, median)), float(max(high, median))


def ratio_interval(
    numerator: tuple[Sequence[float], Sequence[int]],
    denominator: tuple[Sequence[float], Sequence[int]],
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """(ratio, low, high): median(numerator) / median(denominator), each point's blocks
    resampled independently: the interval of a speedup; NaN bounds where either side has
    a single block (nothing to resample)."""
    top, bottom = split_blocks(*numerator), split_blocks(*denominator)
    ratio = float(np.median(np.concatenate(top)) / np.median(np.concatenate(bottom)))
    if len(top) < 2 or len(bottom) < 2:
        return ratio, float("nan"), float("nan")
    rng = np.random.default_rng(0)
    ratios = _resampled_medians(top, rng) / _resampled_medians(bottom, rng)
    tail = (1 - confidence) / 2
    low, high = np.quantile(ratios, [tail, 1 - tail])
    return ratio, float(min(low, ratio)), float(max(high, ratio))


def relative_width(median: float, low: float, high: float) -> float:
    """How wide an interval is, as a share of its median: what marks a point noisy."""
    return (high - low) / median if median > 0 else float("inf")
