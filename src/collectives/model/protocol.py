"""The protocol layer: a link's α and β per message-size segment, breakpoints from the data.

MPI libraries switch protocol with the message size (a short-message path, eager copies
through bounce buffers, rendezvous with a handshake, cell-size steps of a shared-memory
queue), so one α-β line fits small messages or large ones, rarely both. As SimGrid's SMPI
calibration does, this layer prices a message by the segment its size falls in: each
segment has its own α and β, fitted to the ping-pong points inside it.

The breakpoints are found, not declared: for each k up to `max_segments`, the split of the
sorted sizes into k runs of at least `min_points` consecutive points with the least squared
relative residuals is found exactly (dynamic programming over split points), and the fewest
segments whose residual variance (per degree of freedom, two per segment) is within
SPLIT_GAIN of the best k's win (a protocol switch moves times by tens of percent, timing
noise by a few). A segment covers the sizes up to the geometric
midpoint between its largest point and the next segment's smallest.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .fit import Points

MIN_POINTS = 3  # per segment: a line through two points fits anything
SPLIT_GAIN = 4.0  # more segments must cut the squared residuals this much (the RMS: 2x)


@dataclass(frozen=True)
class Segment:
    """α and β for messages of at most `upto` bytes (the last segment: every larger one)."""

    upto: float
    alpha: float
    beta: float


def _line(nbytes: np.ndarray, seconds: np.ndarray) -> tuple[float, float, float]:
    """α, β (neither negative) and the sum of squared relative residuals of the line
    minimizing relative residuals; a negative coefficient is refitted at zero."""
    design = np.column_stack([np.ones_like(nbytes), nbytes]) / seconds[:, None]
    ones = np.ones_like(seconds)
    (alpha, beta), *_ = np.linalg.lstsq(design, ones, rcond=None)
    if alpha < 0 or beta < 0:
        column = 1 if alpha < 0 else 0
        (kept,), *_ = np.linalg.lstsq(design[:, [column]], ones, rcond=None)
        alpha, beta = (0.0, max(kept, 0.0)) if alpha < 0 else (max(kept, 0.0), 0.0)
    residuals = (seconds - alpha - beta * nbytes) / seconds
    return float(alpha), float(beta), float(np.sum(residuals**2))


def fit_segments(points: Points, max_segments: int = 4, min_points: int = 3) -> tuple[Segment, ...]:
    """The piecewise α-β fit with the fewest segments (≤ max_segments) that fits as well as
    any, to within SPLIT_GAIN in squared relative residuals."""
    order = np.argsort(points.nbytes)
    nbytes = np.asarray(points.nbytes, float)[order]
    seconds = np.asarray(points.seconds, float)[order]
    n = len(nbytes)
    if n < min_points:
        raise ValueError(f"a segment needs {min_points} points, got {n}")
    # cost[i][j]: residuals of one line through points i..j-1
    cost = {
        (i, j): _line(nbytes[i:j], seconds[i:j])[2]
        for i in range(n)
        for j in range(i + min_points, n + 1)
    }
    # best[k][j]: the least residuals of k segments covering points 0..j-1, and the split
    best: list[dict[int, tuple[float, list[int]]]] = [{0: (0.0, [0])}]
    for k in range(1, max_segments + 1):
        layer: dict[int, tuple[float, list[int]]] = {}
        for j in range(k * min_points, n + 1):
            options = [
                (previous + cost[(i, j)], [*split, j])
                for i, (previous, split) in best[k - 1].items()
                if (i, j) in cost
            ]
            if options:
                layer[j] = min(options, key=lambda option: option[0])
        best.append(layer)
    # per degree of freedom (two per segment), so splitting noise finely buys nothing
    fits = [(rss / max(n - 2 * k, 1), split) for k, layer in enumerate(best) if n in layer
            for rss, split in [layer[n]] if k > 0]  # fmt: skip
    least = max(min(variance for variance, _ in fits), 1e-12)  # exact data: rounding only
    best_split = next(split for variance, split in fits if variance <= SPLIT_GAIN * least)
    segments = []
    for start, stop in itertools.pairwise(best_split):
        alpha, beta, _ = _line(nbytes[start:stop], seconds[start:stop])
        upto = math.sqrt(nbytes[stop - 1] * nbytes[stop]) if stop < n else math.inf
        segments.append(Segment(upto=upto, alpha=alpha, beta=beta))
    return tuple(segments)


def segment_times(segments: tuple[Segment, ...], nbytes: np.ndarray) -> np.ndarray:
    """Each message's time, priced by the segment its size falls in."""
    alpha, beta = _segment_of(segments, nbytes)
    return alpha + beta * nbytes


def segment_byte_times(segments: tuple[Segment, ...], nbytes: np.ndarray) -> np.ndarray:
    """Each message's bytes·β by the segment its size falls in: its time without latency."""
    return _segment_of(segments, nbytes)[1] * nbytes


def _segment_of(segments: tuple[Segment, ...], nbytes: np.ndarray) -> tuple[np.ndarray, ...]:
    """The α and β of the segment each message's size falls in."""
    bounds = np.array([s.upto for s in segments[:-1]])
    which = np.searchsorted(bounds, nbytes, side="left")
    return np.array([s.alpha for s in segments])[which], np.array([s.beta for s in segments])[which]
