"""Which all-reduce algorithm an MPI library runs: the decision rules it ships.

The model's choice is the cheapest algorithm; a library's is its own rule. To predict what
a cluster's MPI_Allreduce did, the ladder prices the algorithm its library picked (where
the library and its version are known), and this module holds those rules, in our
algorithm names: Open MPI's segmented ring is a ring here (the same bytes, in segments),
its "nonoverlapping" reduce-then-broadcast the binomial tree, its "basic_linear" naive.
"""

from __future__ import annotations

import math
import re

MPICH_SHORT_MSG_SIZE = 2048  # MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, MPICH's classic switch

# Open MPI 4.0's fixed decision (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, v4.0.x):
# recursive doubling below 10000 bytes; for a commutative op with more elements than ranks,
# a ring (segmented into 1 MiB pieces once the vector exceeds N MiB); else reduce + bcast.
OPEN_MPI_4_0_INTERMEDIATE = 10_000

# Open MPI's fixed decision for a commutative allreduce from v4.1 on (the same file, the
# same function in v4.1.0-v4.1.8, v5.0.0-v5.0.10 and the v5.0.x branch of August 2026,
# whose 5.0.11 the pipeline installs: switch points averaged from
# ompi-collectives-tuning runs): per communicator size below the first number, (message
# bytes below, algorithm) in order. In 5.0, coll/han (priority 35 over tuned's 30) takes a
# commutative allreduce on communicators that span nodes: node-aware, not one of these.
INF = math.inf
OPEN_MPI = [
    (4, [(8, "ring"), (4096, "recursive_doubling"), (8192, "ring"), (16384, "recursive_doubling"),
         (65536, "ring"), (262144, "segmented_ring"), (INF, "rabenseifner")]),
    (8, [(16, "ring"), (8192, "recursive_doubling"), (INF, "rabenseifner")]),
    (16, [(8192, "recursive_doubling"), (INF, "rabenseifner")]),
    (32, [(64, "segmented_ring"), (4096, "recursive_doubling"), (INF, "rabenseifner")]),
    (64, [(128, "segmented_ring"), (INF, "rabenseifner")]),
    (128, [(262144, "recursive_doubling"), (INF, "rabenseifner")]),
    (256, [(131072, "nonoverlapping"), (262144, "recursive_doubling"), (INF, "rabenseifner")]),
    (512, [(4096, "nonoverlapping"), (INF, "rabenseifner")]),
    (2048, [(2048, "nonoverlapping"), (16384, "recursive_doubling"), (INF, "rabenseifner")]),
    (4096, [(2048, "nonoverlapping"), (4096, "segmented_ring"), (16384, "recursive_doubling"),
            (INF, "rabenseifner")]),
    (INF, [(2048, "nonoverlapping"), (16384, "segmented_ring"), (32768, "recursive_doubling"),
           (INF, "rabenseifner")]),
]  # fmt: skip
OPEN_MPI_AS_OURS = {
    "segmented_ring": "ring",
    "nonoverlapping": "binomial_tree",
    "basic_linear": "naive",
}


def mpich_classic(ranks: int, nbytes: int, itemsize: int) -> str:
    """MPICH's classic rule: recursive doubling for short messages (or fewer elements than
    the largest power of two <= N), Rabenseifner otherwise."""
    power_of_two = 1 << (ranks.bit_length() - 1)
    if nbytes <= MPICH_SHORT_MSG_SIZE or nbytes // itemsize < power_of_two:
        return "recursive_doubling"
    return "rabenseifner"


def open_mpi_fixed(ranks: int, nbytes: int) -> str:
    """Open MPI's fixed decision from v4.1 on, in Open MPI's own algorithm names."""
    for below, steps in OPEN_MPI:
        if ranks < below:
            return next(algorithm for limit, algorithm in steps if nbytes < limit)
    raise AssertionError("unreachable: the last row covers every size")


def open_mpi_4_0(ranks: int, nbytes: int, itemsize: int) -> str:
    """Open MPI 4.0's fixed decision for a commutative op, in Open MPI's names."""
    if nbytes < OPEN_MPI_4_0_INTERMEDIATE:
        return "recursive_doubling"
    if nbytes // itemsize > ranks:
        return "ring" if nbytes <= ranks * (1 << 20) else "segmented_ring"
    return "nonoverlapping"


def open_mpi_4_1(ranks: int, nbytes: int, itemsize: int) -> str:
    """What Open MPI 4.1 and 5.0 run under their fixed decision: the table's choice, with
    the fallbacks of the algorithms themselves (a ring with fewer elements than ranks runs
    recursive doubling; Rabenseifner with fewer than the largest power of two <= N runs
    basic_linear)."""
    choice, elements = open_mpi_fixed(ranks, nbytes), nbytes // itemsize
    if choice in ("ring", "segmented_ring") and elements < ranks:
        return "recursive_doubling"
    if choice == "rabenseifner" and elements < 1 << (ranks.bit_length() - 1):
        return "basic_linear"
    return choice


RULES = {
    "openmpi-4.0": open_mpi_4_0,
    "openmpi-4.1": open_mpi_4_1,
    "mpich-classic": mpich_classic,
}


def library_choice(library: str, ranks: int, nbytes: int, itemsize: int) -> str:
    """The algorithm (our name) that `library`'s rule runs for one all-reduce; KeyError
    names the libraries whose rules are known."""
    if library not in RULES:
        raise KeyError(f"no decision rule for library {library!r}; known: {', '.join(RULES)}")
    choice = RULES[library](ranks, nbytes, itemsize)
    return OPEN_MPI_AS_OURS.get(choice, choice)


def rule_of(kind: str, version: str) -> str | None:
    """The rule (a RULES key) by which an installed library of `kind` ('openmpi', ...)
    and `version` (MPI_Get_library_version's, as 'Open MPI v5.0.11') picks its all-reduce
    on one node; None where it is not known. Open MPI's coll/tuned fixed decision is known
    (4.0's; 4.1's, unchanged through 5.0.x: OPEN_MPI), not a later release's; MPICH's is
    not: on one node its device layer runs its own shared-memory algorithm, none of ours;
    Intel MPI's is not published."""
    found = re.search(r"(\d+)\.(\d+)", version)
    if kind != "openmpi" or found is None:
        return None
    release = tuple(map(int, found.groups()))
    if release < (4, 1):
        return "openmpi-4.0"
    return "openmpi-4.1" if release < (5, 1) else None


def steps(ranks: int, itemsize: int) -> list[int]:
    """Message sizes (bytes) at which some rule of RULES may change its choice at N ranks,
    each rule holding one algorithm from each to the next: every threshold the rules
    compare a size or an element count with."""
    power_of_two = 1 << (ranks.bit_length() - 1)
    found = {MPICH_SHORT_MSG_SIZE + 1, OPEN_MPI_4_0_INTERMEDIATE, ranks * (1 << 20) + 1,
             ranks * itemsize, (ranks + 1) * itemsize, power_of_two * itemsize}  # fmt: skip
    for _, limits in OPEN_MPI:
        found.update(int(limit) for limit, _ in limits if math.isfinite(limit))
    return sorted(found)
