"""Replaying traces: hand-computed tiny cases, and agreement with the closed forms."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from collectives.model import theory
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import Cores, ReplayError, by_link_class, replay
from collectives.model.topology import Topology
from collectives.registry import ALGORITHMS, NODE_SIZE
from collectives.run.files import load_trace, save_trace
from collectives.transport.trace import EXCHANGE, NO_PEER, RECV, REDUCE, SEND, ClassTrace
from tests.support.runs import run_with_trace
from tests.support.traces import trace_of


def flat(link: LinkClass, gamma: float = 0.0) -> Fabric:
    """A flat fabric of one link class."""
    return Fabric("flat", "given", link, gamma=gamma)


def nodes(intra: LinkClass, inter: LinkClass, **structure) -> Fabric:
    """A two-level fabric: `intra` inside nodes, `inter` between them."""
    return Fabric("two-level", "structured", inter, intra=intra, **structure)


def test_one_message():
    trace = trace_of([(SEND, 1, 100)], [(RECV, 0, 100)])
    assert replay(trace, flat(LinkClass(1.0, 0.01))) == pytest.approx(2.0)


def test_gather_broadcast_with_reductions_by_hand():
    """Ranks 1, 2 send 10 B to 0, which adds each (5 elements, gamma 0.5) and sends back."""
    root = [(RECV, 1, 10), (REDUCE, NO_PEER, 5), (RECV, 2, 10), (REDUCE, NO_PEER, 5),
            (SEND, 1, 10), (SEND, 2, 10)]  # fmt: skip
    leaf = [(SEND, 0, 10), (RECV, 0, 10)]
    trace = trace_of(root, leaf, leaf)
    # w = 1 + 10 * 0.1 = 2. Root: receives end 2 and 4 (one receive port), adds end 4.5 and
    # 7; sends start at 7 and 9 (one send port); the last leaf receives at 11.
    fabric = flat(LinkClass(1.0, 0.1), gamma=0.5)
    assert replay(trace, fabric) == pytest.approx(11.0)
    assert replay(trace, flat(LinkClass(1.0, 0.1))) == pytest.approx(8.0)  # gamma = 0


def test_two_link_classes():
    """Rank 0 sends to 1 (same node) and then 2 (other node); G = 2."""
    trace = trace_of([(SEND, 1, 8), (SEND, 2, 8)], [(RECV, 0, 8)], [(RECV, 0, 8)], [])
    two_level = nodes(LinkClass(1.0, 0.0), LinkClass(10.0, 0.0), ranks_per_node=2)
    assert replay(trace, two_level) == pytest.approx(11.0)  # 1 on the node, then 10 across


@pytest.mark.parametrize(("nics", "expected"), [(None, 18.0), (1, 26.0), (2, 18.0)])
def test_shared_nic_ports_queue_bytes_not_latencies(nics, expected):
    """Ranks 0 and 1 (node 0) each send 8 B across to 2 and 3 (node 1) at time 0: 10 + 8
    each; one shared NIC port holds each for its 8 bytes, so the second starts at 8."""
    trace = trace_of([(SEND, 2, 8)], [(SEND, 3, 8)], [(RECV, 0, 8)], [(RECV, 1, 8)])
    fabric = nodes(LinkClass(1.0, 0.0), LinkClass(10.0, 1.0), ranks_per_node=2, nic_per_node=nics)
    assert replay(trace, fabric) == pytest.approx(expected)


def test_a_receive_without_a_send_is_an_error():
    with pytest.raises(ReplayError, match="never sent"):
        replay(trace_of([(RECV, 1, 8)], []), flat(LinkClass(1.0, 0.0)))


def test_trace_round_trip(tmp_path):
    _, trace = run_with_trace("ring", 5, 17)
    save_trace(tmp_path / "t.npz", trace)
    again = load_trace(tmp_path / "t.npz")
    assert np.array_equal(again.offsets, trace.offsets)
    assert (
        np.array_equal(again.amount, trace.amount)
        and np.count_nonzero(again.kind == SEND) == 2 * 5 * 4
    )


FLAT = flat(LinkClass(2.0e-6, 1.0e-10))
GRID = [
    (a, n, m)
    for a in ALGORITHMS
    if not ALGORITHMS[a].parameters
    for n in (1, 2, 3, 5, 8, 13)
    for m in (1, 7, 97, 1024)
]


@pytest.mark.parametrize(("algorithm", "n", "m"), GRID)
def test_flat_replay_equals_rounds_alpha_plus_critical_bytes_beta(algorithm, n, m):
    record, trace = run_with_trace(algorithm, n, m)
    closed = record["rounds"] * FLAT.link.alpha + record["bytes_critical"] * FLAT.link.beta
    assert replay(trace, FLAT) == pytest.approx(closed, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("n", "g", "m"), [(4, 2, 100), (8, 4, 33), (12, 4, 70000), (16, 8, 9), (6, 3, 50000)]
)
def test_hierarchical_replay_adds_up_its_link_classes(n, g, m):
    """On two link classes, replay = sum over classes of rounds*alpha + bytes*beta."""
    record, trace = run_with_trace("hierarchical", n, m, parameters={"ranks_per_node": g})
    intra, inter = LinkClass(3e-7, 2e-11), LinkClass(2.6e-6, 1.05e-10)
    classes = theory.hierarchical_by_class(n, m, 8, g)
    expected = sum(
        classes[name]["rounds"] * link.alpha + classes[name]["bytes_critical"] * link.beta
        for name, link in (("intra", intra), ("inter", inter))
    )
    fabric = nodes(intra, inter, ranks_per_node=g)
    assert replay(trace, fabric) == pytest.approx(expected, rel=1e-12)
    assert by_link_class(trace, Topology(g)) == classes == record["link_classes"]["measured"]


def test_nccl_ring_approaches_the_ring_as_its_chunks_grow():
    """One channel: smaller chunks pay more latencies for the same bytes; at one loop the
    replay is the ring's."""
    n, m, fabric = 4, 4096, flat(LinkClass(1e-6, 1e-9))
    _, ring_trace = run_with_trace("ring", n, m)
    ring_time = replay(ring_trace, fabric)
    times = []
    for chunk_bytes in (64, 512, 4096, 8 * m):
        _, trace = run_with_trace(
            "nccl_ring", n, m, parameters={"channels": 1, "chunk_bytes": chunk_bytes}
        )
        times.append(replay(trace, fabric))
    assert times == sorted(times, reverse=True)
    assert times[-1] == pytest.approx(ring_time)
    loops = m // (n * 64 // 8)  # the smallest chunks: 8 elements, 32 a loop
    bandwidth = 2 * (n - 1) / n * m * 8 * 1e-9
    assert times[0] == pytest.approx(loops * 2 * (n - 1) * 1e-6 + bandwidth, rel=0.01)


