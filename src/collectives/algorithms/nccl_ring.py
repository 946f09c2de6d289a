"""NCCL's ring all-reduce: C channels, each a ring of its own, moving the vector in chunks.

NCCL splits the work into loops of C·N chunks of at most `chunk_bytes` (its Simple protocol:
NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 per step, ALLREDUCE_CHUNKSTEPS 4 steps a chunk, 2 MiB).
In each loop, channel c takes its block of N chunks through a ring reduce-scatter and
all-gather, 2(N-1) steps; the loops follow each other. NCCL runs its channels at once on
separate SMs and links; a rank here has one port, so at every step the channels take turns.
Blocks and chunks differ by at most one element (NCCL rounds chunks to 16 bytes instead).
The bytes are the ring's; each loop and channel adds 2(N-1) latencies.

Cost: 2(N-1)·L·C α + 2(N-1)/N nβ + (N-1)/N Mγ
(L = ceil(M / (C·N·K)) loops of chunks of K = chunk_bytes/s elements, at least one.)
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator
from . import ring
from .partition import split_evenly

CHANNELS = 2  # NCCL's ring count on a node whose GPUs share one PCIe switch or NIC
# NCCL's Simple buffer: NCCL_BUFFSIZE (4 MiB) over NCCL_STEPS (8) steps; its tree moves one
# step a chunk, its ring ALLREDUCE_CHUNKSTEPS (4)
STEP_BYTES = 4 * 1024 * 1024 // 8
CHUNK_BYTES = STEP_BYTES * 4


def allreduce(comm: Communicator, x: np.ndarray, channels: int, chunk_bytes: int) -> np.ndarray:
    """Loop by loop, the ring steps of every channel, the channels in turn at each step."""
    n = comm.size
    result = comm.copy(x)
    loop = channels * n * max(1, chunk_bytes // result.itemsize)
    for start in range(0, result.size, loop):
        looped = result[start : start + loop]
        rings = [
            [looped[block][s] for s in split_evenly(block.stop - block.start, n)]
            for block in split_evenly(looped.size, channels)
        ]
        for step in range(n - 1):
            for chunks in rings:
                ring.reduce_scatter_step(comm, chunks, step)
        for step in range(n - 1):
            for chunks in rings:
                ring.all_gather_step(comm, chunks, step)
    return result
