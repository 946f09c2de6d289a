"""The statistics of a timed point on a shared machine: a median with its interval.

A point's times come in blocks (the iterations of one round of one launch, run back to
back), and its blocks in launches. Iterations inside a block share the machine's state (a
busy neighbour), so they are not independent; blocks of one launch share its ranks'
placement and their memory, which can set a launch's speed apart from the next one's (on
this 2-vCPU machine, 5x at 1 MiB under Open MPI). The interval of the median is therefore
a two-stage bootstrap: launches are resampled with replacement, then whole blocks inside
each chosen launch (seeded, so a rerun of the same data gives the same interval). With one
launch it is the block bootstrap. The nccl-tests/OSU convention of a median is kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

CONFIDENCE = 0.9  # the intervals' coverage: 5% in each tail
RESAMPLES = 1000

# A point's times as a bench record keeps them: (times_s, blocks, launch_blocks), the
# iterations of each block and the blocks of each launch, in the order of times_s.
Timed = tuple[Sequence[float], Sequence[int], Sequence[int]]


def split_blocks(times: Sequence[float], blocks: Sequence[int]) -> list[np.ndarray]:
    """`times` cut into consecutive blocks of the given lengths."""
    if sum(blocks) != len(times):
        raise ValueError(f"blocks of {sum(blocks)} iterations for {len(times)} times")
    edges = np.cumsum([0, *blocks])
    values = np.asarray(times, dtype=float)
    return [values[start:stop] for start, stop in itertools.pairwise(edges)]


def split_launches(
    times: Sequence[float], blocks: Sequence[int], launch_blocks: Sequence[int]
) -> list[list[np.ndarray]]:
    """`times` as launches of blocks: the blocks of split_blocks, grouped consecutively."""
    parts = split_blocks(times, blocks)
    if sum(launch_blocks) != len(parts):
        raise ValueError(f"launches of {sum(launch_blocks)} blocks for {len(parts)} blocks")
    edges = np.cumsum([0, *launch_blocks])
    return [parts[start:stop] for start, stop in itertools.pairwise(edges)]


def _resampled_medians(launches: list[list[np.ndarray]], rng: np.random.Generator) -> np.ndarray:
    """The median of each two-stage resample: launches with replacement, then blocks with
    replacement inside each launch drawn (one launch: the block bootstrap). A resample is
    how often it holds each block: a launch drawn c times contributes c·n of its n blocks,
    uniformly; its median is the weighted median of every time."""
    drawn = (np.ones((RESAMPLES, 1), dtype=int) if len(launches) == 1
             else rng.multinomial(len(launches), [1 / len(launches)] * len(launches),
                                  size=RESAMPLES))  # fmt: skip
    counts = np.hstack([
        rng.multinomial(drawn[:, index] * len(launch), [1 / len(launch)] * len(launch))
        for index, launch in enumerate(launches)
    ])  # fmt: skip
    blocks = [block for launch in launches for block in launch]
    times = np.concatenate(blocks)
    order = np.argsort(times, kind="stable")
    owner = np.repeat(np.arange(len(blocks)), [len(block) for block in blocks])[order]
    weights = np.cumsum(counts[:, owner], axis=1)
    total = weights[:, -1:]
    low = (weights > (total - 1) // 2).argmax(axis=1)  # the middle one or two times
    high = (weights > total // 2).argmax(axis=1)
    return (times[order][low] + times[order][high]) / 2


def _resamplable(launches: list[list[np.ndarray]]) -> bool:
    """Whether there is any spread to resample: more than one block in all."""
    return sum(len(launch) for launch in launches) > 1


def median_interval(
    times: Sequence[float],
    blocks: Sequence[int],
    launch_blocks: Sequence[int] | None = None,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """(median, low, high): the median of every time and its bootstrap interval (launches,
    then blocks; launch_blocks None: a single launch). One block has no spread to
    resample: its interval is its own min..max."""
    launches = split_launches(times, blocks, launch_blocks or [len(blocks)])
    median = float(np.median(np.asarray(times, dtype=float)))
    if not _resamplable(launches):
        return median, float(np.min(times)), float(np.max(times))
    tail = (1 - confidence) / 2
    low, high = np.quantile(_resampled_medians(launches, np.random.default_rng(0)),
                            [tail, 1 - tail])  # fmt: skip
    return median, float(min(low, median)), float(max(high, median))


def ratio_interval(
    numerator: Timed, denominator: Timed, confidence: float = CONFIDENCE
) -> tuple[float, float, float]:
    """(ratio, low, high): median(numerator) / median(denominator), each point resampled
    independently (launches, then blocks): the interval of a speedup; NaN bounds where
    either side has a single block (nothing to resample)."""
    top, bottom = split_launches(*numerator), split_launches(*denominator)
    ratio = float(np.median(np.asarray(numerator[0], dtype=float))
                  / np.median(np.asarray(denominator[0], dtype=float)))  # fmt: skip
    if not (_resamplable(top) and _resamplable(bottom)):
        return ratio, float("nan"), float("nan")
    rng = np.random.default_rng(0)
    ratios = _resampled_medians(top, rng) / _resampled_medians(bottom, rng)
    tail = (1 - confidence) / 2
    low, high = np.quantile(ratios, [tail, 1 - tail])
    return ratio, float(min(low, ratio)), float(max(high, ratio))


def relative_width(median: float, low: float, high: float) -> float:
    """How wide an interval is, as a share of its median: what marks a point noisy."""
    return (high - low) / median if median > 0 else float("inf")
