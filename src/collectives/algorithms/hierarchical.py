"""Hierarchical (2D) all-reduce, as NCCL and Horovod run across nodes of G ranks each.

1. Reduce-scatter inside each node (ring over its G ranks): local rank l ends with chunk l+1
   of the vector summed over its node.
2. All-reduce that shard across the nodes, among the ranks holding the same shard (one per
   node): a ring, or recursive doubling when the largest shard is smaller than
   RECURSIVE_DOUBLING_BELOW bytes (latency then dominates).
3. All-gather inside each node (ring).
Only step 2 crosses nodes, and it moves 1/G of the vector per rank.

Cost: (2(G-1) + inter) α + (2(G-1)/G + inter/G) nβ + ((G-1)/G + inter/G) Mγ
(inter: that term of an all-reduce of the whole vector across the N/G nodes; each rank's
shard is 1/G of it.)
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator, Nodes
from . import recursive_doubling, ring
from .groups import SubComm
from .partition import split_evenly

RECURSIVE_DOUBLING_BELOW = 64 * 1024  # bytes of the largest shard


def allreduce(comm: Communicator, x: np.ndarray, nodes: Nodes) -> np.ndarray:
    """Reduce-scatter in the node, all-reduce the shard across nodes, all-gather in the node."""
    in_node = SubComm(comm, nodes.node_ranks(comm.rank, comm.size))
    across = SubComm(comm, nodes.peers_across(comm.rank, comm.size))
    group, local = in_node.size, in_node.rank
    result = comm.copy(x)
    chunks = [result[s] for s in split_evenly(result.size, group)]

    ring.reduce_scatter(in_node, chunks)
    shard = chunks[(local + 1) % group]
    largest_shard = -(-result.size // group) * result.itemsize
    if largest_shard < RECURSIVE_DOUBLING_BELOW:
        shard[...] = recursive_doubling.allreduce(across, shard)
    else:
        shard[...] = ring.allreduce(across, shard)
    ring.all_gather(in_node, chunks)
    return result
