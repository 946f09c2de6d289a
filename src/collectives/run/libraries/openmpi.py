"""Open MPI: steered through coll/tuned's MCA variables, tuned by a dynamic-rules file
(coll_tuned_dynamic_rules_filename, format 1). Installed from its PyPI wheel into a prefix
of its own."""

from __future__ import annotations

from .kind import DEFAULT, Kind, Ranges, Switch, Trees

# coll_tuned's allreduce algorithm numbers (ompi/mca/coll/tuned/coll_tuned_allreduce_decision.c):
# 1 basic_linear, 3 recursive_doubling, 4 ring, 6 rabenseifner.
ALGORITHMS = {"naive": "1", "ring": "4", "recursive_doubling": "3", "rabenseifner": "6"}
ALLREDUCE_ID = 2  # Open MPI's COLLTYPE number of allreduce
# coll/tuned reads dynamic rules only when asked, and only if it, not coll/han (node-aware,
# priority 35 over tuned's 30), takes the communicator's allreduce.
TUNED = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1", "OMPI_MCA_coll": "^han"}


def export(ranges: Ranges, trees: Trees | None = None) -> str:
    """A selection as coll_tuned's dynamic-rules file: per communicator size (each rule
    holds from that size up to the next), per message size from which it holds, the
    algorithm number, fan-in/out 0 and segment size 0. Algorithm 0 leaves the size to
    coll_tuned's fixed decision (coll_tuned_allreduce_decision.c: a rule of 0 falls
    through to it), which is how a DEFAULT range is written."""
    lines = ["1  # collectives described", f"{ALLREDUCE_ID}  # allreduce",
             f"{len(ranges)}  # communicator sizes"]  # fmt: skip
    for ranks, sizes in ranges:
        lines += [f"{ranks}  # communicator size", f"{len(sizes)}  # message sizes"]
        for low, _, name in sizes:
            number = "0" if name == DEFAULT else KIND.algorithm_id(name)
            lines.append(f"{0 if low == sizes[0][0] else low} {number} 0 0  # {name}")
    return "\n".join(lines) + "\n"


KIND = Kind(
    name="openmpi",
    title="Open MPI",
    libmpi="lib/libmpi.so.40",
    launch_environment=(
        ("PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe"),
        ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        # probing libfabric's providers costs ~1 s per start and serves no job on one node
        # (the ranks talk over btl/sm); selection is unchanged without it
        ("OMPI_MCA_btl", "^ofi"),
    ),
    selection_suffix="rules",
    algorithms=ALGORITHMS,
    force=lambda name: {**TUNED, "OMPI_MCA_coll_tuned_allreduce_algorithm": name},
    load=lambda path, ranks: {**TUNED, "OMPI_MCA_coll_tuned_dynamic_rules_filename": path},
    own_choice=TUNED,
    decision="openmpi-4.1",  # coll/tuned's fixed decision, unchanged through 5.0
    # coll/tuned reads it when it sets up a communicator (with use_dynamic_rules, as TUNED
    # sets); 0 leaves the size to its fixed decision
    switch=Switch("coll_tuned_allreduce_algorithm", own="0", per_call=False),
    export=export,
    style=("black", ":"),
    # Open MPI 5 leaves its shared-memory segments behind in /dev/shm: give it a directory
    scratch_variable="OMPI_MCA_btl_sm_backing_directory",
)
