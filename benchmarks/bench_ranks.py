"""Benchmark of real ranks at scale: whole `collectives measure` processes beside the
machine's own floors for the same schedule.

    python benchmarks/bench_ranks.py [--ranks 1024] [--elements 1024] [--repeat 3]

For ring and recursive doubling at N ranks (M elements): the median seconds of a whole
`collectives measure` process (fork, run, verify, count, write), beside two floors measured
in the same run on the same machine: forking N processes that exit at once, and N
processes that run the algorithm's schedule with nothing but 8-byte socket messages (each of
ring's 2(N-1) steps a send right and a receive from the left; each of recursive doubling's
log2 N steps a swap with the partner at distance 2^k). The second floor is what the
operating system charges for waking every rank once a step; no transport of real
processes on this machine can run the schedule faster.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"ring": 5.0, "recursive_doubling": 2.0}  # seconds at N = 1,024, M = 1,024


def timed(function, repeat: int) -> list[float]:
    """The seconds of each of `repeat` calls."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return times


def measure_process(algorithm: str, ranks: int, elements: int) -> None:
    """One whole `collectives measure` run, its record written to a scratch file."""
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(
            [sys.executable, "-m", "collectives", "measure", "--algorithm", algorithm,
             "--ranks", str(ranks), "--elements", str(elements),
             "--output", str(Path(scratch) / "record.json")],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip


def fork_floor(ranks: int) -> None:
    """Fork `ranks` children that exit at once, and reap them."""
    children = []
    for _ in range(ranks):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)


def schedule_floor(algorithm: str, ranks: int) -> None:
    """`ranks` processes running the algorithm's message schedule over socket pairs, 8 bytes a
    message: ring's 2(N-1) steps to the right, or recursive doubling's log2 N swaps."""
    if algorithm == "ring":
        steps = [(1, -1)] * (2 * (ranks - 1))  # (send offset, receive offset)
    else:
        steps = [(1 << k, 1 << k) for k in range(ranks.bit_length() - 1)]  # N a power of 2
    links = {}  # {a, b} -> a socket pair: a's end, b's end
    for rank in range(ranks):
        for send, _ in steps:
            peer = (rank + send) % ranks if algorithm == "ring" else rank ^ send
            key = (min(rank, peer), max(rank, peer))
            if key not in links:
                links[key] = socket.socketpair()

    def end(rank: int, peer: int) -> socket.socket:
        """`rank`'s end of its link with `peer`."""
        low, high = links[min(rank, peer), max(rank, peer)]
        return low if rank < peer else high

    children = []
    for rank in range(ranks):
        pid = os.fork()
        if pid == 0:
            for send, receive in steps:
                if algorithm == "ring":
                    to, source = (rank + send) % ranks, (rank + receive) % ranks
                else:
                    to = source = rank ^ send
                end(rank, to).sendall(b"01234567")
                end(rank, source).recv(8, socket.MSG_WAITALL)
            os._exit(0)
        children.append(pid)
    for pair in links.values():
        for sock in pair:
            sock.close()
    for pid in children:
        _, status = os.waitpid(pid, 0)
        if status:
            raise RuntimeError(f"a floor rank failed with status {status}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--elements", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    _, most = resource.getrlimit(resource.RLIMIT_NOFILE)  # the floor's sockets: 2 a pair
    resource.setrlimit(resource.RLIMIT_NOFILE, (most, most))
    print(f"machine: {platform.node()}: {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; N = {args.ranks}, M = {args.elements}; medians of "
          f"{args.repeat}, [min, max]")  # fmt: skip
    fork = timed(lambda: fork_floor(args.ranks), args.repeat)
    print(f"floor, fork and exit {args.ranks} processes: {statistics.median(fork):.2f} s "
          f"[{min(fork):.2f}, {max(fork):.2f}]")  # fmt: skip
    for algorithm, target in TARGETS.items():
        # interleaved: the floor and the measure alternate, so a slow spell hits both
        floors, runs = [], []
        for _ in range(args.repeat):
            floors += timed(lambda a=algorithm: schedule_floor(a, args.ranks), 1)
            runs += timed(lambda a=algorithm: measure_process(a, args.ranks, args.elements), 1)
        floor, run = statistics.median(floors), statistics.median(runs)
        verdict = "met" if run <= target else f"MISSED by {run - target:.1f} s"
        print(f"{algorithm}: collectives measure {run:.2f} s [{min(runs):.2f}, {max(runs):.2f}] "
              f"(target <= {target:g} s: {verdict}); its schedule over sockets alone "
              f"{floor:.2f} s [{min(floors):.2f}, {max(floors):.2f}]: {run / floor:.1f}x "
              "the floor")  # fmt: skip


if __name__ == "__main__":
    main()
