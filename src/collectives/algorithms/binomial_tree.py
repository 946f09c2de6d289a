"""Binomial-tree all-reduce: reduce to rank 0 along a binomial tree, then broadcast back.

In reduce step k a rank whose bit k is its lowest set bit sends its partial sum to rank - 2^k
and drops out, while rank + 2^k's sum (if that rank exists) is added into the rank below.
The broadcast retraces the tree from rank 0, farthest child first. ceil(log2 N) steps each
way; rank 0 receives and sends the whole vector ceil(log2 N) times (MPICH's and Open MPI's
classic reduce + bcast).

Cost: 2 log2 N α + 2 log2 N nβ + log2 N Mγ
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator


def allreduce(comm: Communicator, x: np.ndarray) -> np.ndarray:
    """Binomial reduce to rank 0, then binomial broadcast from rank 0."""
    n, rank = comm.size, comm.rank
    result = comm.copy(x)

    distance = 1
    while distance < n:  # reduce: collect the subtree below, then hand it to the parent
        if rank & distance:
            comm.send(result, rank - distance)
            break
        if rank + distance < n:
            comm.recv_reduce(rank + distance, result)
        distance <<= 1

    if rank:  # broadcast: the parent is rank - (lowest set bit), where the loop stopped
        comm.recv(rank - distance, out=result)
    distance >>= 1
    while distance:  # then each child rank + 2^k below that bit, farthest first
        if rank + distance < n:
            comm.send(result, rank + distance)
        distance >>= 1
    return result
