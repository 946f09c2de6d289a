"""Point-to-point semantics of the queue transport, and that it counts what it moves."""

from __future__ import annotations

import time

import numpy as np
import pytest

from collectives.transport.launch import RankFailure
from collectives.transport.queue.links import DIRECT_MIN_BYTES, INLINE_MAX_BYTES, SEGMENT_BYTES
from tests.support.transport import run_program

# Message sizes (bytes) covering every path: empty, inline, one segment, many segments.
SIZES = [0, 8, INLINE_MAX_BYTES, INLINE_MAX_BYTES + 8, SEGMENT_BYTES, 3 * SEGMENT_BYTES + 24]


@pytest.mark.parametrize("nbytes", SIZES)
def test_send_recv_moves_the_bytes_and_counts_them(nbytes):
    elements = nbytes // 8

    def program(comm, _):
        if comm.rank == 0:
            comm.send(np.arange(elements, dtype=np.float64), 1)
            return np.zeros(1)
        got = comm.recv(0)
        return np.array([float(np.array_equal(got, np.arange(elements)))])

    run = run_program(2, program)
    assert run.results[1, 0] == 1.0
    counts = run.counts
    assert counts.messages == 1
    assert counts.bytes_total == elements * 8
    assert counts.bytes_sent == [elements * 8, 0]
    assert counts.bytes_recv == [0, elements * 8]
    assert counts.rounds == 1
    assert counts.bytes_critical == elements * 8


def test_messages_from_one_source_arrive_in_order_even_when_unexpected():
    """Rank 0 sends many messages of mixed paths before rank 1 asks for any of them."""
    sizes = [1, 600, 1, 40_000, 0, 100_000, 3]

    def program(comm, _):
        if comm.rank == 0:
            for i, size in enumerate(sizes):
                comm.send(np.full(size, i, dtype=np.int64), 1)
            return np.zeros(1)
        comm.recv(2)  # wait on another rank first: rank 0's messages pile up unexpected
        ok = all(np.array_equal(comm.recv(0), np.full(size, i)) for i, size in enumerate(sizes))
        return np.array([float(ok)])

    def with_third(comm, arg):
        if comm.rank == 2:
            comm.send(np.zeros(1), 1)
            return np.zeros(1)
        return program(comm, arg)

    run = run_program(3, with_third)
    assert run.results[1, 0] == 1.0


def test_recv_into_out_and_size_mismatch_is_an_error():
    def program(comm, _):
        if comm.rank == 0:
            comm.send(np.arange(10.0), 1)
            comm.send(np.arange(10.0), 1)
            return np.zeros(10)
        out = np.empty(10)
        got = comm.recv(0, out=out)
        assert got is out and np.array_equal(out, np.arange(10.0))
        comm.recv(0, out=np.empty(9))
        return out

    with pytest.raises(RankFailure, match="holds 10 elements, the buffer 9"):
        run_program(2, program, elements=10)


def test_sendrecv_with_self_and_pairwise_exchange_of_large_messages():
    elements = (2 * SEGMENT_BYTES) // 8 + 5  # several segments each way

    def program(comm, _):
        mine = np.full(elements, comm.rank + 1.0)
        partner = 1 - comm.rank
        theirs = comm.sendrecv(mine, partner, partner)
        echo = comm.sendrecv(mine, comm.rank, comm.rank)
        assert np.array_equal(echo, mine)
        return theirs

    run = run_program(2, program, elements=elements)
    assert np.all(run.results[0] == 2.0) and np.all(run.results[1] == 1.0)
    assert run.counts.messages == 4
    assert run.counts.rounds == 2  # the exchange, then the self-message


def test_many_inline_messages_into_one_full_inbox_do_not_deadlock():
    """Every rank floods rank 0 with inline messages (far more than a pipe holds)."""
    per_sender = 40
    payload = INLINE_MAX_BYTES // 8

    def program(comm, _):
        if comm.rank != 0:
            for _ in range(per_sender):
                comm.send(np.ones(payload), 0)
            return np.zeros(1)
        total = 0.0
        for _ in range(per_sender):
            for source in range(1, comm.size):
                total += comm.recv(source).sum()
        return np.array([total])

    run = run_program(6, program)
    assert run.results[0, 0] == 5 * per_sender * payload


