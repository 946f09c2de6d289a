"""The results/ layout, in one place: the Snakefile's rules and the study's scripts read it.

Each pattern's {fields} are the rules' wildcards; the functions fill them in.
"""

from __future__ import annotations

from ..run.files import trace_path_for

RESULTS = "results"
RECORD = f"{RESULTS}/runs/{{dtype}}/{{algorithm}}/N{{ranks}}_M{{elements}}.json"
TRACE = trace_path_for(RECORD)
WALLCLOCK = f"{RESULTS}/wallclock/{{transport}}/N{{ranks}}.json"
PINGPONG = f"{RESULTS}/pingpong/{{fabric}}.csv"
REDUCTIONS = f"{RESULTS}/pingpong/{{fabric}}.reduce.csv"
EXCHANGE = f"{RESULTS}/pingpong/{{transport}}/exchange_N{{ranks}}.csv"
FABRIC = f"{RESULTS}/fabrics/{{fabric}}.json"
REPLAY = f"{RESULTS}/replay/{{fabric}}.csv"
SELECTION = f"{RESULTS}/selection/{{fabric}}.json"
TABLE = f"{RESULTS}/tables/{{name}}"
FIGURE = f"{RESULTS}/figures/{{figure}}.{{ext}}"
LOG = f"{RESULTS}/logs/{{name}}.log"


def record(dtype: str, algorithm: str, ranks: int, elements: int) -> str:
    """One grid point's record (`algorithm` a variant name such as hierarchical-G8)."""
    return RECORD.format(dtype=dtype, algorithm=algorithm, ranks=ranks, elements=elements)


def trace(dtype: str, algorithm: str, ranks: int, elements: int) -> str:
    """One grid point's message trace, beside its record."""
    return trace_path_for(record(dtype, algorithm, ranks, elements))


def table(name: str) -> str:
    """A table under results/tables/ (name with its suffix)."""
    return TABLE.format(name=name)


def log(name: str) -> str:
    """A job's log under results/logs/ (name without the suffix, may contain '/')."""
    return LOG.format(name=name)
