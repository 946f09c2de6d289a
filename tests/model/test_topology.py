"""Topologies: flat, two-level with pooled NICs, and rail-optimised nodes (each NIC serving
its own block of positions): where ranks sit, and measure, theory and replay agreeing on
each."""

from __future__ import annotations

import numpy as np
import pytest

from collectives.model import theory
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import by_link_class, replay
from collectives.model.topology import FLAT, INTER, INTRA, Topology
from tests.support.runs import run_with_trace

INTRA_LINK, INTER_LINK = LinkClass(3e-7, 2e-11), LinkClass(2.6e-6, 1.05e-10)


def test_where_ranks_sit():
    nodes = Topology(4, nic_per_node=2, rails=True)
    assert [nodes.node(r) for r in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [nodes.position(r) for r in range(8)] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert nodes.node_ranks(6, 8) == [4, 5, 6, 7] and nodes.peers_across(6, 8) == [2, 6]
    assert nodes.link_class(1, 2) == INTRA and nodes.link_class(1, 5) == INTER
    assert nodes.crosses(np.array([0, 3]), np.array([3, 4])).tolist() == [False, True]
    # rails: positions 0-1 use NIC 0, positions 2-3 NIC 1, one port each
    assert [nodes.nic(r) for r in (0, 1, 2, 3, 5)] == [
        ((0, 0), 1), ((0, 0), 1), ((0, 1), 1), ((0, 1), 1), ((1, 0), 1),
    ]  # fmt: skip
    pooled = Topology(4, nic_per_node=2)
    assert {pooled.nic(r) for r in range(4)} == {((0, 0), 2)}  # one pool of both ports
    assert Topology(4).nic(0) is None and FLAT.nic(0) is None
    assert FLAT.node_ranks(2, 5) == [0, 1, 2, 3, 4] and FLAT.peers_across(2, 5) == [2]
    assert (FLAT.levels, nodes.levels, nodes.nodes(8), FLAT.nodes(8)) == (1, 2, 2, 1)


@pytest.mark.parametrize(
    "kwargs",
    [{"ranks_per_node": 0}, {"nic_per_node": 2}, {"ranks_per_node": 4, "nic_per_node": 3,
                                                   "rails": True}],
)  # fmt: skip
def test_a_topology_no_cluster_has_is_refused(kwargs):
    with pytest.raises(ValueError):
        Topology(**kwargs)


def rail_fabric(nics: int | None, rails: bool = False) -> Fabric:
    return Fabric("rail", "structured", INTER_LINK, intra=INTRA_LINK, ranks_per_node=4,
                  nic_per_node=nics, rails=rails)  # fmt: skip


@pytest.mark.parametrize(("n", "m"), [(8, 33), (12, 70000), (16, 9)])
def test_measure_theory_and_replay_agree_on_rail_nodes(n, m):
    """The hierarchical all-reduce on nodes of 4 with 4 rails: its counts per link class are
    the closed form's (NICs change no link's class), and its replay equals the closed-form
    time, since with a rail per position no two ranks share a NIC port (a rank's own send
    port already serialises its messages)."""
    record, trace = run_with_trace("hierarchical", n, m, parameters={"ranks_per_node": 4})
    rails = rail_fabric(4, rails=True)
    classes = theory.hierarchical_by_class(n, m, 8, 4)
    assert by_link_class(trace, rails.topology) == classes == record["link_classes"]["measured"]
    closed = sum(
        classes[name]["rounds"] * link.alpha + classes[name]["bytes_critical"] * link.beta
        for name, link in ((INTRA, INTRA_LINK), (INTER, INTER_LINK))
    )
    assert replay(trace, rails) == pytest.approx(closed, rel=1e-12)
    assert replay(trace, rails) == replay(trace, rail_fabric(None))


def test_fewer_rails_queue_what_more_rails_carry_at_once():
    """Hierarchical across 2 nodes of 4: every position sends across at once. One NIC shared by the
    node's 4 positions is slower than 2 rails, which are slower than 4, whose replay is the
    unshared one; 2 pooled ports carry what 2 rails carry."""
    _, trace = run_with_trace("hierarchical", 8, 1 << 16, parameters={"ranks_per_node": 4})
    one, two, four = (replay(trace, rail_fabric(k, rails=True)) for k in (1, 2, 4))
    assert one > two > four == replay(trace, rail_fabric(None))
    assert replay(trace, rail_fabric(2)) == pytest.approx(two, rel=1e-12)
    assert replay(trace, rail_fabric(1)) == pytest.approx(one, rel=1e-12)
