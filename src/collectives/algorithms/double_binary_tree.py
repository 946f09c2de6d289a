"""NCCL's double binary tree: two complementary trees over the nodes, a chain in each node.

The trees are those of NCCL's src/graph/trees.cc (read for facts): the first is an in-order
binary tree over the node indices, a node's parent and children found from its lowest set
bit, rooted at node 0, which has one child; the second mirrors it (node i is node count-1-i)
when the node count is even, and shifts it by one node when it is odd, so a node is interior
in at most one of the two (the shift leaves one node interior in both). Inside a node the
ranks form a chain whose first rank joins the trees, all network traffic on that one rank
(NCCL_TOPO_PATTERN_TREE; on more than two nodes NCCL balances a node's tree traffic over two
GPUs, which this leaves out). Tree t carries half t of the vector, in chunks of chunk_bytes
(NCCL's tree chunk: one step of its Simple buffer, NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8; NCCL
halves it for mid-sized messages and its LL protocols use others).
NCCL's up-down loop: each tree reduces its chunks up to its root (a rank adds every child's
chunk, then sends the sum to its parent), then broadcasts them down. NCCL runs the trees at
once on separate channels; a single port takes them one after the other in each phase, which
lets the second tree's reduce overlap the first's drain. With L equal chunks a tree every
round moves one chunk, n/(2L) bytes, so the bandwidth term tends to 7/2 nβ as L grows, where
the two ports of NCCL's links give about n. Latency grows with the trees' depth, 6 log2 N
rounds, where the ring's grows with N.

Cost: (6 log2 N + 7L - 9) α + (6 log2 N + 7L - 9)/(2L) nβ + Mγ
(flat, N >= 4 a power of two; L = ceil(M/2 / (K/s)) chunks a tree, K = chunk_bytes.)
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator, Nodes
from .nccl_ring import STEP_BYTES
from .partition import split_evenly

TREES = 2
CHUNK_BYTES = STEP_BYTES  # one step of NCCL's Simple buffer a chunk


def allreduce(comm: Communicator, x: np.ndarray, nodes: Nodes, chunk_bytes: int) -> np.ndarray:
    """Reduce every chunk up each tree in turn, then broadcast every chunk down each."""
    result = comm.copy(x)
    step = max(1, chunk_bytes // result.itemsize)
    links = [tree_links(comm.rank, comm.size, nodes, tree) for tree in range(TREES)]
    chunked = [
        [result[s][start : start + step] for start in range(0, s.stop - s.start, step)]
        for s in split_evenly(result.size, TREES)
    ]
    for (parent, children), chunks in zip(links, chunked, strict=True):
        for chunk in chunks:
            for child in children:
                comm.recv_reduce(child, chunk)
            if parent is not None:
                comm.send(chunk, parent)
    for (parent, children), chunks in zip(links, chunked, strict=True):
        for chunk in chunks:
            if parent is not None:
                comm.recv(parent, out=chunk)
            for child in children:
                comm.send(chunk, child)
    return result


def tree_links(rank: int, ranks: int, nodes: Nodes, tree: int) -> tuple[int | None, list[int]]:
    """`rank`'s parent (None at the root) and children in tree 0 or 1: its chain neighbours
    in its node, and for a node's first rank the first ranks of its tree neighbours."""
    members = nodes.node_ranks(rank, ranks)
    firsts = nodes.peers_across(members[0], ranks)
    position = members.index(rank)
    children = members[position + 1 : position + 2]
    if position:
        return members[position - 1], children
    parent, below = node_tree(len(firsts), firsts.index(rank), tree)
    return (None if parent is None else firsts[parent]), children + [firsts[d] for d in below]


def node_tree(count: int, node: int, tree: int) -> tuple[int | None, list[int]]:
    """Node `node`'s parent and children in tree 0 (binary) or 1 (mirrored or shifted)."""
    if tree == 0:
        return binary_tree(count, node)
    if count % 2:
        parent, children = binary_tree(count, (node - 1) % count)
        return (None if parent is None else (parent + 1) % count), [
            (c + 1) % count for c in children
        ]
    parent, children = binary_tree(count, count - 1 - node)
    return (None if parent is None else count - 1 - parent), [count - 1 - c for c in children]


def binary_tree(count: int, node: int) -> tuple[int | None, list[int]]:
    """The in-order binary tree over 0..count-1 rooted at 0: node b·(2j+1) hangs below the
    node that clears its lowest set bit b and sets the next one (or only clears it, when
    that is out of range); its children are node - b/2 and node + the largest of b/2,
    b/4, ... that stays in range. Node 0's one child is the largest power of two below count."""
    if node == 0:
        return None, [(1 << (count - 1).bit_length()) >> 1] if count > 1 else []
    bit = node & -node
    parent = (node ^ bit) | (bit << 1)
    if parent >= count:
        parent = node ^ bit
    low = bit >> 1
    if not low:
        return parent, []
    while node + low >= count and low > 1:
        low >>= 1
    right = [node + low] if node + low < count else []
    return parent, [node - (bit >> 1), *right]
