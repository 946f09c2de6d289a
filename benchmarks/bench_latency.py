"""Benchmark of the transports' latency, bandwidth and scale, beside MPICH in the same run.

Prints, with the machine:
  - one-way latency by message size, osu_latency style (half the median round trip between
    two ranks on two cores): our queue and mpi transports (`collectives pingpong`), and
    MPICH itself through mpi4py Send/Recv (the library without our endpoint);
  - all-reduce time at N=2 for 8 B and for ring at 8 MiB (N=2 and N=8): our algorithms on
    both transports beside MPI_Allreduce timed in the same mpiexec job, with the ratio,
    and the ring's bus bandwidth per rank beside a numpy copy of the same bytes;
  - `collectives measure --ranks 1024 --elements 1024` for ring and recursive doubling: the
    whole process, the collective alone, and the largest process's peak resident memory.

    python benchmarks/bench_latency.py [--repeat 3] [--skip-scale]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_core import machine, numpy_copy_seconds  # this directory's sibling

SIZES = [1, 8, 64, 512, 4096, 32768, 262144, 1048576]
COLLECTIVES = [sys.executable, "-m", "collectives"]
MPI_PINGPONG = """
import sys, time, numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank, peer = comm.rank, 1 - comm.rank
rows = []
for size in map(int, sys.argv[1].split(",")):
    buf = np.zeros(size, np.uint8)
    trips = []
    for i in range(-10, 1000 if size <= 8192 else 100):
        started = time.perf_counter()
        if rank == 0:
            comm.Send(buf, peer); comm.Recv(buf, peer)
        else:
            comm.Recv(buf, peer); comm.Send(buf, peer)
        if i >= 0:
            trips.append(time.perf_counter() - started)
    rows.append(f"{size},{np.median(trips) / 2:.9e}")
if rank == 0:
    print("bytes,seconds"); print("\\n".join(rows))
"""


def mpiexec() -> list[str]:
    """This environment's mpiexec (the mpich wheel's), two ranks may share two cores."""
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if found is None:
        sys.exit("bench_latency: no mpiexec (pip install 'collectives[mpi]')")
    return [found]


def latencies(command: list[str], output_flag: bool) -> dict[int, float]:
    """{bytes: one-way seconds} from a pingpong command writing a CSV."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "pingpong.csv"
        extra = ["--output", str(out)] if output_flag else []
        done = subprocess.run([*command, *extra], check=True, capture_output=True, text=True)
        text = out.read_text() if output_flag else done.stdout
    rows = [line.split(",") for line in text.strip().splitlines()[1:]]
    return {int(size): float(seconds) for size, seconds in rows}


def allreduce_medians(transport: str, ranks: int, algorithms: str, elements: int,
                      iterations: int) -> dict[str, float]:  # fmt: skip
    """{entry: median seconds} of one `collectives bench` run (MPI_Allreduce with mpi)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "bench.json"
        command = [*COLLECTIVES, "bench", "--transport", transport, "--algorithms", algorithms,
                   "--elements", str(elements), "--iterations", str(iterations),
                   "--warmup", str(max(2, iterations // 10)), "--output", str(out)]  # fmt: skip
        if transport == "mpi":
            command = [*mpiexec(), "-n", str(ranks), *command, "--peers", "mpi"]
        else:
            command += ["--ranks", str(ranks)]
        subprocess.run(command, check=True, capture_output=True)
        records = json.loads(out.read_text())["records"]
    return {r["algorithm"]: r["timing"]["time_median_s"] for r in records}


def median_of(runs: list[dict]) -> dict:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def scale(algorithm: str) -> tuple[float, float, float]:
    """(whole-process seconds, collective seconds, peak RSS MB of the largest process)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "record.json"
        started = time.perf_counter()
        subprocess.run([*COLLECTIVES, "measure", "--algorithm", algorithm, "--ranks", "1024",
                        "--elements", "1024", "--output", str(out)], check=True)  # fmt: skip
        whole = time.perf_counter() - started
        collective = json.loads(out.read_text())["collective_seconds"]
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return whole, collective, peak_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--skip-scale", action="store_true", help="skip the N=1024 runs")
    args = parser.parse_args()
    sizes = ",".join(map(str, SIZES))
    print(f"machine: {machine()}\n")

    pingpong = [*COLLECTIVES, "pingpong", "--sizes", sizes, "--iterations", "1000"]
    with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
        script.write(MPI_PINGPONG)
        script.flush()
        commands = {
            "queue": (pingpong, True),
            "mpi": ([*mpiexec(), "-n", "2", *pingpong, "--transport", "mpi"], True),
            "MPICH (mpi4py)": ([*mpiexec(), "-n", "2", sys.executable, script.name, sizes], False),
        }
        rows = {name: median_of([latencies(*how) for _ in range(args.repeat)])
                for name, how in commands.items()}  # fmt: skip
    print("one-way latency, us (median of runs of half the median round trip)")
    print("| bytes | " + " | ".join(rows) + " |\n|" + "---|" * (len(rows) + 1))
    for size in SIZES:
        print(f"| {size} | " + " | ".join(f"{rows[n][size] * 1e6:.2f}" for n in rows) + " |")

    print("\nall-reduce, median seconds (ratio to MPI_Allreduce in the same mpiexec job)")
    cases = [(2, "recursive_doubling,ring", 1, 2000), (2, "ring", 1 << 20, 100),
             (8, "ring", 1 << 20, 30)]  # fmt: skip
    print("| N | bytes | algorithm | queue | mpi | MPI_Allreduce | queue/MPI | mpi/MPI |")
    print("|---|---|---|---|---|---|---|---|")
    for ranks, algorithms, elements, iterations in cases:
        queue = median_of([allreduce_medians("queue", ranks, algorithms, elements, iterations)
                           for _ in range(args.repeat)])  # fmt: skip
        mpi = median_of([allreduce_medians("mpi", ranks, algorithms, elements, iterations)
                         for _ in range(args.repeat)])  # fmt: skip
        library = mpi["MPI_Allreduce"]
        for name in algorithms.split(","):
            print(f"| {ranks} | {elements * 8} | {name} | {queue[name] * 1e6:.1f} us |"
                  f" {mpi[name] * 1e6:.1f} us | {library * 1e6:.1f} us |"
                  f" {queue[name] / library:.2f} | {mpi[name] / library:.2f} |")  # fmt: skip
            if elements > 1:
                nbytes = elements * 8
                busbw = nbytes / queue[name] * 2 * (ranks - 1) / ranks / 1e9
                copy = nbytes / numpy_copy_seconds(nbytes, 30) / 1e9
                print(f"|   |   | busbw (queue) | {busbw:.2f} GB/s | memcpy {copy:.2f} GB/s"
                      " | | | |")  # fmt: skip

    if not args.skip_scale:
        print("\nN=1024, M=1024: `collectives measure`, one run each")
        print("| algorithm | whole process | collective | largest process RSS |")
        print("|---|---|---|---|")
        for algorithm in ("recursive_doubling", "ring"):
            whole, collective, peak = scale(algorithm)
            print(f"| {algorithm} | {whole:.2f} s | {collective:.2f} s | {peak:.0f} MB |")


if __name__ == "__main__":
    main()
