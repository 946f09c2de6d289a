"""Intel MPI: steered through I_MPI_ADJUST_ALLREDUCE, tuned by a POSIX shell snippet that
sets it for a job of $N ranks. Installed from its PyPI wheel (impi-rt) into a prefix of its
own."""

from __future__ import annotations

import os
import subprocess
from typing import Any

from .kind import Kind, LibraryError, Ranges

# I_MPI_ADJUST_ALLREDUCE's algorithm ids (Intel MPI Library Developer Reference, "I_MPI_ADJUST
# Family Environment Variables"): 1 recursive doubling, 2 Rabenseifner's, 8 ring.
ALGORITHMS = {"ring": "8", "recursive_doubling": "1", "rabenseifner": "2"}
VARIABLE = "I_MPI_ADJUST_ALLREDUCE"
ANY_SIZE = 2**31 - 1  # the largest message size Intel MPI's ranges take


def export(ranges: Ranges, default_tree: dict[str, Any] | None = None) -> str:
    """A selection as a shell snippet setting I_MPI_ADJUST_ALLREDUCE ("algorithm:low-high
    bytes;...") for a job of $N ranks. Intel MPI 2021 ignores message sizes in rules that
    also name rank counts, so the rank count picks a rule set here: each N's from N up to
    the next N."""
    lines = [
        f"# {VARIABLE} for a job of N ranks: N=8 . ./this-file (sets and exports it)",
        ': "${N:?set N to the number of ranks}"',
    ]
    for index, (ranks, sizes) in enumerate(reversed(ranges)):
        rules = ";".join(
            f"{KIND.algorithm_id(name)}:"
            f"{0 if low == sizes[0][0] else low}-{ANY_SIZE if high is None else high}"
            for low, high, name in sizes
        )
        test = "if" if index == 0 else "elif"
        lines.append(f'{test} [ "$N" -ge {ranks} ]; then {VARIABLE}="{rules}"')
    lines += ["fi", f"export {VARIABLE}"]
    return "\n".join(lines) + "\n"


def sourced(script: str, ranks: int) -> dict[str, str]:
    """The value the exported snippet gives I_MPI_ADJUST_ALLREDUCE for N = ranks."""
    result = subprocess.run(
        ["sh", "-c", f'. "$0" >/dev/null && printf %s "${VARIABLE}"', script],
        env={**os.environ, "N": str(ranks)}, capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0 or not result.stdout:
        raise LibraryError(f"{script}: sets no {VARIABLE} for N={ranks}")
    return {VARIABLE: result.stdout}


KIND = Kind(
    name="impi",
    title="Intel MPI",
    libmpi="lib/libmpi.so.12",
    launch_environment=(("I_MPI_FABRICS", "shm"),),
    selection_suffix="sh",
    algorithms=ALGORITHMS,
    force=lambda name: {VARIABLE: name},
    load=sourced,
    export=export,
    style=("0.3", (0, (6, 2, 1, 2, 1, 2))),
)