def test_reduce_local_adds_and_counts():
    def program(comm, _):
        acc = np.ones(7)
        comm.reduce_local(np.full(7, 2.0), acc)
        with pytest.raises(ValueError, match="inbuf holds 3 elements, the buffer 7"):
            comm.reduce_local(np.ones(3), acc)
        return acc

    run = run_program(1, program, elements=7)
    assert np.all(run.results[0] == 3.0)
    assert run.counts.elements_reduced == 7


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.int64])
def test_dtypes_survive_the_trip(dtype):
    def program(comm, _):
        data = np.arange(1000).astype(dtype)
        if comm.rank == 0:
            comm.send(data, 1)
            return data
        got = comm.recv(0)
        assert got.dtype == dtype
        return got

    run = run_program(2, program, elements=1000, dtype=dtype)
    assert np.array_equal(run.results[1], np.arange(1000).astype(dtype))


def test_bad_peers_and_shapes_are_errors():
    def program(comm, _):
        comm.send(np.ones(3), 5)

    with pytest.raises(RankFailure, match=r"dest rank 5 is outside 0\.\.1"):
        run_program(2, program)

    def two_d(comm, _):
        comm.send(np.ones((2, 2)), 0)

    with pytest.raises(RankFailure, match="1-D"):
        run_program(1, two_d)


@pytest.mark.parametrize("elements", [3, 50_000])  # inline and multi-segment
def test_fused_receive_reduce_direct_and_unexpected(elements):
    def program(comm, _):
        acc = np.full(elements, 1.0)
        if comm.rank == 0:
            comm.send(np.full(elements, 2.0), 1)
            comm.send(np.full(elements, 3.0), 1)
            comm.sendrecv_reduce(np.full(elements, 5.0), 1, 1, acc)  # acc += rank 1's 7
            return acc
        comm.recv_reduce(0, acc)  # acc = 3
        comm.recv_reduce(0, acc)  # acc = 6 (this one may have arrived unexpected)
        comm.sendrecv_reduce(np.full(elements, 7.0), 0, 0, acc)  # acc += 5
        return acc

    run = run_program(2, program, elements=elements)
    assert np.all(run.results[0] == 8.0) and np.all(run.results[1] == 11.0)
    assert run.counts.elements_reduced == 4 * elements
    assert run.counts.messages == 4


def test_sendrecv_reduce_refuses_overlapping_buffers():
    def program(comm, _):
        data = np.ones(10)
        comm.sendrecv_reduce(data[:6], 0, 0, data[4:])

    with pytest.raises(RankFailure, match="must not overlap"):
        run_program(1, program)


@pytest.mark.parametrize("nbytes", [DIRECT_MIN_BYTES, 3 * SEGMENT_BYTES + 24])
def test_working_copies_travel_in_place_expected_or_not(nbytes):
    """Sends from comm.copy buffers are read out of the sender's arena: into the waiting
    receive, into a fused add, or kept when they arrive before their receive; the sender's
    buffer is its own again once the send returns."""
    elements = nbytes // 8

    def program(comm, _):
        peer = 1 - comm.rank
        mine = comm.copy(np.full(elements, comm.rank + 1.0))
        if comm.rank == 0:
            comm.send(mine, peer)  # arrives before rank 1 asks for it
            mine[:] = -1.0  # ours again: the receiver already holds its copy
            comm.send(comm.copy(np.full(elements, 10.0)), peer)
            total = comm.copy(np.zeros(elements))
            comm.recv_reduce(peer, total)
            return total
        time.sleep(0.05)
        first = comm.recv(peer)
        second = comm.recv(peer, out=comm.copy(np.zeros(elements)))
        comm.send(first + second, peer)
        return comm.sendrecv(mine, comm.rank, comm.rank)  # to itself, in place

    run = run_program(2, program, elements=elements)
    assert np.all(run.results[0] == 11.0) and np.all(run.results[1] == 2.0)
    assert run.counts.messages == 4 and run.counts.bytes_total == 4 * nbytes
