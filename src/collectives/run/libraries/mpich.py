"""MPICH: steered through its MPIR control variables, tuned by a collective-selection JSON
file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) that keeps the installed MPICH's own tree
for everything it does not tune. The pipeline's own library (the `mpich` wheel)."""

from __future__ import annotations

import copy
import json
from typing import Any

from ... import registry
from .kind import DEFAULT, Kind, LibraryError, Ranges, Switch

FUNCTION = "MPIR_Allreduce_intra_{}"  # MPICH's allreduce algorithm functions
# Our algorithms as MPICH's (src/mpi/coll/allreduce/), with the parameters a selection
# leaf gives them: the k-nomial tree with k = 2 is the binomial tree (csel reads every
# parameter with atoi: tree_type 1 is MPIR_TREE_TYPE_KNOMIAL_1, chunk_size 0 and
# buffer_per_child 0 its defaults); the node-aware smp composition has the hierarchical
# all-reduce's three phases.
ALGORITHMS = {
    "ring": "ring",
    "recursive_doubling": "recursive_doubling",
    "rabenseifner": "reduce_scatter_allgather",
    "binomial_tree": "tree",
    "hierarchical": "smp",
}
PARAMETERS = {"tree": {"tree_type": 1, "k": 2, "chunk_size": 0, "buffer_per_child": 0}}
# Where each algorithm cannot run, as MPICH's coll_algorithms.txt restricts it; a selection
# guards it there, with FALLBACK taking over.
RESTRICTIONS = {
    "ring": ("commutative",),
    "reduce_scatter_allgather": ("size-ge-pof2", "builtin-op"),
    "smp": ("commutative", "node-hierarchy"),
}
# Each restriction as a selection tree's branch: (the key where it holds, the key where it
# does not, whether the failing branch comes first), applied from the innermost.
GUARDS = {
    "commutative": ("is_commutative=yes", "is_commutative=no", False),
    "builtin-op": ("is_op_built_in=yes", "is_op_built_in=no", False),
    "size-ge-pof2": ("count=any", "count<pow2", True),
    "node-hierarchy": ("comm_hierarchy=parent", "comm_hierarchy=any", False),
}
FALLBACK = FUNCTION.format("recursive_doubling")  # runs for any op and count
# MPICH's device layer (ch4) would hand a single-node all-reduce to its shared-memory
# algorithms before the MPIR selection is consulted: keep allreduce at the MPIR layer.
REACH_MPIR = {"MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE": "0"}


def leaf(name: str) -> dict[str, Any]:
    """One algorithm as an MPICH leaf, guarded where it cannot run (RESTRICTIONS)."""
    parameters = PARAMETERS.get(name, {})
    tree = {f"algorithm={FUNCTION.format(name)}": {f"{k}={v}": {} for k, v in parameters.items()}}
    fallback = {f"algorithm={FALLBACK}": {}}
    for restriction in RESTRICTIONS.get(name, ()):
        holds, fails, fails_first = GUARDS[restriction]
        branches = [(holds, tree), (fails, fallback)]
        tree = dict(reversed(branches) if fails_first else branches)
    return tree


def selection_json(ranges: Ranges, default_tree: dict[str, Any] | None) -> dict[str, Any]:
    """A selection as a complete MPICH selection file: the installed MPICH's own tree
    (default_tree, every collective) with the intra-communicator allreduce replaced by
    comm_size<=N (each N; comm_size=any for larger) / avg_msg_size<=B ... =any. A DEFAULT
    range holds the installed MPICH's own intra-communicator allreduce subtree."""
    by_size: dict[str, Any] = {}
    for ranks, sizes in ranges:
        by_size[f"comm_size<={ranks}"] = {
            ("avg_msg_size=any" if high is None else f"avg_msg_size<={high}"):
                _own(default_tree) if name == DEFAULT
                else leaf(ALGORITHMS[registry.parse_variant(name)[0]])
            for _, high, name in sizes
        }  # fmt: skip
    if by_size:
        by_size["comm_size=any"] = by_size[list(by_size)[-1]]
    tree = copy.deepcopy(default_tree or {})
    tree["collective=allreduce"] = {
        **tree.get("collective=allreduce", {}),
        "comm_type=intra": by_size,
    }
    return tree


def _own(default_tree: dict[str, Any] | None) -> dict[str, Any]:
    """The installed MPICH's own intra-communicator allreduce subtree: a range left to it."""
    try:
        return copy.deepcopy(default_tree["collective=allreduce"]["comm_type=intra"])
    except (TypeError, KeyError):
        raise LibraryError(
            "leaving a range to MPICH's own choice needs its built-in selection tree"
        ) from None


def export(ranges: Ranges, default_tree: dict[str, Any] | None) -> str:
    """The selection file's text."""
    return json.dumps(selection_json(ranges, default_tree), indent=1) + "\n"


KIND = Kind(
    name="mpich",
    title="MPICH",
    libmpi="lib/libmpi.so.12",
    launch_environment=(),
    selection_suffix="json",
    algorithms=ALGORITHMS,
    force=lambda name: {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": name, **REACH_MPIR},
    load=lambda path, ranks: {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": path, **REACH_MPIR},
    own_choice=REACH_MPIR,
    # read at every MPI_Allreduce (MPIR_Allreduce_impl); "auto" is the MPIR layer's own
    # selection, as REACH_MPIR leaves it
    switch=Switch("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", own="auto", per_call=True),
    export=export,
    bundled=True,  # the mpich wheel of the pipeline extra
    style=("black", "--"),
    # Rabenseifner runs for built-in operations only: the probe's sum takes the other branch
    unobservable=frozenset({"rabenseifner"}),
)
