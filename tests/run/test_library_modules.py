"""One module per MPI library: its names for our algorithms, its steering, its exporter and
its guards. A dummy library added to KINDS (what a module beside mpich.py does) is known to
the config check, the selection, the exports, their paths, the steering and the tuning,
with no other change."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from collectives.run import libraries
from collectives.run.libraries import KINDS, Kind, Library, LibraryError, impi, mpich, openmpi
from collectives.study import config, markdown, paths, selection, tuning

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"

DUMMY = Kind(
    name="dummympi",
    title="Dummy MPI",
    libmpi="lib/libdummy.so",
    launch_environment=(),
    selection_suffix="txt",
    algorithms={"ring": "R", "recursive_doubling": "D"},
    force=lambda name: {"DUMMY_ALLREDUCE": name},
    load=lambda path, ranks: {"DUMMY_RULES": path, "DUMMY_RANKS": str(ranks)},
    export=lambda ranges, tree: "".join(
        f"{ranks} {low} {DUMMY.algorithm_id(name)}\n" for ranks, sizes in ranges
        for low, _, name in sizes
    ),
    unobservable=frozenset({"recursive_doubling"}),
)  # fmt: skip


@pytest.fixture
def with_dummy(monkeypatch):
    """KINDS with the dummy library beside the three real ones."""
    monkeypatch.setitem(KINDS, DUMMY.name, DUMMY)
    return DUMMY


def test_a_new_library_is_one_kind(with_dummy, tmp_path):
    shipped = yaml.safe_load((REPO / "config/config.yaml").read_text())
    entry = copy.deepcopy(shipped)
    entry["libraries"]["dummympi"] = {"prefix": str(tmp_path)}
    config.validate_schema(entry, SCHEMA)  # its name is valid: the enum comes from KINDS
    entry["libraries"]["nompi"] = {"prefix": str(tmp_path)}
    with pytest.raises(config.ConfigError, match="'nompi' is not one of mpich, openmpi, impi, "
                       "dummympi"):  # fmt: skip
        config.validate_schema(entry, SCHEMA)

    assert libraries.common_algorithms(["ring", "rabenseifner"], ["mpich", "dummympi"]) == ["ring"]
    assert paths.selection("nvlink", "dummympi").endswith("nvlink/dummympi.txt")
    rows = pd.DataFrame(
        {"fabric": "f", "ranks": [2, 2, 4], "min_bytes": [0, 100, 0],
         "max_bytes": [99, None, None], "algorithm": ["recursive_doubling", "ring", "ring"]}
    ).astype({"max_bytes": "Int64"})  # fmt: skip
    assert selection.export("dummympi", rows, None) == {"txt": "2 0 D\n2 100 R\n4 0 R\n"}

    library = Library("dummympi", str(tmp_path), "Dummy MPI 1.0")
    assert libraries.steering(library, 4, force="ring") == {"DUMMY_ALLREDUCE": "R"}
    loaded = libraries.steering(library, 4, selection=str(tmp_path / "s.txt"))
    assert loaded == {"DUMMY_RULES": str(tmp_path / "s.txt"), "DUMMY_RANKS": "4"}
    with pytest.raises(LibraryError, match="Dummy MPI has no rabenseifner all-reduce"):
        libraries.steering(library, 4, force="rabenseifner")
    assert tuning._obeyed("dummympi", "ring", ["ring"]) is True
    assert tuning._obeyed("dummympi", "recursive_doubling", ["ring"]) is None  # unobservable


def test_a_library_with_a_published_decision_gets_its_columns(monkeypatch):
    monkeypatch.setitem(KINDS, DUMMY.name, replace(DUMMY, decision="openmpi-4.0"))
    costs = pd.DataFrame(
        {"fabric": "f", "dtype": "float64", "is_winner": True, "ranks": 4,
         "message_bytes": [8, 1 << 20], "algorithm": ["recursive_doubling", "ring"]}
    )  # fmt: skip
    chosen = pd.DataFrame({"fabric": "f", "ranks": 4, "max_bytes": [8, None],
                           "algorithm": ["recursive_doubling", "ring"]})  # fmt: skip
    fabrics = pd.DataFrame({"fabric": ["f"], "kind": ["given"]})
    agreement = selection.library_agreement(costs, fabrics, chosen, "float64")
    # Open MPI 4.0's rule: recursive doubling below 10,000 B, then a ring up to N MiB
    assert agreement.rows.dummympi_agree.tolist() == [2]
    assert agreement.rows.dummympi.tolist() == ["RD ≤ 9.76 KiB < ring"]  # segmented: a ring
    text = markdown.libraries_markdown(agreement, "float64")
    assert "| N | model | MPICH (mpich-classic) | agree | Open MPI (openmpi-4.1) | agree | " \
        "Dummy MPI (openmpi-4.0) | agree |" in text  # fmt: skip


def test_mpich_s_guards_are_data():
    """Each restriction of MPICH's coll_algorithms.txt becomes one branch, innermost first,
    with recursive doubling where the algorithm cannot run."""
    fallback = {f"algorithm={mpich.FALLBACK}": {}}
    assert mpich.leaf("recursive_doubling") == {
        "algorithm=MPIR_Allreduce_intra_recursive_doubling": {}
    }
    assert mpich.leaf("reduce_scatter_allgather") == {
        "is_op_built_in=yes": {
            "count<pow2": fallback,
            "count=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}},
        },
        "is_op_built_in=no": fallback,
    }
    assert set(mpich.RESTRICTIONS) <= set(mpich.ALGORITHMS.values())
    assert {r for rs in mpich.RESTRICTIONS.values() for r in rs} <= set(mpich.GUARDS)


def test_each_library_names_only_registered_algorithms():
    from collectives.registry import ALGORITHMS

    for kind in KINDS.values():
        assert set(kind.algorithms) <= set(ALGORITHMS), kind.name
        assert kind.algorithm_id("hierarchical-G8") == kind.algorithms.get("hierarchical")


DEFAULT_RANGES = [(2, [(0, 1023, "ring"), (1024, None, libraries.DEFAULT)]),
                  (4, [(0, None, libraries.DEFAULT)])]  # fmt: skip


def test_a_range_left_to_the_library_is_written_its_own_way(tmp_path):
    """Open MPI: algorithm 0 (coll_tuned's fixed decision); MPICH: its own allreduce
    subtree; Intel MPI only for a whole N (the variable unset), a part of one refused."""
    assert openmpi.export(DEFAULT_RANGES).splitlines()[5:7] == ["0 4 0 0  # ring",
                                                               "1024 0 0 0  # default"]  # fmt: skip
    script = tmp_path / "impi.sh"
    script.write_text(impi.export([(2, [(0, None, "ring")]), *DEFAULT_RANGES[1:]]))
    assert impi.sourced(str(script), 2) == {impi.VARIABLE: "8:0-2147483647"}
    assert impi.sourced(str(script), 4) == {}  # every size to Intel MPI's own choice
    with pytest.raises(LibraryError, match="cannot leave part of N=2's sizes"):
        impi.export(DEFAULT_RANGES)
    own = {"comm_type=intra": {"avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_smp": {}}}}
    tree = mpich.selection_json(DEFAULT_RANGES, {"mpir": {"collective=allreduce": own}})
    intra = tree["collective=allreduce"]["comm_type=intra"]
    assert intra["comm_size<=2"]["avg_msg_size=any"] == own["comm_type=intra"]
    assert intra["comm_size<=4"]["avg_msg_size=any"] == own["comm_type=intra"]
    with pytest.raises(LibraryError, match="needs its built-in mpir selection tree"):
        mpich.selection_json(DEFAULT_RANGES, None)
    with pytest.raises(LibraryError, match="needs its built-in ch4 selection tree"):
        mpich.device_json(DEFAULT_RANGES, {"mpir": {"collective=allreduce": own}})


def test_forcing_the_default_sets_only_what_a_selection_file_sets_beside_it():
    assert KINDS["mpich"].forcing(libraries.DEFAULT) == {}  # every layer's own choice
    assert KINDS["openmpi"].forcing(libraries.DEFAULT) == openmpi.TUNED
    assert KINDS["impi"].forcing(libraries.DEFAULT) == {}
    assert tuning._obeyed("openmpi", libraries.DEFAULT, ["ring"]) is None  # nothing named
