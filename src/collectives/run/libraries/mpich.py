"""MPICH: steered through its MPIR control variables, tuned by two collective-selection JSON
files that keep the installed MPICH's own trees for everything they do not tune: the MPIR
layer's (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), which names our algorithms, and the
device layer's (MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE), which sends those ranges to
the MPIR layer and leaves a DEFAULT range to the device's own choice (its shared-memory and
node-aware compositions). The pipeline's own library (the `mpich` wheel)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from ... import registry
from .kind import DEFAULT, Kind, LibraryError, Ranges, Switch, Trees

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
# MPICH's device layer (ch4) takes an all-reduce for its own algorithms (one node:
# MPIDI_POSIX_mpi_allreduce_release_gather; several: node-aware compositions) before the
# MPIR layer is consulted unless this is 0: a forced algorithm sets it.
DEVICE_COLLECTIVE = "MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE"
REACH_MPIR = {DEVICE_COLLECTIVE: "0"}
# The device layer's composition that hands the whole communicator to MPIR_Allreduce_impl
# (its netmod's allreduce: src/mpid/ch4/src/ch4_coll_impl.h, netmod/*/..._coll.h).
TO_MPIR = {"composition=MPIDI_Allreduce_intra_composition_beta": {}}
SUFFIX, DEVICE_SUFFIX = "json", "ch4.json"  # the MPIR file, and the device's beside it


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


def selection_json(ranges: Ranges, trees: Trees | None) -> dict[str, Any]:
    """A selection as a complete MPIR-layer selection file: the installed MPICH's own tree
    (every collective) with the intra-communicator allreduce replaced by comm_size<=N (each
    N; comm_size=any for larger) / avg_msg_size<=B ... =any, each range our algorithm's
    leaf. A DEFAULT range holds MPICH's own MPIR subtree (where its device layer hands it
    down)."""
    own = _own(trees, "mpir")
    return _replaced(trees["mpir"], ranges, lambda name: (
        copy.deepcopy(own) if name == DEFAULT else leaf(ALGORITHMS[registry.parse_variant(name)[0]])
    ))  # fmt: skip


def device_json(ranges: Ranges, trees: Trees | None) -> dict[str, Any]:
    """The same selection as a complete device-layer (ch4) selection file: each range of
    ours handed to the MPIR layer (TO_MPIR), a DEFAULT range to the device's own subtree."""
    own = _own(trees, "ch4")
    return _replaced(trees["ch4"], ranges,
                     lambda name: copy.deepcopy(own if name == DEFAULT else TO_MPIR))  # fmt: skip


def _replaced(
    tree: dict[str, Any], ranges: Ranges, subtree: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    """`tree` with its intra-communicator allreduce replaced by the ranges, each range's
    subtree given by `subtree(algorithm)`."""
    by_size: dict[str, Any] = {}
    for ranks, sizes in ranges:
        by_size[f"comm_size<={ranks}"] = {
            ("avg_msg_size=any" if high is None else f"avg_msg_size<={high}"): subtree(name)
            for _, high, name in sizes
        }
    if by_size:
        by_size["comm_size=any"] = by_size[list(by_size)[-1]]
    tree = copy.deepcopy(tree)
    tree["collective=allreduce"] = {
        **tree.get("collective=allreduce", {}),
        "comm_type=intra": by_size,
    }
    return tree


def _own(trees: Trees | None, layer: str) -> dict[str, Any]:
    """The installed MPICH's own intra-communicator allreduce subtree at one layer."""
    try:
        return trees[layer]["collective=allreduce"]["comm_type=intra"]
    except (TypeError, KeyError):
        raise LibraryError(
            f"an MPICH selection file needs its built-in {layer} selection tree"
        ) from None


def export(ranges: Ranges, trees: Trees | None) -> str:
    """The MPIR-layer file's text."""
    return json.dumps(selection_json(ranges, trees), indent=1) + "\n"


def export_device(ranges: Ranges, trees: Trees | None) -> str:
    """The device-layer file's text."""
    return json.dumps(device_json(ranges, trees), indent=1) + "\n"


def load(path: str, ranks: int) -> dict[str, str]:
    """The two files' variables: the MPIR file `path`, the device's beside it."""
    _, device = KIND.selection_files(path)
    return {
        "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": path,
        "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE": str(device),
    }


KIND = Kind(
    name="mpich",
    title="MPICH",
    libmpi="lib/libmpi.so.12",
    launch_environment=(),
    selection_suffix=SUFFIX,
    algorithms=ALGORITHMS,
    force=lambda name: {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": name, **REACH_MPIR},
    load=load,
    own_choice={},  # MPICH's own choice at every layer: nothing set
    decision="mpich-classic",
    # both read at every MPI_Allreduce (MPIR_Allreduce, MPIR_Allreduce_impl): a named
    # algorithm at the MPIR layer with the device kept out, or "auto" with the device in
    switch=Switch(
        "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM",
        own="auto",
        per_call=True,
        with_it=((DEVICE_COLLECTIVE, REACH_MPIR[DEVICE_COLLECTIVE], "1"),),
    ),
    export=export,
    companions={DEVICE_SUFFIX: export_device},
    bundled=True,  # the mpich wheel of the pipeline extra
    style=("black", "--"),
    # Rabenseifner runs for built-in operations only: the probe's sum takes the other branch
    unobservable=frozenset({"rabenseifner"}),
)
