"""Benchmark of the replay: every trace of a results directory on one fabric, and one ring.

    python benchmarks/bench_replay.py [--runs results/runs] [--repeat 3]

Times (medians of --repeat) replaying all traces under --runs (the pipeline's default grid)
on a flat and on a two-level fabric with shared NICs, loading included, and a ring trace at
N=256, M=2^16 alone; prints the targets of the issue beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import replay
from collectives.run.files import trace_path_for
from collectives.run.measure import measure
from collectives.study.aggregate import replayed_runs

FLAT = Fabric("flat", "given", LinkClass(2.6e-6, 1.05e-10))
TWO_LEVEL = Fabric(
    "two-level", "structured", LinkClass(2.6e-6, 1.05e-10), intra=LinkClass(3e-7, 2.3e-11),
    ranks_per_node=8, nic_per_node=1,
)  # fmt: skip


def timed(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="results/runs", help="directory of run records")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}")

    records = sorted(Path(args.runs).rglob("*.json"))
    traces = [trace_path_for(record) for record in records]
    if records:
        events = sum(json.loads(p.read_text())["messages"] * 2 for p in records)  # sends + receives
        for name, fabric in (("flat", FLAT), ("two-level, 1 NIC per 8", TWO_LEVEL)):
            seconds = timed(lambda f=fabric: replayed_runs(records, traces, f), args.repeat)
            verdict = "met" if seconds <= 5 else "MISSED"
            print(
                f"all {len(records)} traces ({events} message events), {name}: "
                f"{seconds:.2f} s  (target <= 5 s: {verdict})"
            )
    else:
        print(f"no records under {args.runs}: run the pipeline first for the grid benchmark")

    trace = measure("ring", 256, 1 << 16).trace
    seconds = timed(lambda: replay(trace, FLAT), args.repeat)
    verdict = "met" if seconds <= 1 else "MISSED"
    print(
        f"ring N=256 M=2^16 ({len(trace.kind)} events): {seconds:.3f} s  (target <= 1 s: {verdict})"
    )


if __name__ == "__main__":
    main()
