"""Starting, supervising and failing rank processes; fault injection."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from collectives.algorithms import ring
from collectives.transport.launch import RankFailure
from collectives.transport.queue import Fault
from collectives.transport.queue.links import Links
from tests.support.transport import run_program


def ring_program(comm, _):
    return ring.allreduce(comm, np.full(64, float(comm.rank)))


def test_every_rank_runs_and_reports_timing():
    run = run_program(4, ring_program, elements=64)
    assert np.all(run.results == sum(range(4)))
    assert 0 < run.collective_seconds <= run.wall_seconds


def test_waiting_ranks_poll_only_when_every_rank_has_a_core(monkeypatch):
    cores = len(os.sched_getaffinity(0))
    assert Links(cores, 8).spin
    assert not Links(cores + 1, 8).spin
    monkeypatch.setenv("COLLECTIVES_WAIT", "sleep")
    assert not Links(1, 8).spin
    monkeypatch.setenv("COLLECTIVES_WAIT", "poll")
    assert Links(cores + 1, 8).spin
    monkeypatch.setenv("COLLECTIVES_WAIT", "spin")
    with pytest.raises(ValueError, match="COLLECTIVES_WAIT='spin' is not one of: auto"):
        Links(1, 8)


@pytest.mark.parametrize("ranks", [2, 5])  # polling ranks on two cores, then sleeping ones
def test_the_harness_barrier_holds_every_rank_until_all_arrive(ranks):
    def program(comm, _):
        times = []
        for _ in range(20):
            if comm.rank == 0:
                time.sleep(0.002)  # the last to arrive
            arrived = time.perf_counter()
            comm.barrier()
            times.append((arrived, time.perf_counter()))
        return np.array(times).ravel()

    run = run_program(ranks, program, elements=40)
    arrived, left = run.results[:, 0::2], run.results[:, 1::2]
    assert np.all(arrived.max(axis=0) <= left.min(axis=0))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("crash:2", r"rank 2 failed: RuntimeError: injected crash"),
        ("kill:2", r"rank 2 was killed by signal SIGKILL"),
        ("hang:2", r"timed out after 1 s: rank 2 made no progress"),
    ],
)
def test_a_failing_rank_is_named_with_its_cause(spec, message):
    started = time.perf_counter()
    with pytest.raises(RankFailure, match=message):
        run_program(5, ring_program, elements=64, fault=Fault.parse(spec, 5), timeout=1)
    elapsed = time.perf_counter() - started
    # A dead rank is noticed at once, not at the timeout; a hang exactly at it.
    assert elapsed < (3 if spec.startswith("hang") else 1)


def test_timeout_reports_who_waits_on_whom():
    with pytest.raises(RankFailure, match=r"4 rank\(s\) blocked waiting \(.*3 on 2"):
        run_program(5, ring_program, elements=64, fault=Fault.parse("hang:2", 5), timeout=1)


def test_a_rank_raising_in_its_program_fails_the_run():
    def program(comm, _):
        if comm.rank == 1:
            raise ValueError("bad input on rank 1")
        return comm.recv(1)

    with pytest.raises(RankFailure, match="rank 1 failed: ValueError: bad input on rank 1"):
        run_program(2, program)


def test_faults_strike_at_the_end_when_a_rank_never_communicates():
    with pytest.raises(RankFailure, match="rank 0 failed: RuntimeError: injected crash"):
        run_program(1, ring_program, elements=64, fault=Fault.parse("crash:0", 1))


def test_corrupt_and_extra_faults_change_result_and_traffic():
    run = run_program(3, ring_program, elements=64, fault=Fault.parse("corrupt:1", 3))
    assert run.results[1, 0] == 4.0 and run.results[0, 0] == 3.0
    clean = run_program(3, ring_program, elements=64).counts
    extra = run_program(3, ring_program, elements=64, fault=Fault.parse("extra:1", 3)).counts
    assert extra.messages == clean.messages + 1
    assert extra.bytes_sent[1] == clean.bytes_sent[1] + 64 * 8


@pytest.mark.parametrize("spec", ["crash", "crash:x", "melt:1", "kill:7", "kill:-1"])
def test_bad_fault_specs_are_rejected(spec):
    with pytest.raises(ValueError, match="inject-fault"):
        Fault.parse(spec, 4)
