"""The single-port clock rules and the aggregation of per-rank ledgers."""

from __future__ import annotations

import numpy as np

from collectives.transport.accounting import LEDGER_FIELDS, Ledger, PortClock, RunCounts
from collectives.transport.trace import NO_PEER, RECV, REDUCE, SEND


def test_send_stamps_with_the_later_of_clock_and_send_port():
    clock = PortClock(clock=3, send_port=5)
    assert clock.stamp_send(1) == 5
    assert clock.send_port == 6
    assert clock.clock == 3  # sending does not advance the clock


def test_receive_serializes_on_the_receive_port():
    clock = PortClock()
    clock.receive(stamp=0, weight=1)
    clock.receive(stamp=0, weight=1)  # a second message stamped 0 queues behind the first
    assert (clock.recv_port, clock.clock) == (2, 2)
    clock.receive(stamp=7, weight=4)
    assert (clock.recv_port, clock.clock) == (11, 11)


def test_root_of_a_gather_then_broadcast_takes_2n_minus_2_rounds():
    """Rank 0 receives N-1 messages, then sends N-1: its ports serialize all of them."""
    n = 5
    root, leaves = PortClock(), [PortClock() for _ in range(n - 1)]
    for leaf in leaves:
        root.receive(leaf.stamp_send(1), 1)
    for leaf in leaves:
        leaf.receive(root.stamp_send(1), 1)
    assert max(leaf.clock for leaf in leaves) == 2 * (n - 1)


def test_ledger_counts_aggregates_and_traces():
    a, b = Ledger(), Ledger()
    stamps = a.on_send(1, 100)
    b.on_recv(0, 100, *stamps)
    b.on_reduce(12)
    assert a.event_array().tolist() == [[SEND, 1, 100]]
    assert b.event_array().tolist() == [[RECV, 0, 100], [REDUCE, NO_PEER, 12]]
    counts = RunCounts.from_ledgers(np.array([a.as_row(), b.as_row()]))
    assert len(a.as_row()) == len(LEDGER_FIELDS)
    assert counts.messages == 1
    assert counts.bytes_total == 100
    assert counts.bytes_sent == [100, 0] and counts.bytes_recv == [0, 100]
    assert counts.hotspot_bytes == 100
    assert counts.rounds == 1
    assert counts.bytes_critical == 100
    assert counts.elements_reduced == 12
