"""The model ladder: each layer on small hand-built traces with known answers."""

from __future__ import annotations

import pytest

from collectives.model import ladder
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import Cores, replay
from collectives.transport.trace import RECV, REDUCE, SEND
from tests.support.traces import trace_of

LINK = LinkClass(1.0, 0.01)  # one message of b bytes: 1 + b/100 seconds


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_k_ranks_on_one_core_take_k_times_as_long(k):
    trace = trace_of(*([(REDUCE, -1, 1000)] for _ in range(k)))
    fabric = Fabric("flat", "given", LINK, gamma=1e-3)  # each reduction: 1 s of work
    assert replay(trace, fabric) == pytest.approx(1.0)
    assert replay(trace, fabric, Cores(k)) == pytest.approx(1.0)
    assert replay(trace, fabric, Cores(1)) == pytest.approx(k)


def test_two_copies_sharing_a_core_take_twice_as_long():
    trace = trace_of([(SEND, 1, 100)], [(RECV, 0, 100)])  # one message: 2 s
    fabric = Fabric("flat", "given", LINK)
    assert replay(trace, fabric) == pytest.approx(2.0)
    assert replay(trace, fabric, Cores(2, share=1.0)) == pytest.approx(2.0)  # a core each
    assert replay(trace, fabric, Cores(1, share=1.0)) == pytest.approx(4.0)  # one after the other
    assert replay(trace, fabric, Cores(1, share=0.5)) == pytest.approx(3.0)  # half of each


def test_cores_are_per_node_on_a_two_level_fabric():
    # ranks 0 and 1 on node 0, 2 and 3 on node 1: each node's two reductions share one core
    trace = trace_of(*([(REDUCE, -1, 1000)] for _ in range(4)))
    fabric = Fabric("two-level", "structured", LINK, intra=LINK, ranks_per_node=2, gamma=1e-3)
    assert replay(trace, fabric, Cores(1)) == pytest.approx(2.0)


def test_each_layer_adds_one_thing():
    exchange = [(SEND, 1, 100), (RECV, 1, 100), (REDUCE, -1, 1000)]
    trace = trace_of(exchange, [(SEND, 0, 100), (RECV, 0, 100), (REDUCE, -1, 1000)])
    nodes = Fabric("nodes", "structured", LINK, intra=LinkClass(0.1, 0.001), ranks_per_node=1,
                   gamma=1e-3)  # fmt: skip
    times = ladder.predict(trace, 1, 100, ladder.rungs(nodes), Cores(2))
    assert list(times) == list(ladder.MODELS)
    assert times["alpha-beta"] == pytest.approx(1 * 1.0 + 100 * 0.01)  # the closed form
    assert times["+gamma"] == pytest.approx(2.0 + 1.0)  # and the reduction
    assert times["+structure"] == pytest.approx(times["+gamma"])  # one rank per node: inter
    assert times["+resources"] == pytest.approx(times["+structure"])  # a core per copy
    one_core = ladder.predict(trace, 1, 100, ladder.rungs(nodes), Cores(1, share=0.5))
    one_core = one_core["+resources"]
    assert one_core == pytest.approx(4.0)  # a rank's send and receive copies share its core
    shared = Fabric("one node", "structured", LINK, intra=LINK, ranks_per_node=2, gamma=1e-3)
    both = ladder.predict(trace, 1, 100, ladder.rungs(shared), Cores(1, share=0.5))
    assert both["+resources"] > both["+structure"]  # two ranks queue for one core
    assert times["+protocol"] == times["+resources"]  # given links: no segments to fit


def test_the_protocol_layer_prices_each_message_by_its_segment():
    # measured: 1 s per message up to 1 kB (an eager path), then 10 s + 1 ms per byte
    sizes = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000]
    seconds = [1.0 if b <= 1000 else 10.0 + b * 1e-3 for b in sizes]
    measured = LinkClass(1.0, 1e-3, "measured", measurements={"bytes": sizes, "seconds": seconds})
    fabric = Fabric("measured", "measured", measured)
    small = trace_of([(SEND, 1, 100)], [(RECV, 0, 100)])
    large = trace_of([(SEND, 1, 50_000)], [(RECV, 0, 50_000)])
    for trace, expected in ((small, 1.0), (large, 10.0 + 50.0)):
        times = ladder.predict(trace, 1, 100, ladder.rungs(fabric), None)
        assert times["+protocol"] == pytest.approx(expected, rel=1e-9)
        assert times["+resources"] == pytest.approx(1.0 + trace.amount[0] * 1e-3)
    assert ladder.column("alpha-beta") == "alpha_beta_s" and ladder.column("+gamma") == "gamma_s"


def test_pipelined_messages_hold_their_ports_only_for_the_occupancy():
    # rank 0 sends rank 1 three messages: 1 s each, of which 0.25 s hold the ports
    link = LinkClass(1.0, 0.0, occupancy=(0.25, 0.0))
    trace = trace_of([(SEND, 1, 8)] * 3, [(RECV, 0, 8)] * 3)
    fabric = Fabric("flat", "measured", link)
    assert replay(trace, fabric) == pytest.approx(3.0)  # one after the other
    assert replay(trace, fabric, pipelined=True) == pytest.approx(0.75 + 0.75)  # overlapped
    one = trace_of([(SEND, 1, 8)], [(RECV, 0, 8)])
    assert replay(one, fabric, pipelined=True) == pytest.approx(1.0)  # alone: its full time


def test_a_message_takes_its_nic_and_its_core_from_the_same_start():
    from collectives.model.replay import _Pool, _together

    nic, core = _Pool(1), _Pool(1)
    nic.acquire(0.0, 1.0)  # the NIC is busy in [0, 1)
    core.acquire(1.0, 1.0)  # the core in [1, 2)
    assert _together(nic, 1.0, core, 0.5, ready=0.0) == 2.0  # both free from 2
    assert nic.find(1.0, 1.0)[1] == 1.0  # [1, 2) stayed free on the NIC: nothing booked early
    assert core.find(2.0, 0.5)[1] == 2.5  # and the core holds [2, 2.5)
