"""Benchmark of the core: collective time, whole-process time and bus bandwidth.

For ring and recursive doubling at (N=8, M=2^20) and (N=64, M=2^20) float64 it runs the
`collectives measure` command --repeat times and reports, as medians (min in brackets), the
collective alone (the record's collective_seconds: common start of the prepared ranks to
the last rank's finish), the whole process (interpreter start to exit), and the nccl-tests
bandwidths algbw = bytes / time and busbw = algbw * 2(N-1)/N, beside a plain numpy copy of
the same bytes. The machine is printed with the figures.

    python benchmarks/bench_core.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CASES = [("ring", 8, 1 << 20), ("recursive_doubling", 8, 1 << 20), ("ring", 64, 1 << 20),
         ("recursive_doubling", 64, 1 << 20), ("ring", 256, 1 << 16)]  # fmt: skip
TARGETS = {  # (algorithm, N, M): (collective seconds, whole-process seconds), from the issue
    ("ring", 8, 1 << 20): (0.040, 0.5),
    ("ring", 64, 1 << 20): (None, 2.0),
}


def run_once(algorithm: str, ranks: int, elements: int) -> tuple[float, float]:
    """(whole-process seconds, collective seconds) of one `collectives measure` process."""
    with tempfile.TemporaryDirectory() as scratch:
        record = Path(scratch) / "record.json"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "collectives", "measure", "--algorithm", algorithm,
             "--ranks", str(ranks), "--elements", str(elements), "--output", str(record)],
            check=True,
        )  # fmt: skip
        process = time.perf_counter() - started
        return process, json.loads(record.read_text())["collective_seconds"]


def numpy_copy_seconds(nbytes: int, repeat: int) -> float:
    """Median time of copying `nbytes` between two warm numpy arrays."""
    source, target = np.ones(nbytes // 8), np.empty(nbytes // 8)
    np.copyto(target, source)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        np.copyto(target, source)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    return f"{platform.node()}: {os.cpu_count()} cores, {model}, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per case (median)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(
        f"{'algorithm':20} {'N':>4} {'M':>8} {'collective [min]':>16} {'process [min]':>15} "
        f"{'algbw GB/s':>9} {'busbw GB/s':>9} {'np.copy':>9}  targets (medians)"
    )
    for algorithm, ranks, elements in CASES:
        nbytes = elements * 8
        processes, collectives = zip(
            *(run_once(algorithm, ranks, elements) for _ in range(args.repeat)), strict=True
        )
        collective, process = statistics.median(collectives), statistics.median(processes)
        algbw = nbytes / collective / 1e9
        busbw = algbw * 2 * (ranks - 1) / ranks
        copy = numpy_copy_seconds(nbytes, args.repeat)
        verdict = []
        for label, limit, value in zip(
            ("collective", "process"),
            TARGETS.get((algorithm, ranks, elements), ()),
            (collective, process),
            strict=False,
        ):
            if limit is not None:
                verdict.append(f"{label} <= {limit:g} s: {'met' if value <= limit else 'MISSED'}")
        print(
            f"{algorithm:20} {ranks:>4} {elements:>8} {collective * 1e3:>7.1f}ms "
            f"[{min(collectives) * 1e3:.0f}] {process:>6.2f}s [{min(processes):.2f}] "
            f"{algbw:>9.2f} {busbw:>9.2f} {copy * 1e3:>7.2f}ms  " + "; ".join(verdict)
        )


if __name__ == "__main__":
    main()
