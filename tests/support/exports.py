"""Reading exported selection files back into selection-table rows, to check them."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pandas as pd

# The branch MPI_SUM takes on enough elements of a communicator with node structure.
GUARDS = ("comm_hierarchy=parent", "is_commutative=yes", "is_op_built_in=yes", "count=any")


def _algorithm(leaf: dict[str, Any]) -> str:
    """The algorithm a (guarded) MPICH leaf runs for MPI_SUM on enough elements."""
    while len(leaf) > 1 or not next(iter(leaf)).startswith("algorithm="):
        leaf = next(leaf[key] for key in GUARDS if key in leaf)
    return next(iter(leaf)).removeprefix("algorithm=")


def read_mpich_json(data: dict[str, Any]) -> pd.DataFrame:
    """The inverse of mpich_json: rows of ranks, min_bytes, max_bytes, mpich_algorithm."""
    rows = []
    for size_key, sizes in data["collective=allreduce"]["comm_type=intra"].items():
        if size_key == "comm_size=any":
            continue
        ranks, low = int(size_key.removeprefix("comm_size<=")), 0
        for message_key, leaf in sizes.items():
            high = None if message_key == "avg_msg_size=any" else int(message_key.split("<=")[1])
            rows.append({"ranks": ranks, "min_bytes": low, "max_bytes": high,
                         "mpich_algorithm": _algorithm(leaf)})  # fmt: skip
            low = (high or 0) + 1
    return pd.DataFrame(rows).astype({"max_bytes": "Int64"})


def read_open_mpi_rules(text: str) -> pd.DataFrame:
    """The inverse of open_mpi_rules: rows of ranks, min_bytes, algorithm number."""
    numbers = [line.split("#")[0].split() for line in text.splitlines()]
    numbers = [[int(v) for v in fields] for fields in numbers if fields]
    assert numbers[0] == [1] and numbers[1] == [2]  # one collective: allreduce
    rows, at = [], 3
    for _ in range(numbers[2][0]):
        ranks, count = numbers[at][0], numbers[at + 1][0]
        for low, algorithm, fan, segment in numbers[at + 2 : at + 2 + count]:
            assert (fan, segment) == (0, 0)
            rows.append({"ranks": ranks, "min_bytes": low, "open_mpi": algorithm})
        at += 2 + count
    return pd.DataFrame(rows)


def read_intel_mpi_script(path: str, ranks: int) -> str:
    """I_MPI_ADJUST_ALLREDUCE as the exported shell snippet sets it for N = ranks."""
    return subprocess.run(
        ["sh", "-c", '. "$0" && printf %s "$I_MPI_ADJUST_ALLREDUCE"', path],
        env={**os.environ, "N": str(ranks)}, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
