"""Closed-form counts of every algorithm, exact integers, independent of the implementations.

N ranks, M elements of s bytes; lg = log2; p' = 2^floor(lg N), rem = N - p'. `rounds` and
`bytes_critical` follow the single-port clock rules of collectives.transport.accounting.
For N a power of two they reduce to the textbook forms (Thakur, Rabenseifner and Gropp
2005) that each algorithm module states on its Cost: line; collectives.registry pairs each
algorithm with its function here.
"""

from __future__ import annotations

from collections.abc import Callable

from ..transport.accounting import COUNT_FIELDS, Counts
from .topology import Topology

__all__ = ["COUNT_FIELDS", "Counts"]  # the counts' terms, as the transport counts them

# The hierarchical all-reduce's switch between its inter-node algorithms, restated from its
# description (docs/algorithms.md): recursive doubling while the largest shard is below 64 KiB,
# ring above (tests/model/test_theory.py checks the implementation switches there).
HIERARCHICAL_DOUBLING_BELOW = 64 * 1024  # bytes


def _lg(n: int) -> int:
    """floor(log2 n) for n >= 1."""
    return n.bit_length() - 1


def naive(n: int, m: int, s: int) -> Counts:
    """Rank 0's ports serialize N-1 receives and N-1 sends of the whole vector."""
    every = 2 * (n - 1)
    return Counts(every, every, every * m * s, every * m * s, every * m * s)


