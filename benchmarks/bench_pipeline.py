"""Benchmark of the whole pipeline's wall time: cold, no-op, and after two small changes.

    python benchmarks/bench_pipeline.py [--cores 8] [--workdir DIR] [--config-file PATH]

Copies the workflow (Snakefile, workflow/, config/, profiles/) into a scratch directory and
times, printing each step as it ends: Snakemake's floor (a no-op run of a one-rule workflow,
median of 3), the pipeline from empty results/ (cold), the pipeline with nothing to do
(no-op, median of 3), the rerun after adding one given fabric to the config, and the rerun
after adding one workload. Then it prints the cold run's per-rule table
(results/tables/pipeline_timing.csv) and each figure beside its goal: cold ≤ 240 s, no-op
≤ 1.3 × the floor, a fabric ≤ 8 s, a workload ≤ 5 s.

--config-file replaces the scratch copy's config/config.yaml (.test/config/config.yaml is
the tiny one: a minute or two cold; the default config takes 20+ minutes on 2 cores); when
it lies inside the repository its directory is copied too, so that the relative paths it
names resolve. The repository's resources/ (MPI libraries installed from pip wheels), where
there is one, is copied in before the cold run, so that the cold run excludes installing
them. The scratch copy is left in place for inspection; its path is printed.
"""

from __future__ import annotations

import argparse
import copy
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

from collectives.study.grid import expand_axis

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = ("Snakefile", "workflow", "config", "profiles")
CONFIG = Path("config/config.yaml")
TIMING = Path("results/tables/pipeline_timing.csv")
REPEATS = 3  # no-op runs, of the floor and of the pipeline, whose median is reported
FLOOR_SNAKEFILE = """\
rule touch:
    output:
        "done.txt",
    shell:
        "touch {output}"
"""  # Snakemake alone: one rule, one file
FABRIC = "bench-added"
GIVEN = {
    "alpha": 5.0e-6,
    "beta": 2.0e-10,
    "description": "a given fabric added by benchmarks/bench_pipeline.py",
    "source": "assumed: alpha 5 us, beta 200 us/MB",
}
COLD_GOAL = 240.0  # seconds
NOOP_FACTOR = 1.3  # times the floor
FABRIC_GOAL = 8.0  # seconds
WORKLOAD_GOAL = 5.0  # seconds


