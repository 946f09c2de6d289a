"""Ring all-reduce (Patarasuk and Yuan; Baidu, Gloo, NCCL): reduce-scatter, then all-gather.

The vector is cut into N chunks. In each of N-1 reduce-scatter steps every rank sends one
chunk to its right neighbour and adds the chunk arriving from its left; afterwards rank r
holds the complete sum of chunk r+1. N-1 all-gather steps then pass the finished chunks
around the ring. Every rank sends and receives about 2M(N-1)/N elements: no hotspot.

Cost: 2(N-1) α + 2(N-1)/N nβ + (N-1)/N Mγ
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator
from .partition import split_evenly


def allreduce(comm: Communicator, x: np.ndarray) -> np.ndarray:
    """Reduce-scatter then all-gather around the ring, N-1 steps each."""
    result = comm.copy(x)
    chunks = [result[s] for s in split_evenly(result.size, comm.size)]
    reduce_scatter(comm, chunks)
    all_gather(comm, chunks)
    return result


def reduce_scatter(comm: Communicator, chunks: list[np.ndarray]) -> None:
    """N-1 steps: add the chunk arriving from the left; rank r ends with chunk r+1 summed."""
    for step in range(comm.size - 1):
        reduce_scatter_step(comm, chunks, step)


def all_gather(comm: Communicator, chunks: list[np.ndarray]) -> None:
    """N-1 steps: pass the finished chunks on around the ring."""
    for step in range(comm.size - 1):
        all_gather_step(comm, chunks, step)


def reduce_scatter_step(comm: Communicator, chunks: list[np.ndarray], step: int) -> None:
    """Send chunk r-step to the right; add chunk r-step-1 arriving from the left."""
    n, rank = comm.size, comm.rank
    send, recv = (rank - step) % n, (rank - step - 1) % n
    comm.sendrecv_reduce(chunks[send], (rank + 1) % n, (rank - 1) % n, chunks[recv])


def all_gather_step(comm: Communicator, chunks: list[np.ndarray], step: int) -> None:
    """Send finished chunk r+1-step to the right; take chunk r-step from the left."""
    n, rank = comm.size, comm.rank
    send, recv = (rank + 1 - step) % n, (rank - step) % n
    comm.sendrecv(chunks[send], (rank + 1) % n, (rank - 1) % n, out=chunks[recv])
