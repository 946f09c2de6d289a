"""Recursive-doubling all-reduce: log2 N rounds, each exchanging the whole vector.

In round k every rank swaps its current partial sum with rank XOR 2^k and adds; after
log2 N rounds all hold the total. When N is not a power of two, MPICH's folding reduces
the group to p' = 2^floor(log2 N) ranks first: among the first 2*rem ranks (rem = N - p')
each even rank hands its vector to the next odd rank and sits out, and gets the result
back at the end.
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator


def allreduce(comm: Communicator, x: np.ndarray) -> np.ndarray:
    """Fold to a power of two, exchange-and-add at distances 1, 2, 4, ..., unfold."""
    n, rank = comm.size, comm.rank
    result = x.copy()
    survivors = 1 << (n.bit_length() - 1)
    rem = n - survivors

    if rank < 2 * rem and rank % 2 == 0:  # folded out: hand over, wait for the result
        comm.send(result, rank + 1)
        return comm.recv(rank + 1, out=result)
    if rank < 2 * rem:
        comm.reduce_local(comm.recv(rank - 1), result)
    new_rank = rank // 2 if rank < 2 * rem else rank - rem

    def real_rank(new: int) -> int:
        return 2 * new + 1 if new < rem else new + rem

    distance = 1
    while distance < survivors:
        partner = real_rank(new_rank ^ distance)
        comm.reduce_local(comm.sendrecv(result, partner, partner), result)
        distance <<= 1

    if rank < 2 * rem:  # unfold: return the result to the even partner
        comm.send(result, rank - 1)
    return result
