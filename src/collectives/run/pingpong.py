"""Point-to-point micro-benchmarks over this project's own transports.

`pingpong`, like OSU's osu_latency: rank 0 sends a message of each size to rank 1, which
sends it back; after warm-up round trips, the one-way time is half the median round trip.
The two ranks are pinned to different cores when there are two. Buffers come from
`comm.copy`, as the algorithms' do, so a message takes the path theirs take. It calibrates
the `local` and `local-mpi` fabrics. With `direct` (mpi only) the MPI library's own
point-to-point is timed instead, mpi4py's Send/Recv on NumPy buffers without this project's
endpoint, as OSU's osu_latency times it: the costs an MPI library's own algorithms pay.

`exchange`, like osu_mbw_mr with every rank busy: N ranks in ⌊N/2⌋ pairs swap a message of
each size at once (a sendrecv), round after round, as the rounds of a pairwise all-reduce
do; the time of a round is what a message costs when N ranks share the machine (its cores,
its memory bandwidth, the transport's way of waiting). Ranks are placed as the timed runs
place them (not pinned).
"""

from __future__ import annotations

import os
import time

import numpy as np

from ..transport import get_transport
from ..transport.base import CountingComm
from ..transport.launch import Prepare, Program, RankRun
from .record import DEFAULT_TIMEOUT

LARGE_MESSAGE = 8192  # OSU's threshold above which fewer iterations are run
PINGPONG_RANKS = 2  # osu_latency's pair: rank 0 sends, rank 1 answers


def pingpong(
    sizes: list[int],
    iterations: int = 200,
    warmup: int = 10,
    timeout: float = DEFAULT_TIMEOUT,
    transport: str = "queue",
    direct: bool = False,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sizes (bytes) and one-way times (seconds) over `transport` (the MPI library's own,
    `direct`); None on the ranks of an MPI job other than the root."""
    sizes = _checked(sizes, iterations, warmup, "ping-pong", transport, direct)

    cpus = sorted(os.sched_getaffinity(0))

    def pin(rank: int) -> None:
        """One core per rank, as `mpirun --bind-to core` would: stable, comparable times."""
        if len(cpus) >= 2:
            os.sched_setaffinity(0, {cpus[rank]})

    def program(comm: CountingComm, _: object) -> np.ndarray:
        peer = 1 - comm.rank
        send, recv = _point_to_point(comm, direct)
        one_way = np.zeros(len(sizes))
        for index, size in enumerate(sizes):
            buf = comm.copy(np.zeros(size, dtype=np.uint8))  # where algorithms' buffers live
            repeats = _repeats(size, iterations)
            round_trips = np.empty(repeats)
            for i in range(-warmup, repeats):
                started = time.perf_counter()
                if comm.rank == 0:
                    send(buf, peer)
                    recv(buf, peer)
                else:
                    recv(buf, peer)
                    send(buf, peer)
                if i >= 0:
                    round_trips[i] = time.perf_counter() - started
            one_way[index] = np.median(round_trips) / 2
        return one_way

    run = _launch(transport, PINGPONG_RANKS, pin, program, sizes, timeout)
    if run is None:
        return None
    return np.array(sizes), run.results[0].copy()


def exchange(
    sizes: list[int],
    ranks: int,
    iterations: int = 200,
    warmup: int = 10,
    timeout: float = DEFAULT_TIMEOUT,
    transport: str = "queue",
    direct: bool = False,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sizes (bytes) and the median time of one round in which N/2 pairs swap a message of
    that size at once (averaged over the ranks that swap; the MPI library's own Sendrecv,
    `direct`); None on MPI ranks other than the root."""
    sizes = _checked(sizes, iterations, warmup, "exchange", transport, direct)
    if ranks < 2:
        raise ValueError(f"exchange needs at least 2 ranks, got {ranks}")

    def program(comm: CountingComm, _: object) -> np.ndarray:
        partner = comm.rank ^ 1  # the last of an odd N has none: it waits at the barrier
        swap = _swap(comm, direct)
        per_round = np.zeros(len(sizes))
        for index, size in enumerate(sizes):
            outgoing, incoming = (comm.copy(np.zeros(size, np.uint8)) for _ in range(2))
            repeats = _repeats(size, iterations)
            rounds = np.empty(repeats)
            for i in range(-warmup, repeats):
                comm.barrier()
                started = time.perf_counter()
                if partner < ranks:
                    swap(outgoing, partner, incoming)
                if i >= 0:
                    rounds[i] = time.perf_counter() - started
            per_round[index] = np.median(rounds)
        return per_round

    run = _launch(transport, ranks, lambda rank: None, program, sizes, timeout)
    if run is None:
        return None
    return np.array(sizes), run.results[: ranks - ranks % 2].mean(axis=0)


def _point_to_point(comm: CountingComm, direct: bool):
    """(send(buf, peer), recv(buf, peer)): the transport's, or mpi4py's own (`direct`)."""
    if direct:
        return comm.world.Send, comm.world.Recv
    return comm.send, lambda buf, peer: comm.recv(peer, out=buf)


def _swap(comm: CountingComm, direct: bool):
    """swap(outgoing, partner, incoming): a sendrecv, the transport's or mpi4py's own."""
    if direct:
        return lambda out, partner, into: comm.world.Sendrecv(out, partner, recvbuf=into,
                                                              source=partner)  # fmt: skip
    return lambda out, partner, into: comm.sendrecv(out, partner, partner, out=into)


def _checked(
    sizes: list[int], iterations: int, warmup: int, what: str, transport: str, direct: bool
) -> list[int]:
    """The sizes sorted; ValueError for a negative size or repeat count, or for `direct`
    without MPI."""
    if direct and transport != "mpi":
        raise ValueError("--direct times the MPI library's own send: it needs --transport mpi")
    sizes = sorted(int(size) for size in sizes)
    if not sizes or sizes[0] < 0:
        raise ValueError(f"{what} sizes must be non-negative")
    if iterations < 1 or warmup < 0:
        raise ValueError("iterations must be >= 1 and warmup >= 0")
    return sizes


def _repeats(size: int, iterations: int) -> int:
    """Timed repeats at one size: fewer for large messages, as OSU does."""
    return iterations if size <= LARGE_MESSAGE else max(10, iterations // 10)


def _launch(
    transport: str,
    ranks: int,
    prepare: Prepare,
    program: Program,
    sizes: list[int],
    timeout: float,
) -> RankRun | None:
    """Run a micro-benchmark's program on `ranks` ranks: one float per size per rank."""
    ranks_on = get_transport(transport)
    return ranks_on.launch(
        ranks,
        prepare,
        program,
        results=ranks_on.result_array((ranks, len(sizes)), np.float64),
        largest_message=max(sizes[-1], 1),
        timeout=timeout,
    )


REDUCE_SIZES = [4**k for k in range(5, 11)]  # 1 Ki .. 1 Mi elements


def reduce_times(
    sizes: list[int] = REDUCE_SIZES, iterations: int = 50, dtype: str = "float64"
) -> tuple[np.ndarray, np.ndarray]:
    """Median time of `a += b` (np.add in place, as the algorithms reduce) per vector
    length: the points whose slope is the fabric's gamma, seconds per element reduced."""
    seconds = []
    for size in sizes:
        a, b = np.ones(size, dtype=dtype), np.ones(size, dtype=dtype)
        times = np.empty(iterations)
        for i in range(iterations):
            started = time.perf_counter()
            np.add(a, b, out=a)
            times[i] = time.perf_counter() - started
        seconds.append(np.median(times))
    return np.array(sizes), np.array(seconds)
