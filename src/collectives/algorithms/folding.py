"""MPICH's folding of a non-power-of-two group, shared by the power-of-two algorithms.

With p' = 2^floor(log2 N) and rem = N - p': among the first 2*rem ranks each even rank
sends its vector to the next odd rank and sits out; the p' survivors, renumbered 0..p'-1,
run a power-of-two algorithm; each odd rank then sends the result back to its even partner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..comm import Communicator
from .groups import SubComm

InPlace = Callable[[Communicator, np.ndarray], None]


def survivors(size: int) -> Sequence[int]:
    """The ranks left after folding `size` ranks, in their new order (all of them, as a
    range, for a power of two: a rank finds its place in one step at any N)."""
    rem = size - (1 << (size.bit_length() - 1))
    if not rem:
        return range(size)
    return [2 * new + 1 for new in range(rem)] + list(range(2 * rem, size))


def folded(comm: Communicator, x: np.ndarray, allreduce_in_place: InPlace) -> np.ndarray:
    """All-reduce `x` with a power-of-two algorithm on any N, by folding."""
    rank = comm.rank
    rem = comm.size - (1 << (comm.size.bit_length() - 1))
    result = comm.copy(x)
    if rank < 2 * rem and rank % 2 == 0:  # folded out: hand over, wait for the result
        comm.send(result, rank + 1)
        return comm.recv(rank + 1, out=result)
    if rank < 2 * rem:
        comm.recv_reduce(rank - 1, result)
    allreduce_in_place(SubComm(comm, survivors(comm.size)), result)
    if rank < 2 * rem:  # unfold: return the result to the even partner
        comm.send(result, rank - 1)
    return result
