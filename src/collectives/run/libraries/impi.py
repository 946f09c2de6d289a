"""Intel MPI: steered through I_MPI_ADJUST_ALLREDUCE, tuned by a POSIX shell snippet that
sets it for a job of $N ranks. Installed from its PyPI wheel (impi-rt) into a prefix of its
own."""

from __future__ import annotations

import os
import subprocess

from .kind import DEFAULT, Kind, LibraryError, Ranges, Trees

# I_MPI_ADJUST_ALLREDUCE's algorithm ids (Intel MPI Library Developer Reference, "I_MPI_ADJUST
# Family Environment Variables"): 1 recursive doubling, 2 Rabenseifner's, 8 ring.
ALGORITHMS = {"ring": "8", "recursive_doubling": "1", "rabenseifner": "2"}
VARIABLE = "I_MPI_ADJUST_ALLREDUCE"
ANY_SIZE = 2**31 - 1  # the largest message size Intel MPI's ranges take


def export(ranges: Ranges, trees: Trees | None = None) -> str:
    """A selection as a shell snippet setting I_MPI_ADJUST_ALLREDUCE ("algorithm:low-high
    bytes;...") for a job of $N ranks. Intel MPI 2021 ignores message sizes in rules that
    also name rank counts, so the rank count picks a rule set here: each N's from N up to
    the next N. Intel MPI cannot leave one range to its own choice (a size no range covers
    takes the nearest rule, and id 0 is recursive doubling): an N whose every range is
    DEFAULT unsets the variable, and a DEFAULT range beside others is refused."""
    lines = [
        f"# {VARIABLE} for a job of N ranks: N=8 . ./this-file (sets and exports it)",
        ': "${N:?set N to the number of ranks}"',
    ]
    for index, (ranks, sizes) in enumerate(reversed(ranges)):
        if DEFAULT in {name for *_, name in sizes} and {name for *_, name in sizes} != {DEFAULT}:
            raise LibraryError(f"Intel MPI cannot leave part of N={ranks}'s sizes to its own "
                               f"{VARIABLE} choice")  # fmt: skip
        rules = ";".join(
            f"{KIND.algorithm_id(name)}:"
            f"{0 if low == sizes[0][0] else low}-{ANY_SIZE if high is None else high}"
            for low, high, name in sizes
            if name != DEFAULT
        )
        test = "if" if index == 0 else "elif"
        setting = f'{VARIABLE}="{rules}"' if rules else f"unset {VARIABLE}"
        lines.append(f'{test} [ "$N" -ge {ranks} ]; then {setting}')
    lines += ["fi", f'[ -z "${{{VARIABLE}+set}}" ] || export {VARIABLE}']
    return "\n".join(lines) + "\n"


def sourced(script: str, ranks: int) -> dict[str, str]:
    """The value the exported snippet gives I_MPI_ADJUST_ALLREDUCE for N = ranks; none
    where it leaves every size to Intel MPI's own choice."""
    result = subprocess.run(
        ["sh", "-c", f'unset {VARIABLE}; . "$0" >/dev/null && printf %s "${{{VARIABLE}-}}"',
         script],
        env={**os.environ, "N": str(ranks)}, capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0:
        raise LibraryError(f"{script}: cannot be sourced for N={ranks}")
    return {VARIABLE: result.stdout} if result.stdout else {}


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
    default_ranges=False,
)