def ring(n: int, m: int, s: int) -> Counts:
    """2(N-1) steps of one chunk; chunks differ by at most one element."""
    if n == 1:
        return Counts(0, 0, 0, 0, 0)
    biggest = -(-m // n)
    return Counts(
        rounds=2 * (n - 1),
        messages=2 * n * (n - 1),
        bytes_total=2 * (n - 1) * m * s,
        bytes_critical=2 * (n - 1) * biggest * s,
        hotspot_bytes=_ring_busiest(n, m) * s,
    )


def _ring_busiest(n: int, m: int) -> int:
    """Elements through the busiest rank of a ring all-reduce of M elements on N ranks.

    Rank r sends every chunk but r+1 and r+2 and receives every chunk but r and r+1, so it
    moves 4M - (c_r + 2c_{r+1} + c_{r+2}) elements. With q = M mod N chunks of size
    floor(M/N)+1 leading, the smallest such window is 4 floor(M/N) + max(0, 3 - (N - q))
    when q > 0 (the small chunks are q..N-1), and 4M/N when q = 0.
    """
    if n == 1:
        return 0
    base, extra = divmod(m, n)
    return 4 * m - 4 * base - (max(0, 3 - (n - extra)) if extra else 0)


def recursive_doubling(n: int, m: int, s: int) -> Counts:
    """lg p' whole-vector exchanges, plus a fold and an unfold round when rem > 0."""
    lg = _lg(n)
    p = 1 << lg
    rem = n - p
    fold = 2 if rem else 0
    return Counts(
        rounds=lg + fold,
        messages=2 * rem + p * lg,
        bytes_total=(2 * rem + p * lg) * m * s,
        bytes_critical=(lg + fold) * m * s,
        hotspot_bytes=(2 * lg + fold) * m * s,
    )


def binomial_tree(n: int, m: int, s: int) -> Counts:
    """ceil(lg N) whole-vector steps up the tree and as many down; rank 0 in every one."""
    steps = (n - 1).bit_length()  # ceil(log2 N)
    return Counts(
        rounds=2 * steps,
        messages=2 * (n - 1),
        bytes_total=2 * (n - 1) * m * s,
        bytes_critical=2 * steps * m * s,
        hotspot_bytes=2 * steps * m * s,
    )


def rabenseifner(n: int, m: int, s: int) -> Counts:
    """Recursive halving then doubling over p' chunks, folded like recursive doubling.

    The p' chunks differ by at most one element, the first M mod p' being larger, so the
    first of the 2^k ranges of p'/2^k chunks is the heaviest: W_k = (p'/2^k) floor(M/p') +
    min(M mod p', p'/2^k). The critical path receives the heaviest kept half at every halving
    step (W_1 .. W_lg p') and sends the heaviest range back at every doubling step; the
    busiest rank (new rank 0) moves its whole current range W_0 .. W_{lg p' - 1} at every step
    of both phases. Folding adds a whole vector in and out.
    """
    lg = _lg(n)
    p = 1 << lg
    rem = n - p
    base, extra = divmod(m, p)

    def heaviest(level: int) -> int:
        width = p >> level
        return width * base + min(extra, width)

    fold = 2 * m if rem else 0
    return Counts(
        rounds=2 * lg + (2 if rem else 0),
        messages=2 * p * lg + 2 * rem,
        bytes_total=(2 * (p - 1) + 2 * rem) * m * s,
        bytes_critical=(2 * sum(heaviest(k) for k in range(1, lg + 1)) + fold) * s,
        hotspot_bytes=(2 * sum(heaviest(k) for k in range(lg)) + fold) * s,
    )


def hierarchical_by_class(n: int, m: int, s: int, g: int) -> dict[str, dict[str, int]]:
    """Per link class: rounds, messages, bytes_total, bytes_critical (see hierarchical)."""
    return _hierarchical(n, m, s, g)[1]


def hierarchical(n: int, m: int, s: int, g: int) -> Counts:
    """Ring reduce-scatter in each node of G, the shards across N/G nodes, ring all-gather.

    The G chunks are c_j = floor(M/G) + [j < M mod G]; the node phases are rings of G ranks
    and local rank l all-reduces chunk l+1 with one rank per node: by ring, or by recursive
    doubling when ceil(M/G) s < HIERARCHICAL_DOUBLING_BELOW. The phases follow each other on
    every rank, so rounds and critical bytes add up phase by phase along the chain of the
    largest chunk; the busiest rank is the worst l of its node traffic plus its shard's.
    """
    return _hierarchical(n, m, s, g)[0]


def _hierarchical(n: int, m: int, s: int, g: int) -> tuple[Counts, dict[str, dict[str, int]]]:
    nodes = Topology(g).nodes(n)
    base, extra = divmod(m, g)
    chunks = [base + (1 if j < extra else 0) for j in range(g)]
    largest = chunks[0]
    across = recursive_doubling if largest * s < HIERARCHICAL_DOUBLING_BELOW else ring
    shards = [across(nodes, c, 1) for c in chunks]  # each shard's all-reduce, in elements
    in_node = [
        4 * m - (chunks[j] + 2 * chunks[(j + 1) % g] + chunks[(j + 2) % g]) if g > 1 else 0
        for j in range(g)
    ]
    by_class = {
        "intra": {
            "rounds": 2 * (g - 1),
            "messages": 2 * nodes * g * (g - 1),
            "bytes_total": 2 * nodes * (g - 1) * m * s,
            "bytes_critical": 2 * (g - 1) * largest * s,
        },
        "inter": {
            "rounds": shards[0].rounds,
            "messages": sum(shard.messages for shard in shards),
            "bytes_total": sum(shard.bytes_total for shard in shards) * s,
            "bytes_critical": shards[0].bytes_critical * s,
        },
    }
    total = Counts(
        *(by_class["intra"][f] + by_class["inter"][f] for f in COUNT_FIELDS[:4]),
        hotspot_bytes=max(in_node[j] + shards[(j + 1) % g].hotspot_bytes for j in range(g)) * s,
    )
    return total, by_class


def one_shot(n: int, m: int, s: int) -> Counts:
    """Every rank swaps its whole vector with each of the N-1 others, one a round: a single
    port takes them in turn, so each rank's N-1 receives of M elements are its critical
    path, and every rank moves 2(N-1)M."""
    every = n * (n - 1)
    return Counts(
        rounds=n - 1,
        messages=every,
        bytes_total=every * m * s,
        bytes_critical=(n - 1) * m * s,
        hotspot_bytes=2 * (n - 1) * m * s,
    )


def two_shot(n: int, m: int, s: int) -> Counts:
    """N pieces c_j = floor(M/N) + [j < M mod N]; rank r sends M - c_r and receives
    (N-1)c_r in the reduce-scatter, sends (N-1)c_r and receives M - c_r in the all-gather,
    N-1 messages each. The owner of the largest piece (rank 0) receives N-1 of it, then
    sends it N-1 times: 2(N-1) ceil(M/N) on the critical path, and no message is larger."""
    if n == 1:
        return Counts(0, 0, 0, 0, 0)
    largest = -(-m // n)
    return Counts(
        rounds=2 * (n - 1),
        messages=2 * n * (n - 1),
        bytes_total=2 * (n - 1) * m * s,
        bytes_critical=2 * (n - 1) * largest * s,
        hotspot_bytes=2 * (m + (n - 2) * largest) * s,
    )


def nccl_ring(n: int, m: int, s: int, channels: int, chunk_bytes: int) -> Counts:
    """A ring all-reduce (see ring) on each channel's block of each loop.

    A loop holds up to C·N·K elements, K = max(1, chunk_bytes // s); there are
    L = max(1, ceil(M / (C·N·K))) loops, the last holding what is left. A loop of R elements
    gives its C channels blocks of floor(R/C) + [c < R mod C], and a block of B elements is
    cut into N chunks as ring cuts M. At every ring step each channel's biggest chunk
    (chunk 0, ceil(B/N)) sits on the same rank, and the channels go through its ports in
    turn: the critical path adds up, step by step, those chunks of every channel; the full
    loops leave every rank at the same clock, so the loops add up too. The busiest rank is
    the one whose traffic summed over the blocks is largest (ring's count, block by block).
    """
    if n == 1:
        return Counts(0, 0, 0, 0, 0)
    per_loop = channels * n * max(1, chunk_bytes // s)
    loops = max(1, -(-m // per_loop))
    blocks = [
        length // channels + (1 if c < length % channels else 0)
        for length in [per_loop] * (loops - 1) + [m - (loops - 1) * per_loop]
        for c in range(channels)
    ]
    traffic = [0] * n  # elements in and out of each rank
    for block in blocks:
        chunk = [block // n + (1 if j < block % n else 0) for j in range(n)]
        for r in range(n):
            traffic[r] += 4 * block - (chunk[r] + 2 * chunk[(r + 1) % n] + chunk[(r + 2) % n])
    return Counts(
        rounds=2 * (n - 1) * len(blocks),
        messages=2 * n * (n - 1) * len(blocks),
        bytes_total=2 * (n - 1) * m * s,
        bytes_critical=2 * (n - 1) * sum(-(-block // n) for block in blocks) * s,
        hotspot_bytes=max(traffic) * s,
    )


def double_binary_tree(n: int, m: int, s: int, g: int, chunk_bytes: int) -> Counts:
    """Two trees over nodes of G (nccl_trees: NCCL's trees, derived here from their
    definition and checked against trees.cc's drawings in the tests), each a spanning tree
    of N-1 edges; tree t carries half h_t of the vector (h_0 = ceil(M/2)) in ceil(h_t/K)
    chunks of K = max(1, chunk_bytes // s) elements, the last one shorter. Every chunk
    crosses every edge up and down: 2(N-1) messages a chunk and 2(N-1)M elements in all; a
    rank with d_t tree-t links moves 2 d_t h_t. The pipeline's critical path has no single
    formula over these irregular trees: it is the single-port clock recurrence, phase by
    phase (reduce up, then broadcast down), tree by tree, chunk by chunk, ranks in the order
    their inputs arrive, evaluated once with weight 1 a message (rounds) and once with its
    bytes."""
    step = max(1, chunk_bytes // s)
    halves = [m - m // 2, m // 2]
    chunks = [[min(step, half - start) for start in range(0, half, step)] for half in halves]
    links = nccl_trees(n, g)

    def moved(rank: int) -> int:
        """Elements in and out of `rank`: each half twice over each of its links."""
        return sum(
            2 * half * (len(children) + (parent is not None))
            for half, (parent, children) in zip(halves, (tree[rank] for tree in links), strict=True)
        )

    traffic = [moved(rank) for rank in range(n)]
    return Counts(
        rounds=_tree_pipeline_clock(links, chunks, lambda elements: 1),
        messages=2 * (n - 1) * sum(len(tree_chunks) for tree_chunks in chunks),
        bytes_total=2 * (n - 1) * m * s,
        bytes_critical=_tree_pipeline_clock(links, chunks, lambda elements: elements * s),
        hotspot_bytes=max(traffic) * s,
    )


TreeLinks = list[tuple[int | None, list[int]]]  # per rank: its parent and children


def _tree_pipeline_clock(
    links: list[TreeLinks], chunks: list[list[int]], weight: Callable[[int], int]
) -> int:
    """The largest single-port clock at the end of the trees' up-down pipeline: a message
    sent at max(clock, send port) occupies the send port for its weight and arrives at
    max(send time, receive port) + weight, which is the receiver's clock if it is later.
    Each rank's messages are taken in its program's order."""
    ranks = len(links[0])
    clock, send_port, recv_port = [0] * ranks, [0] * ranks, [0] * ranks
    sent_at = [0] * ranks  # when the message now travelling to (down) or from (up) a rank left

    def send(rank: int, w: int) -> int:
        sent = max(clock[rank], send_port[rank])
        send_port[rank] = sent + w
        return sent

    def receive(rank: int, sent: int, w: int) -> None:
        recv_port[rank] = max(sent, recv_port[rank]) + w
        clock[rank] = max(clock[rank], recv_port[rank])

    for upward in (True, False):
        for tree, tree_chunks in zip(links, chunks, strict=True):
            order = _root_first(tree)
            for w in map(weight, tree_chunks):
                for rank in reversed(order) if upward else order:
                    parent, children = tree[rank]
                    if upward:
                        for child in children:
                            receive(rank, sent_at[child], w)
                        if parent is not None:
                            sent_at[rank] = send(rank, w)
                    else:
                        if parent is not None:
                            receive(rank, sent_at[rank], w)
                        for child in children:
                            sent_at[child] = send(rank, w)
    return max(clock, default=0)


def nccl_trees(n: int, g: int) -> list[TreeLinks]:
    """NCCL's two trees over N ranks in nodes of G consecutive ranks, per rank its parent
    and children (the chain child first, then the child nodes' first ranks). The node
    trees are those of NCCL's definition (trees.cc, read for facts): tree 0 is the in-order
    binary tree over the node indices rooted at node 0 (in_order_tree); tree 1 mirrors it
    (node i is node count-1-i) for an even node count and shifts it by one node for an odd
    one. Inside a node the ranks form a chain from its first rank, which joins the trees."""
    count = n // g
    parents, below = in_order_tree(count)
    mirrored = count % 2 == 0

    def image(node: int) -> int:
        return count - 1 - node if mirrored else (node + 1) % count

    trees = [(parents, below), ([None] * count, [[] for _ in range(count)])]
    for node in range(count):
        parent = parents[node]
        trees[1][0][image(node)] = None if parent is None else image(parent)
        trees[1][1][image(node)] = [image(child) for child in below[node]]
    links = []
    for node_parents, node_children in trees:
        ranks: TreeLinks = []
        for rank in range(n):
            node, position = divmod(rank, g)
            chain = [rank + 1] if position + 1 < g else []
            if position:
                ranks.append((rank - 1, chain))
                continue
            parent = node_parents[node]
            ranks.append((
                None if parent is None else parent * g,
                chain + [child * g for child in node_children[node]],
            ))  # fmt: skip
        links.append(ranks)
    return links


def in_order_tree(count: int) -> tuple[list[int | None], list[list[int]]]:
    """The in-order binary tree over nodes 0..count-1 rooted at node 0: node 0's one child
    roots nodes 1..count-1, and the root of a range of nodes is its node with the most
    trailing zero bits, the range below it its left subtree and the range above its right.
    Per node its parent and its children, left first."""
    parents: list[int | None] = [None] * count
    children: list[list[int]] = [[] for _ in range(count)]
    ranges = [(1, count, 0)] if count > 1 else []  # (first, end, the parent of their root)
    while ranges:
        first, end, parent = ranges.pop()
        if first >= end:
            continue
        bit = 1 << (end - 1).bit_length()
        while -(-first // bit) * bit >= end:
            bit >>= 1
        root = -(-first // bit) * bit
        parents[root] = parent
        children[parent].append(root)
        ranges += [(root + 1, end, root), (first, root, root)]  # the left one taken first
    return parents, children


def _root_first(links: TreeLinks) -> list[int]:
    """The ranks of a tree, every parent before its children."""
    order = [rank for rank, (parent, _) in enumerate(links) if parent is None]
    for rank in order:
        order += links[rank][1]
    return order