def test_double_binary_tree_latency_grows_with_log2_of_the_nodes_the_ring_with_the_nodes():
    """Two elements (one chunk a tree) on nodes of two: every doubling of the node count adds
    the same time to the trees (one level more), and twice the last increment to the ring."""
    fabric = nodes(LinkClass(3e-7, 2e-11), LinkClass(2.6e-6, 1.05e-10), ranks_per_node=2)
    tree, ring = [], []
    for node_count in (2, 4, 8, 16):
        parameters = {"ranks_per_node": 2}
        _, trace = run_with_trace("double_binary_tree", 2 * node_count, 2, parameters=parameters)
        tree.append(replay(trace, fabric))
        ring.append(replay(run_with_trace("ring", 2 * node_count, 2)[1], fabric))
    tree_steps, ring_steps = np.diff(tree), np.diff(ring)
    assert tree_steps == pytest.approx([tree_steps[0]] * 3, rel=0.01)
    assert ring_steps[1:] / ring_steps[:-1] == pytest.approx([2, 2], rel=0.05)
    assert tree[-1] < ring[-1] / 2


@pytest.mark.parametrize("n", [2, 4, 8])
def test_on_a_crossbar_one_shot_pays_one_latency_two_shot_two(n):
    """An exchange's sends need none of its receives: on a crossbar their α overlap, the
    rank's ports carrying their bytes one after another; one port takes them in turn."""
    alpha, beta, m = 1e-6, 1e-9, 8 * n
    nbytes = 8 * m
    crossbar = flat(LinkClass(alpha, beta, crossbar=True))
    one_port = flat(LinkClass(alpha, beta))
    _, one_shot = run_with_trace("one_shot", n, m)
    _, two_shot = run_with_trace("two_shot", n, m)
    assert (one_shot.kind == EXCHANGE).sum() == n and (two_shot.kind == EXCHANGE).sum() == 2 * n
    assert replay(one_shot, crossbar) == pytest.approx(alpha + (n - 1) * nbytes * beta)
    assert replay(one_shot, one_port) == pytest.approx((n - 1) * (alpha + nbytes * beta))
    assert replay(two_shot, crossbar) == pytest.approx(2 * (alpha + (n - 1) * nbytes / n * beta))
    _, ring = run_with_trace("ring", n, m)  # each step needs the last one's chunk
    assert replay(ring, crossbar) == pytest.approx(replay(ring, one_port))


