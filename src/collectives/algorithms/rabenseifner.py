"""Rabenseifner's all-reduce: reduce-scatter by recursive halving, all-gather by doubling.

The vector is cut into p' chunks as evenly as possible. At partner distance p'/2, p'/4,
..., 1 every rank sends the half of its current range of chunks that its partner keeps and
adds the half it keeps; then it holds the full sum of one chunk. The all-gather retraces
the steps at distances 1, 2, ..., p'/2, each rank swapping its range with its partner's.
2 log2 p' rounds like recursive doubling, 2(p'-1)/p' of the vector per rank like ring:
MPICH's default for all but small messages (Thakur, Rabenseifner and Gropp 2005). A
non-power-of-two N is folded first (see folding).

Cost: 2 log2 N α + 2(N-1)/N nβ + (N-1)/N Mγ
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator
from .folding import folded
from .partition import chunk_start


def allreduce(comm: Communicator, x: np.ndarray) -> np.ndarray:
    """Fold to a power of two, halve-and-add down to one chunk, double back up, unfold."""
    return folded(comm, x, halve_then_double)


def halve_then_double(group: Communicator, result: np.ndarray) -> None:
    """The power-of-two core: recursive-halving reduce-scatter, recursive-doubling gather."""

    def chunks(first: int, last: int) -> np.ndarray:
        """Chunks first..last-1 of the result (split_evenly's), as one view."""
        start = chunk_start(result.size, group.size, first)
        return result[start : chunk_start(result.size, group.size, last)]

    low, high = 0, group.size  # the range of chunks this rank is responsible for
    distance = group.size // 2
    while distance:  # reduce-scatter: keep one half, send the partner the other
        partner = group.rank ^ distance
        middle = (low + high) // 2
        upper = group.rank & distance
        keep, give = ((middle, high), (low, middle)) if upper else ((low, middle), (middle, high))
        group.sendrecv_reduce(chunks(*give), partner, partner, chunks(*keep))
        low, high = keep
        distance //= 2

    distance = 1
    while distance < group.size:  # all-gather: swap ranges with the partner, doubling them
        partner = group.rank ^ distance
        theirs = (low - distance, low) if group.rank & distance else (high, high + distance)
        group.sendrecv(chunks(low, high), partner, partner, out=chunks(*theirs))
        low, high = min(low, theirs[0]), max(high, theirs[1])
        distance *= 2
