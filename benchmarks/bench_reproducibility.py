"""Benchmark of reproducibility: the validation stage run twice from clean results.

    python benchmarks/bench_reproducibility.py [--cores 8] [--workdir DIR]

Copies the workflow (Snakefile, workflow/, config/, profiles/) into a scratch directory,
runs Snakemake there for the validation tables from empty results/, twice, and prints the
two runs' summaries side by side: each (place, model)'s median |error| and each (transport,
N)'s predicted/measured ring-recursive-doubling crossover, with the targets (medians
within 10 points of each other, crossover ratios within 1.3x of each other where both runs'
clocks resolve the crossover: place it within a factor of 4 of sizes, beyond their
intervals).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from bench_pipeline import copy_items  # this directory's: the same scratch copy

TABLES = ("validation_summary.csv", "validation_crossover.csv")
MEDIAN_POINTS = 0.10  # two runs' medians may differ by this much
CROSSOVER_FACTOR = 1.3  # and their crossover ratios by this factor


def run_validation(workdir: Path, cores: int) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """The validation stage from empty results/: its summary, its crossovers, its seconds."""
    shutil.rmtree(workdir / "results", ignore_errors=True)
    targets = [f"results/tables/{name}" for name in TABLES]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", *targets, "--cores", str(cores)],
        cwd=workdir, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"the validation stage failed:\n{done.stderr[-2000:]}")
    seconds = time.perf_counter() - started
    tables = workdir / "results/tables"
    return (*(pd.read_csv(tables / name) for name in TABLES), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--workdir", help="scratch directory (default: a temporary one)")
    args = parser.parse_args()
    processor = platform.processor() or platform.machine()
    print(f"machine: {platform.node()}: {os.cpu_count()} cores, {processor}, "
          f"Python {platform.python_version()}")  # fmt: skip
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="reproducibility-"))
    workdir.mkdir(parents=True, exist_ok=True)
    copy_items(workdir)
    runs = []
    for name in "AB":
        runs.append(run_validation(workdir, args.cores))
        shutil.copytree(workdir / "results/tables", workdir / f"tables_{name}", dirs_exist_ok=True)
    for index, (_, _, seconds) in enumerate(runs):
        print(f"run {'AB'[index]}: {seconds:.0f} s")

    keys = ["where", "ranks", "model"]
    (first, second) = (run[0].set_index(keys) for run in runs)
    later = second[["median_abs_rel_error"]].add_suffix("_b")
    both = first[["points", "median_abs_rel_error"]].join(later)
    both["points_apart"] = (both.median_abs_rel_error - both.median_abs_rel_error_b).abs()
    print("\nmedian |error| per place (N) and model, run A and run B:")
    for (where, ranks, model), row in both.iterrows():
        verdict = "ok" if row.points_apart <= MEDIAN_POINTS else "APART"
        print(f"  {where:16} {ranks:4} {model:11} {row.median_abs_rel_error:7.0%} "
              f"{row.median_abs_rel_error_b:7.0%}  {verdict}")  # fmt: skip
    apart = int((both.points_apart > MEDIAN_POINTS).sum())
    print(f"{apart} of {len(both)} medians more than {MEDIAN_POINTS:.0%} points apart "
          f"(target: none)")  # fmt: skip

    keys = ["transport", "ranks"]
    (first, second) = (run[1].set_index(keys) for run in runs)
    # a place one run lacks has no crossover there: unresolved
    second = second.reindex(first.index).fillna({"resolved": False})
    print("\ncrossover predicted/measured per transport and N, run A and run B "
          "(in brackets: the band the clock places it in, bytes):")  # fmt: skip
    worse = unresolved = 0
    for key, a in first.iterrows():
        b = second.loc[key]  # one row: reindexed above
        ratio_a, ratio_b = (row.predicted_bytes / row.measured_bytes for row in (a, b))
        factor = max(ratio_a, ratio_b) / min(ratio_a, ratio_b)
        if not (a.resolved and b.resolved):
            verdict = "unresolved"
            unresolved += 1
        else:
            apart = not factor <= CROSSOVER_FACTOR  # no crossing in a run (NaN) is apart too
            worse += apart
            verdict = "APART" if apart else "ok"
        bands = "  ".join(f"[{r.measured_low_bytes:.0f}, {r.measured_high_bytes:.0f}]"
                          for r in (a, b))  # fmt: skip
        print(f"  {key[0]:6} N={key[1]:<3} {ratio_a:7.2f} {ratio_b:7.2f}  {bands}  {verdict}")
    print(f"{worse} of {len(first) - unresolved} resolved crossover ratios more than "
          f"{CROSSOVER_FACTOR}x apart (target: none); {unresolved} not resolved by both "
          f"clocks")  # fmt: skip


if __name__ == "__main__":
    main()
