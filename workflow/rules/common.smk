# Shared helpers: the grid and fabric lists expanded from the checked config (PLAN).


import importlib.util
import json
import math
import os

from collectives.algorithms import parse_variant
from collectives.fabrics import measured_parts
from collectives.grid import expand_axis
from collectives.tables import record_path


wildcard_constraints:
    algorithm="[a-z_]+(-G[0-9]+)?",
    dtype="[a-z0-9]+",
    ranks="[0-9]+",
    elements="[0-9]+",
    fabric="[A-Za-z0-9][A-Za-z0-9_.-]*",
    transport="queue|mpi",


ENV = "../envs/collectives.yaml"  # relative to the rule files
RUNTIME_MINUTES = math.ceil(config.get("timeout", 600) / 60)


def measure_threads(wildcards):
    """One process per rank, but no more cores than this machine has: a job cannot use
    more, and --cores then bounds how many jobs share them."""
    return min(int(wildcards.ranks), os.cpu_count() or 1)


def measure_memory_mb(wildcards):
    """Inputs/results, staging, a warm heap per rank, and ~40 MB per rank process."""
    ranks, elements = int(wildcards.ranks), int(wildcards.elements)
    vector_mb = elements * 8 / 1e6
    return int(200 + ranks * (40 + 3 * vector_mb))


def run_path(algorithm, ranks, elements, dtype):
    """Where one grid point's record lives."""
    return record_path(RESULTS, algorithm, ranks, elements, dtype)


def all_runs():
    """Every record of the grid, in a stable order (hierarchical variants only where their
    node size divides N)."""
    return [
        run_path(variant.name, ranks, elements, dtype)
        for dtype in PLAN.dtypes
        for variant in PLAN.variants
        for ranks in PLAN.ranks
        if variant.runs_at(ranks)
        for elements in PLAN.elements
    ]


def variant_arguments(wildcards):
    """The `collectives measure` options of a variant, e.g. hierarchical-G8."""
    return next(v for v in PLAN.variants if v.name == wildcards.algorithm).arguments()


def runs_at(ranks, elements, dtype):
    """The records of every variant at one grid point."""
    return [
        run_path(variant.name, ranks, elements, dtype)
        for variant in PLAN.variants
        if variant.runs_at(ranks)
    ]


def fabric_config(wildcards):
    """Only this fabric's entry, as canonical JSON: adding a fabric or reordering keys
    changes no other job's params (Snakemake reruns a job whose params change)."""
    return json.dumps(config["fabrics"][wildcards.fabric], sort_keys=True)


def fabric_measurements(wildcards):
    """The point-to-point files a fabric is fitted from (none for given link classes)."""
    if PLAN.fabrics[wildcards.fabric] == "pingpong":
        return [
            f"{RESULTS}/pingpong/{wildcards.fabric}.csv",
            f"{RESULTS}/pingpong/{wildcards.fabric}.reduce.csv",
        ]
    entry = config["fabrics"][wildcards.fabric]
    return [part["measurements"] for part in measured_parts(entry)]


def figure_outputs(name, category):
    return {
        "png": report(
            f"{RESULTS}/figures/{name}.png",
            caption=f"../report/{name}.rst",
            category=category,
        ),
        "pdf": f"{RESULTS}/figures/{name}.pdf",
    }


def pingpong_launcher(wildcards):
    """How the ping-pong runs: forked here, or as a 2-rank MPI job."""
    transport = config["fabrics"][wildcards.fabric]["pingpong"].get(
        "transport", "queue"
    )
    return "mpiexec -n 2 collectives" if transport == "mpi" else "collectives"


WALLCLOCK = PLAN.wallclock
# The algorithms that need no node structure: what a cluster's flat fit can price.
FLAT_ALGORITHMS = [a for a in PLAN.algorithms if not parse_variant(a)[1]]
# Gloo is timed where torch is installed (pip install -e '.[gloo]'), skipped elsewhere.
INSTALLED_PEERS = {"gloo"} if importlib.util.find_spec("torch") else set()


def wallclock_runs():
    """Every timed run's document: one per transport and N."""
    if WALLCLOCK is None:
        return []
    return [
        f"{RESULTS}/wallclock/{transport}/N{ranks}.json"
        for transport in WALLCLOCK.transports
        for ranks in WALLCLOCK.ranks
    ]


def bench_launcher(wildcards):
    """A timed run forks its ranks here, or is an MPI job of N ranks."""
    if wildcards.transport == "mpi":
        return f"mpiexec -n {wildcards.ranks} collectives"
    return "collectives"


def bench_peers(wildcards):
    return ",".join(WALLCLOCK.peers_for(wildcards.transport, INSTALLED_PEERS))


def wallclock_outputs():
    """The tables and figures of the wallclock section, if the config has one."""
    if WALLCLOCK is None:
        return []
    tables = ["wallclock.csv", "validation.csv", "validation_crossover.csv",
              "validation_clusters.csv", "validation_summary.csv"]  # fmt: skip
    figures = ["wallclock", "validation"]
    return [f"{RESULTS}/tables/{name}" for name in tables] + expand(
        f"{RESULTS}/figures/{{figure}}.{{ext}}", figure=figures, ext=["png", "pdf"]
    )


def all_cores(wildcards):
    """Every core of the run, for a timing job that must run alone (read when the job is
    scheduled, so that commands without --cores, such as --report, still work)."""
    return workflow.cores