def snakemake(workdir: Path, cores: int, step: str) -> tuple[float, int]:
    """One `snakemake --cores N` in `workdir`: its wall seconds and the jobs it ran; a
    failure ends the benchmark, naming the step."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", str(cores)],
        cwd=workdir, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{step}: snakemake failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return seconds, jobs_run(done.stdout + done.stderr)


def jobs_run(console: str) -> int:
    """The jobs a run executed, from its progress lines ("3 of 7 steps (43%) done")."""
    steps = re.findall(r"\d+ of (\d+) steps? \(", console)
    return int(steps[-1]) if steps else 0


def median_noop(workdir: Path, cores: int, step: str) -> tuple[float, list[float], int]:
    """REPEATS runs with (supposedly) nothing to do: the median seconds, every run's, and
    the most jobs any of them ran (0 for a true no-op)."""
    runs = [snakemake(workdir, cores, step) for _ in range(REPEATS)]
    seconds = [run[0] for run in runs]
    return statistics.median(seconds), seconds, max(run[1] for run in runs)


def floor(cores: int) -> tuple[float, list[float]]:
    """Snakemake's own cost: a no-op run of a one-rule workflow, in its own scratch dir
    (removed after), which no pipeline's no-op can beat."""
    scratch = Path(tempfile.mkdtemp(prefix="snakemake-floor-"))
    try:
        (scratch / "Snakefile").write_text(FLOOR_SNAKEFILE)
        snakemake(scratch, cores, "step 1 (the floor's first run)")
        median, seconds, _ = median_noop(scratch, cores, "step 1 (the floor)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return median, seconds


def copy_items(workdir: Path) -> None:
    """The repository's workflow items (WORKFLOW) into `workdir`, over what is there."""
    for item in WORKFLOW:
        source, target = REPO / item, workdir / item
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copy(source, target)


def copy_workflow(workdir: Path, config_file: Path | None) -> str:
    """The workflow into `workdir`, with `config_file` as its config (and its directory,
    when inside the repository), and no results/ or .snakemake/; the repository's
    resources/ too, if any. Returns where the scratch copy's resources/ came from, which
    decides whether the cold run installs the MPI library wheels."""
    copy_items(workdir)
    if config_file is not None:
        if config_file.is_relative_to(REPO):
            folder = config_file.parent.relative_to(REPO)
            shutil.copytree(REPO / folder, workdir / folder, dirs_exist_ok=True)
        shutil.copy(config_file, workdir / CONFIG)
    for stale in ("results", ".snakemake"):
        shutil.rmtree(workdir / stale, ignore_errors=True)
    if (REPO / "resources").is_dir():
        shutil.copytree(REPO / "resources", workdir / "resources", dirs_exist_ok=True)
        return "copied from the repository: the cold run excludes installing the MPI wheels"
    if (workdir / "resources").is_dir():
        return "kept from an earlier run in --workdir: the cold run excludes installing wheels"
    return "none in the repository: the cold run includes installing the MPI wheels (pip)"


def add_fabric(config_path: Path) -> str:
    """A new given fabric appended to the config's fabrics (every trace is replayed on every
    fabric, so no other key needs to name it); its name."""
    config = yaml.safe_load(config_path.read_text())
    name = FABRIC
    while name in config["fabrics"]:
        name += "-x"
    config["fabrics"][name] = dict(GIVEN)
    config_path.write_text(yaml.safe_dump(config, sort_keys=False, width=100))
    return name


def add_workload(config_path: Path) -> str | None:
    """A copy of an existing workload with a new DP degree from the ranks axis (or one more
    layer, where none can take another), under a new name; None without workloads."""
    config = yaml.safe_load(config_path.read_text())
    workloads = config.get("workloads") or {}
    if not workloads:
        return None
    ranks = expand_axis(config["ranks"])
    for base, entry in workloads.items():
        others = [n for n in ranks if n > 1 and n != entry["dp"]]
        if entry["dp"] > 1 and others:
            added = copy.deepcopy(entry)
            added["dp"] = min(others, key=lambda n: abs(n - entry["dp"]))
            name = f"{base}-dp{added['dp']}"
            break
    else:
        base, entry = next(iter(workloads.items()))
        added = copy.deepcopy(entry)
        added["layers"] += 1
        name = f"{base}-layers{added['layers']}"
    while name in workloads:
        name += "-x"
    workloads[name] = added
    config_path.write_text(yaml.safe_dump(config, sort_keys=False, width=100))
    return name


def listed(table: Path, column: str, name: str) -> bool:
    """Whether a results table has a row for `name` in `column`."""
    return table.exists() and name in set(pd.read_csv(table)[column].astype(str))


def print_timing(table: pd.DataFrame) -> None:
    """The per-rule table, the costliest rule first, fixed width."""
    table = table.sort_values("total_s", ascending=False)
    width = max([len("rule"), *map(len, table["rule"].astype(str))])
    print(f"  {'rule':{width}}  {'jobs':>5}  {'summed s':>9}  {'median s':>9}  {'share':>6}")
    for row in table.itertuples():
        print(f"  {row.rule:{width}}  {row.jobs:5d}  {row.total_s:9.1f}  {row.median_s:9.2f}  "
              f"{row.share:6.1%}")  # fmt: skip
    print(f"  {'total':{width}}  {int(table.jobs.sum()):5d}  {table.total_s.sum():9.1f}")


def verdict(seconds: float, goal: float) -> str:
    """Met, or by how much the goal was missed."""
    if seconds <= goal:
        return "met"
    return f"missed by {seconds - goal:.1f} s ({seconds / goal:.2f}x the goal)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--workdir", help="scratch directory (default: a temporary one)")
    parser.add_argument(
        "--config-file", type=Path,
        help="the config to time, instead of the repository's config/config.yaml",
    )  # fmt: skip
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # each step's seconds as it ends
    processor = platform.processor() or platform.machine()
    print(f"machine: {platform.node()}: {os.cpu_count()} cores, {processor}, "
          f"Python {platform.python_version()}")  # fmt: skip
    config_file = args.config_file.resolve() if args.config_file else None
    if config_file is not None and not config_file.is_file():
        sys.exit(f"--config-file {args.config_file}: no such file")
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="pipeline-")).resolve()
    if workdir in (REPO, *REPO.parents):
        sys.exit(f"--workdir {workdir}: the repository itself, or a parent; give a scratch dir")
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"config: {config_file or REPO / CONFIG}; --cores {args.cores}; scratch copy: {workdir}")

    floor_s, floor_runs = floor(args.cores)
    runs = ", ".join(f"{s:.2f}" for s in floor_runs)
    print(f"1. Snakemake's floor (one-rule no-op): {floor_s:.2f} s (median of {runs})")

    resources = copy_workflow(workdir, config_file)
    print(f"   resources/: {resources}")
    cold_s, cold_jobs = snakemake(workdir, args.cores, "step 2 (cold run)")
    print(f"2. cold run: {cold_s:.1f} s ({cold_jobs} jobs)")
    if not (workdir / TIMING).exists():
        sys.exit(f"step 2 (cold run): the pipeline wrote no {TIMING}")
    timing = pd.read_csv(workdir / TIMING)  # read now: later runs rewrite it
    shutil.copy(workdir / TIMING, workdir / "pipeline_timing_cold.csv")

    noop_s, noop_runs, noop_jobs = median_noop(workdir, args.cores, "step 3 (no-op)")
    runs = ", ".join(f"{s:.2f}" for s in noop_runs)
    ran = f"; ran {noop_jobs} jobs, not a no-op" if noop_jobs else ""
    print(f"3. no-op: {noop_s:.2f} s (median of {runs}){ran}")

    fabric = add_fabric(workdir / CONFIG)
    fabric_s, fabric_jobs = snakemake(workdir, args.cores, "step 4 (add a fabric)")
    print(f"4. add the fabric {fabric}: {fabric_s:.1f} s ({fabric_jobs} jobs)")
    if not fabric_jobs or not listed(workdir / "results/tables/fabrics.csv", "fabric", fabric):
        sys.exit(f"step 4 (add a fabric): {fabric} is not in results/tables/fabrics.csv "
                 f"after a run of {fabric_jobs} jobs")  # fmt: skip

    workload = add_workload(workdir / CONFIG)
    workload_s: float | None = None
    if workload is None:
        print("5. add a workload: skipped: the config has no workloads")
    else:
        workload_s, workload_jobs = snakemake(workdir, args.cores, "step 5 (add a workload)")
        print(f"5. add the workload {workload}: {workload_s:.1f} s ({workload_jobs} jobs)")
        table = workdir / "results/tables/workloads.csv"
        if not workload_jobs or not listed(table, "workload", workload):
            sys.exit(f"step 5 (add a workload): {workload} is not in {table.name} "
                     f"after a run of {workload_jobs} jobs")  # fmt: skip

    print(f"\n6. the cold run's jobs per rule ({TIMING}; job time summed, not wall time):")
    print_timing(timing)

    noop_goal = NOOP_FACTOR * floor_s
    rows: list[tuple[str, str, str, str]] = [
        ("cold run", f"{cold_s:.1f} s", f"≤ {COLD_GOAL:.0f} s", verdict(cold_s, COLD_GOAL)),
        ("no-op", f"{noop_s:.2f} s", f"≤ {NOOP_FACTOR} × floor {floor_s:.2f} s = {noop_goal:.2f} s",
         verdict(noop_s, noop_goal)),
        ("add a fabric", f"{fabric_s:.1f} s", f"≤ {FABRIC_GOAL:.0f} s",
         verdict(fabric_s, FABRIC_GOAL)),
    ]  # fmt: skip
    if workload_s is None:
        rows.append(("add a workload", "-", f"≤ {WORKLOAD_GOAL:.0f} s",
                     "skipped: the config has no workloads"))  # fmt: skip
    else:
        rows.append(("add a workload", f"{workload_s:.1f} s", f"≤ {WORKLOAD_GOAL:.0f} s",
                     verdict(workload_s, WORKLOAD_GOAL)))  # fmt: skip
    print("\n7. summary (measured, goal, verdict):")
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for what, measured, goal, result in rows:
        print(f"  {what:{widths[0]}}  {measured:>{widths[1]}}  goal {goal:{widths[2]}}  {result}")
    print(f"  (resources/: {resources})")


if __name__ == "__main__":
    main()
