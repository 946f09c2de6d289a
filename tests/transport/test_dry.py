"""The dry transport: the trace the real transports record, without moving a byte."""

from __future__ import annotations

import time

import numpy as np
import pytest

from collectives import registry
from collectives.transport import dry
from collectives.transport.dry import Hollow, dry_trace, hollow, role_trace
from collectives.transport.trace import RECV
from tests.support.runs import run_with_trace

POINTS = [
    (name, n, m, dtype)
    for name in ("naive", "ring", "recursive_doubling", "rabenseifner", "binomial_tree")
    for n, m, dtype in (
        (2, 1, "float64"),
        (3, 5, "float32"),
        (6, 1000, "int64"),
        (8, 33, "float64"),
    )
]


def same(first, second) -> bool:
    return all(
        np.array_equal(getattr(first, column), getattr(second, column))
        for column in ("offsets", "kind", "peer", "amount")
    )


@pytest.mark.parametrize(("name", "n", "m", "dtype"), POINTS)
def test_the_dry_trace_is_the_measured_one(name, n, m, dtype):
    _, measured = run_with_trace(name, n, m, dtype=dtype)
    itemsize = np.dtype(dtype).itemsize
    assert same(dry_trace(registry.get(name).allreduce, n, m, itemsize), measured)


@pytest.mark.parametrize("m", [64, 8192])  # below and above its switch to ring across nodes
def test_hierarchical_decides_by_the_bytes_it_stands_for(m):
    _, measured = run_with_trace("hierarchical", 16, m, parameters={"ranks_per_node": 4})
    allreduce = registry.get("hierarchical").bind(ranks_per_node=4)
    assert same(dry_trace(allreduce, 16, m, 8), measured)


def test_hollow_vectors_hold_no_bytes():
    vector = hollow(1 << 40, 4)  # a tebi-element vector
    assert vector.nbytes == 4 << 40 and vector.itemsize == 4  # stood for, not held
    assert vector.view(np.ndarray).nbytes == 0
    assert isinstance(vector[10:20], Hollow) and vector[10:20].itemsize == 4
    assert vector[: 1 << 20].copy().itemsize == 4  # (a copy visits every element)


def test_a_large_cluster_run_is_cheap():
    trace = dry_trace(registry.get("recursive_doubling").allreduce, 192, 8 << 20, 4)
    assert trace.ranks == 192
    assert int(trace.amount[trace.kind == 0].max()) == 32 << 20  # whole 32 MiB vectors


def test_a_failing_rank_is_reported():
    def broken(comm, x):
        if comm.rank == 1:
            raise ZeroDivisionError("rank 1 fails")
        return x

    with pytest.raises(ZeroDivisionError, match="rank 1 fails"):
        dry_trace(broken, 3, 4, 8)


def test_a_failing_rank_is_reported_while_the_others_wait_for_it():
    def broken(comm, x):
        if comm.rank == 1:
            raise ZeroDivisionError("rank 1 fails")
        return comm.recv(1, out=x)  # waits for rank 1's message, which never comes

    started = time.perf_counter()
    with pytest.raises(ZeroDivisionError, match="rank 1 fails"):
        dry_trace(broken, 3, 4, 8)
    assert time.perf_counter() - started < 10  # not the 60 s a waiting rank gives up after
    ring = dry_trace(registry.get("ring").allreduce, 4, 8, 8)  # fresh workers afterwards
    assert ring.ranks == 4


def test_a_receive_that_disagrees_with_its_send_is_caught():
    def mismatched(comm, x):
        if comm.rank == 0:
            comm.recv(1, out=x[:4])  # rank 1 has not run yet: the size is taken on trust...
        else:
            comm.send(x[:5], 0)  # ...and checked once it has
        return x

    with pytest.raises(ValueError, match=r"rank 0 received \[4\] elements from rank 1"):
        dry_trace(mismatched, 2, 8, 8)


def test_swaps_of_unknown_size_run_one_rank_after_another(monkeypatch):
    """Recursive doubling receives its partner's vector without naming a buffer: taken to
    be as long as its own, the ranks run in turn, with no thread, and trace the same."""
    allreduce = registry.get("recursive_doubling").allreduce
    threaded = dry._all_at_once(allreduce, 48, 1000, 4, 48)  # folded: not a power of two

    def no_threads(*_):
        raise AssertionError("traced by threads")

    monkeypatch.setattr(dry, "_all_at_once", no_threads)
    assert same(dry_trace(allreduce, 48, 1000, 4), threaded)


def test_a_wrong_guess_of_a_size_is_traced_again_by_threads():
    def unequal_halves(comm, x):
        mine = x[:3] if comm.rank == 0 else x[3:]  # rank 0 sends 3 elements, rank 1 five
        comm.sendrecv(mine, 1 - comm.rank, 1 - comm.rank)
        return x

    trace = dry_trace(unequal_halves, 2, 8, 8)
    received = trace.amount[trace.kind == RECV]
    assert list(received) == [5 * 8, 3 * 8]  # rank 0 got rank 1's five, rank 1 the three


def ring_roles(ranks: int) -> list[tuple[str, tuple[int, ...]]]:
    """Every rank of a ring in one role: its left, then its right neighbour."""
    return [("ring", ((r - 1) % ranks, (r + 1) % ranks)) for r in range(ranks)]


def test_a_trace_by_roles_runs_one_rank_per_role_and_equals_the_whole():
    calls = []

    def counted(comm, x):
        calls.append(comm.rank)
        return registry.get("ring").allreduce(comm, x)

    by_roles = role_trace(counted, 8, 16, 4, ring_roles(8))
    assert calls == [0]  # one role, its first rank
    assert same(by_roles, dry_trace(registry.get("ring").allreduce, 8, 16, 4))


def test_roles_that_do_not_hold_fail_their_checks():
    ring = registry.get("ring").allreduce
    with pytest.raises(ValueError, match="other messages than it receives"):
        role_trace(ring, 8, 17, 4, ring_roles(8))  # chunks of 3 and 2 elements: not alike
    with pytest.raises(ValueError, match="not among its declared peers"):
        role_trace(ring, 8, 16, 4, [("ring", ((r + 1) % 8,)) for r in range(8)])
    with pytest.raises(ValueError, match="7 roles declared for 8 ranks"):
        role_trace(ring, 8, 16, 4, ring_roles(8)[:7])
