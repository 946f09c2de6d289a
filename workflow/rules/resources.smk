# How jobs run: the software environment, threads, memory and time, and the MPI and
# cluster resources of the timing jobs (read by cluster executors, ignored locally).


import math
import os
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

from collectives.study.jobs import measure_memory_mb, timing_ranks


envvars:
    "PATH",


# Jobs find the `collectives` command next to the Python running Snakemake (a venv need
# not be activated); with --sdm conda the rule's environment comes first instead.
os.environ["PATH"] = (
    f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
)
ENV = "../envs/collectives.yaml"  # relative to the rule files


def repeated_runtime(wildcards):
    """A job of repeated launches' walltime (cluster executors read it): each launch may
    take the timeout, and its share of the budget comes on top (the checked wallclock
    section's, its defaults the schema's; only timing jobs, which need one, ask)."""
    return RUNTIME_MINUTES * WALLCLOCK.launches + math.ceil(WALLCLOCK.budget / 60)


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


def measure_memory(wildcards):
    """A measure job's megabytes (study.jobs.measure_memory_mb)."""
    return measure_memory_mb(
        wildcards.algorithm,
        int(wildcards.ranks),
        int(wildcards.elements),
        wildcards.dtype,
        config["data"],
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


def timing_transport(wildcards):
    """How a timing job's ranks talk: the wall-clock run's wildcard, or the ping-pong
    fabric's setting."""
    if "transport" in wildcards.keys():
        return wildcards.transport
    return pingpong_transport(config["fabrics"][wildcards.fabric])


# A timing job over MPI is an MPI job in Snakemake's resource vocabulary (mpi, tasks,
# cpus_per_task), which cluster executors read and local runs ignore: the SLURM profile
# then asks for one task per rank, on as many nodes as the scheduler places them.
def mpi_launcher(wildcards):
    """The MPI launcher (override with --set-resources RULE:mpi=...); empty for forked
    ranks."""
    return "mpiexec" if timing_transport(wildcards) == "mpi" else ""


def mpi_tasks(wildcards):
    return (
        timing_ranks(wildcards.get("ranks"))
        if timing_transport(wildcards) == "mpi"
        else 1
    )


def cpus_per_task(wildcards, threads):
    """One CPU per MPI task; forked ranks share one task's threads."""
    return 1 if timing_transport(wildcards) == "mpi" else threads


def timing_command(wildcards, resources):
    """`collectives` as this machine runs it, or under the MPI launcher with N tasks."""
    if resources.mpi:
        return f"{resources.mpi} -n {resources.tasks} collectives"
    return "collectives"


def pingpong_launcher(wildcards, input, resources):
    """A ping-pong's `collectives`: under the MPI library it measures (its own mpiexec),
    or as timing_command runs it."""
    if input.library:
        return (
            f"collectives mpiexec --library {input.library} --ranks {PINGPONG_RANKS} --"
        )
    return timing_command(wildcards, resources)