def test_a_crossbar_inside_nodes_leaves_the_links_between_them_single_port():
    """The crossbar is per link class: the other class's measured occupancy stays out of a
    replay that is not pipelined, and an exchange overlaps only on the crossbar."""
    intra = LinkClass(3e-7, 8e-12, crossbar=True)
    occupied = LinkClass(2e-6, 1e-10, occupancy=(2e-7, 2e-11))
    plain = LinkClass(2e-6, 1e-10)
    _, ring = run_with_trace("ring", 16, 65536)
    with_occupancy = nodes(intra, occupied, ranks_per_node=8)
    without = nodes(intra, plain, ranks_per_node=8)
    assert replay(ring, with_occupancy) == pytest.approx(replay(ring, without))
    _, one_shot = run_with_trace("one_shot", 4, 64)
    across = nodes(intra, plain, ranks_per_node=1)  # every message between nodes
    assert replay(one_shot, across) == pytest.approx(3 * (2e-6 + 512 * 1e-10))


CLASS_FABRICS = {
    "flat": (flat(LinkClass(5e-6, 1 / 12e9)), None),
    "flat, cores of each rank": (flat(LinkClass(5e-6, 1 / 12e9)), Cores(1, of_rank=True)),
    "flat, shared cores": (flat(LinkClass(5e-6, 1 / 12e9)), Cores(2)),
    "two-level": (
        nodes(LinkClass(5e-7, 1 / 20e9), LinkClass(5e-6, 1 / 12e9), ranks_per_node=4),
        None,
    ),
    "crossbar nodes": (
        nodes(
            LinkClass(1e-6, 1 / 1e11, crossbar=True), LinkClass(5e-6, 1 / 12e9), ranks_per_node=4
        ),
        None,
    ),
    "shared NICs and cores": (
        nodes(
            LinkClass(5e-7, 1 / 20e9), LinkClass(5e-6, 1 / 12e9), ranks_per_node=4, nic_per_node=2
        ),
        Cores(2),
    ),
    "a rail per rank": (  # each rank's NIC its own (a GB200 tray's): replayed by classes
        nodes(
            LinkClass(1e-6, 1 / 1e11, crossbar=True), LinkClass(5e-6, 1 / 12e9),
            ranks_per_node=4, nic_per_node=4, rails=True,
        ),
        None,
    ),
}  # fmt: skip
BY_CLASSES = {"flat", "flat, cores of each rank", "two-level", "crossbar nodes", "a rail per rank"}


@pytest.mark.parametrize("kind", list(CLASS_FABRICS))
@pytest.mark.parametrize(
    ("name", "ranks", "per_node", "elements"),
    [
        ("ring", 12, 4, 1200),
        ("ring", 24, 3, 24 * 7),
        ("ring", 64, 8, 64 * 4),
        ("nccl_ring", 72, 4, 72 * 2 * 1000),
        ("hierarchical", 16, 4, 16 * 16384),
        ("one_shot", 8, 2, 100),
        ("two_shot", 8, 4, 800),
        ("double_binary_tree", 12, 4, 4096),
    ],
)
@pytest.mark.parametrize("pipelined", [False, True])
def test_the_classes_replay_to_the_bit_what_the_whole_trace_does(
    kind, name, ranks, per_node, elements, pipelined
):
    fabric, cores = CLASS_FABRICS[kind]
    if fabric.topology.ranks_per_node:
        rails = {"nic_per_node": per_node} if fabric.rails else {}
        fabric = replace(fabric, ranks_per_node=per_node, **rails)
    entry = ALGORITHMS[name]
    parameters = entry.resolve(
        {NODE_SIZE.name: per_node} if NODE_SIZE in entry.parameters else {}, ranks
    )
    traced = entry.trace(ranks, elements, 4, parameters, fabric.topology)
    by_classes = replay(traced, fabric, cores, pipelined)
    if isinstance(traced, ClassTrace):  # the classes alone, unless ranks share a pool
        assert ("expanded" in vars(traced)) is (kind not in BY_CLASSES)
    whole = traced.expanded if isinstance(traced, ClassTrace) else traced
    assert by_classes == replay(whole, fabric, cores, pipelined)
