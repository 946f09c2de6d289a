"""Benchmark of a GPU system at training scale: what its pipeline job prices, size by size.

    python benchmarks/bench_gpu_scale.py [--system dell-h200-roce-2nodes] [--nodes 2048]
                                         [--sizes 30] [--smallest 8] [--budget 600]

Takes a shipped GPU system's entry from config/config.yaml, resolved as the pipeline
resolves it, on --nodes nodes, and prices each of --sizes message sizes (from --smallest
bytes, doubling, as nccl-tests' -b 8 -f 2) as its gpu_system job prices a log's: every
algorithm replayed on the link-level fabrics (the cheapest kept), NCCL's choice by its own
model, and that choice replayed at NCCL's costs (study.gpu.rungs_at). Prints each size's
time as it ends, then the total beside the goal for this many GPUs (30 s for 16,384, 60 s
for 131,072), and stops early, saying so, once --budget seconds are spent. The link-level
fabrics are the default run's (results/fabrics/, made by `snakemake --cores 8`).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from pathlib import Path

from snakemake.utils import validate

from collectives.model import libraries
from collectives.study.config import ConfigError, check, read_yaml, validate_schema
from collectives.study.fabrics import load_fabric
from collectives.study.gpu import rungs_at
from collectives.study.systems import modelled_release, nccl_system

FABRICS = Path("results/fabrics")
SCHEMA = "workflow/schemas/config.schema.yaml"
GOALS = {16384: 30.0, 131072: 60.0}  # GPUs -> seconds for the whole job


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="dell-h200-roce-2nodes")
    parser.add_argument("--nodes", type=int, default=2048)
    parser.add_argument("--sizes", type=int, default=30)
    parser.add_argument("--smallest", type=int, default=8, help="the first size, in bytes")
    parser.add_argument("--budget", type=float, default=600.0)
    args = parser.parse_args()
    try:  # the config as the workflow checks it (workflow/rules/common.smk)
        config = read_yaml("config/config.yaml")
        validate_schema(config, SCHEMA)
        validate(config, SCHEMA)  # fills in the defaults
        plan = check(config, Path("."))
    except ConfigError as exc:
        sys.exit(f"config error: {exc}")
    if args.system not in plan.gpu_systems:
        sys.exit(f"--system: no GPU system {args.system!r}; known: {', '.join(plan.gpu_systems)}")
    if not FABRICS.is_dir():
        sys.exit(f"no {FABRICS}/: run `snakemake --cores 8` first")
    fabrics = {fabric.name: fabric for fabric in map(load_fabric, FABRICS.glob("*.json"))}
    entry = {**plan.gpu_systems[args.system], "nodes": args.nodes}
    gpus = args.nodes * entry["gpus_per_node"]
    sizes = [args.smallest << k for k in range(args.sizes)]
    chosen = libraries.choice(nccl_system(entry), modelled_release(entry), sizes)
    print(f"machine: {platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{args.system} on {args.nodes} nodes: {gpus:,} GPUs, {len(sizes)} sizes")
    started, done = time.perf_counter(), 0
    for nbytes, choice in zip(sizes, chosen, strict=True):
        begun = time.perf_counter()
        variant, _ = rungs_at(args.system, entry, fabrics, config["algorithms"], nbytes, 4, choice)
        done += 1
        print(f"{nbytes:>12,} B  {time.perf_counter() - begun:7.2f} s  cheapest {variant}, "
              f"NCCL {choice[0]}/{choice[1]}", flush=True)  # fmt: skip
        if time.perf_counter() - started > args.budget and done < len(sizes):
            break
    spent = time.perf_counter() - started
    goal = GOALS.get(gpus)
    verdict = f"; goal {goal:.0f} s: {'met' if spent <= goal else 'missed'}" if goal else ""
    stopped = f" (stopped at the budget: {done} of {len(sizes)} sizes)" if done < len(sizes) else ""
    print(f"total {spent:.1f} s for {done} sizes{stopped}{verdict}")
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


if __name__ == "__main__":
    main()
