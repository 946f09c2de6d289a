"""The results/ layout, in one place: the Snakefile's rules and the study's scripts read it.

Each pattern's {fields} are the rules' wildcards; the functions fill them in.
"""

from __future__ import annotations

from ..run.files import trace_path_for
from ..run.libraries import KINDS
from ..transport import TRANSPORTS

RESULTS = "results"
RECORD = f"{RESULTS}/runs/{{dtype}}/{{algorithm}}/N{{ranks}}_M{{elements}}.json"
TRACE = trace_path_for(RECORD)
WALLCLOCK = f"{RESULTS}/wallclock/{{transport}}/N{{ranks}}.json"
PINGPONG = f"{RESULTS}/pingpong/{{fabric}}.csv"
REDUCTIONS = f"{RESULTS}/pingpong/{{fabric}}.reduce.csv"
EXCHANGE = f"{RESULTS}/pingpong/{{transport}}/exchange_N{{ranks}}.csv"
FABRIC = f"{RESULTS}/fabrics/{{fabric}}.json"
REPLAY = f"{RESULTS}/replay/{{fabric}}.csv"
SELECTION = f"{RESULTS}/selection/{{fabric}}/{{library}}.{{suffix}}"
CLOCK = "clock"  # the selection directory of this machine's clock (not a fabric name)
TUNING = f"{RESULTS}/tuning/{{library}}/{{setting}}/N{{ranks}}.json"
GPU_SYSTEM = f"{RESULTS}/gpu/{{system}}.csv"  # one GPU system's log beside its predictions
CLUSTER = f"{RESULTS}/clusters/{{cluster}}.csv"  # a cluster's osu_allreduce beside the ladder
PROBE = f"{RESULTS}/tuning/{{library}}/{{setting}}/N{{ranks}}.probe.json"
LIBRARY = "resources/mpi/{library}.json"  # an MPI library's descriptor; it lives beside it
TABLE = f"{RESULTS}/tables/{{name}}"
# What each wildcard of the patterns above may match (the rules' wildcard_constraints;
# `setting`'s is the tuning's, study.tuning.setting_pattern)
WILDCARDS = {
    "algorithm": "[a-z_]+(-[A-Z][0-9]+)*",  # a variant name: registry.variant_name
    "system": "[A-Za-z0-9][A-Za-z0-9_.-]*",
    "dtype": "[a-z0-9]+",
    "ranks": "[0-9]+",
    "elements": "[0-9]+",
    "fabric": "[A-Za-z0-9][A-Za-z0-9_.-]*",
    "transport": "|".join(TRANSPORTS),
    "library": "|".join(KINDS),
}
# Every table of a full run, by the part of the run that makes it (a config without a
# wallclock section, libraries or GPU systems makes no table of that part).
TABLES = {
    "study": ("measurements.csv", "seed_check.md", "fabrics.csv", "costs.csv",
              "crossover.csv", "cost_model.md", "workloads.csv", "scale.csv",
              "scale_summary.csv", "selection.csv", "selection_vs_libraries.md"),
    "wallclock": ("wallclock.csv", "validation.csv", "validation_crossover.csv",
                  "validation_clusters.csv", "validation_summary.csv"),
    "tuning": ("clock_selection.csv", "tuned_vs_default.csv", "tuned_vs_default.md"),
    "gpu": ("validation_gpu.csv", "validation_gpu_summary.csv", "gpu_busbw.csv",
            "nccl_choice_map.csv"),
    "report": ("pipeline_timing.csv", "claims.csv"),
}  # fmt: skip
FIGURE = f"{RESULTS}/figures/{{figure}}.{{ext}}"
LOG = f"{RESULTS}/logs/{{name}}.log"
BENCHMARKS = f"{RESULTS}/benchmarks"  # one Snakemake benchmark file per job: {rule}/...tsv


def record(dtype: str, algorithm: str, ranks: int, elements: int) -> str:
    """One grid point's record (`algorithm` a variant name such as hierarchical-G8)."""
    return RECORD.format(dtype=dtype, algorithm=algorithm, ranks=ranks, elements=elements)


def trace(dtype: str, algorithm: str, ranks: int, elements: int) -> str:
    """One grid point's message trace, beside its record."""
    return trace_path_for(record(dtype, algorithm, ranks, elements))


def selection(fabric: str, library: str, suffix: str | None = None) -> str:
    """The selection file exported for `library` from one fabric's model (or the clock's):
    the one it loads, or its file of `suffix` (selection_files)."""
    suffix = suffix or KINDS[library].selection_suffix
    return SELECTION.format(fabric=fabric, library=library, suffix=suffix)


def selection_files(fabric: str, library: str) -> list[str]:
    """Every file of one exported selection, the one the library loads first (MPICH's two
    layers' files; one file for the others)."""
    return [str(path) for path in KINDS[library].selection_files(selection(fabric, library))]


def library(name: str) -> str:
    """The descriptor of an MPI library (resources/mpi/{name}.json)."""
    return LIBRARY.format(library=name)


def table(name: str) -> str:
    """A table under results/tables/ (name with its suffix)."""
    return TABLE.format(name=name)


def log(name: str) -> str:
    """A job's log under results/logs/ (name without the suffix, may contain '/')."""
    return LOG.format(name=name)


def benchmark(rule: str, name: str = "") -> str:
    """A job's Snakemake benchmark file: results/benchmarks/{rule}[/{name}].tsv, so that
    the rule it belongs to is its first directory (name may hold wildcards)."""
    return f"{BENCHMARKS}/{rule}/{name}.tsv" if name else f"{BENCHMARKS}/{rule}.tsv"
