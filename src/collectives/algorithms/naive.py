"""Naive all-reduce: gather to rank 0, sum there, broadcast back.

Rank 0 receives N-1 vectors and sends N-1: it is a hotspot that moves 2(N-1)M elements
while every other rank moves 2M, and its ports serialize all 2(N-1) messages.

Cost: 2(N-1) α + 2(N-1) nβ + (N-1) Mγ
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator

ROOT = 0


def allreduce(comm: Communicator, x: np.ndarray) -> np.ndarray:
    """Every rank ships its vector to the root; the root sums and sends the sum to all."""
    if comm.rank != ROOT:
        comm.send(x, ROOT)
        return comm.recv(ROOT)
    total = comm.copy(x)
    for source in range(comm.size):
        if source != ROOT:
            comm.recv_reduce(source, total)
    for dest in range(comm.size):
        if dest != ROOT:
            comm.send(total, dest)
    return total
