# Shared helpers: the grid and fabric lists expanded from the checked config (PLAN).


import importlib.util
import json
import math
import os

from snakemake.exceptions import WorkflowError

from collectives.algorithms import parse_variant
from collectives.config import pingpong_transport
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


def on_cluster():
    """Whether jobs run through a cluster executor (submitting, or executing on a node)."""
    return workflow.remote_exec or not workflow.local_exec


def node_cpus():
    """The most CPUs one job can use: this machine's; on a cluster one compute node's, the
    profile's max-threads, which reaches the jobs too, so that the submitting and the
    executing Snakemake agree on every job's threads."""
    if on_cluster() and workflow.resource_settings.max_threads:
        return workflow.resource_settings.max_threads
    return os.cpu_count() or 1


def measure_threads(wildcards):
    """One process per rank, but no more cores than a machine has: a job cannot use
    more, and --cores then bounds how many jobs share them."""
    return min(int(wildcards.ranks), node_cpus())


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


def timing_transport(wildcards):
    """How a timing job's ranks talk: the wall-clock run's wildcard, or the ping-pong
    fabric's setting."""
    if "transport" in wildcards.keys():
        return wildcards.transport
    return pingpong_transport(config["fabrics"][wildcards.fabric])


def timing_ranks(wildcards):
    """How many ranks a timing job runs: N for a wall-clock run, 2 for a ping-pong."""
    return int(wildcards.ranks) if "ranks" in wildcards.keys() else 2


# A timing job over MPI is an MPI job in Snakemake's resource vocabulary (mpi, tasks,
# cpus_per_task), which cluster executors read and local runs ignore: the SLURM profile
# then asks for one task per rank, on as many nodes as the scheduler places them.
def mpi_launcher(wildcards):
    """The MPI launcher (override with --set-resources RULE:mpi=...); empty for forked
    ranks."""
    return "mpiexec" if timing_transport(wildcards) == "mpi" else ""


def mpi_tasks(wildcards):
    return timing_ranks(wildcards) if timing_transport(wildcards) == "mpi" else 1


def cpus_per_task(wildcards, threads):
    """One CPU per MPI task; forked ranks share one task's threads."""
    return 1 if timing_transport(wildcards) == "mpi" else threads


def timing_command(wildcards, resources):
    """`collectives` as this machine runs it, or under the MPI launcher with N tasks."""
    if resources.mpi:
        return f"{resources.mpi} -n {resources.tasks} collectives"
    return "collectives"


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
    """Every core of the run, for a timing job that must run alone: --cores here (read
    when the job is scheduled, so that commands without --cores, such as --report, still
    work); on a cluster a whole node, which the profile makes exclusive."""
    if on_cluster():
        return node_cpus()
    try:
        return workflow.cores
    except WorkflowError:
        return os.cpu_count() or 1
