"""Selection tables: thresholds, MPICH's JSON both ways, and the libraries' own rules."""

from __future__ import annotations

import json
from itertools import pairwise

import pandas as pd
import pytest

from collectives import registry
from collectives.model import cost, library_rules
from collectives.run import libraries
from collectives.run.files import write_json
from collectives.run.libraries import LibraryError, common_algorithms, impi, mpich, openmpi
from collectives.study import markdown, paths, selection, tuning
from tests.support.exports import read_intel_mpi_script, read_mpich_json, read_open_mpi_rules
from tests.support.grid import GIVEN_FABRICS, GRID_ALGORITHMS, THEORY_GRID

LIBRARIES = ["mpich", "openmpi", "impi"]
# An installed MPICH's own trees stand for every collective the export does not tune.
DEFAULT_TREE = {
    "collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}},
    "collective=allreduce": {
        "comm_type=intra": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
        "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}},
    },
}
DEVICE_TREE = {
    "collective=bcast": {"composition=MPIDI_Bcast_intra_composition_alpha": {}},
    "collective=allreduce": {
        "comm_type=intra": {
            "comm_size=node_comm_size": {"composition=MPIDI_Allreduce_intra_composition_gamma": {}}
        }
    },
}
TREES = {"mpir": DEFAULT_TREE, "ch4": DEVICE_TREE}


@pytest.fixture(scope="module")
def costs():
    return cost.modeled_costs(THEORY_GRID, GIVEN_FABRICS, GRID_ALGORITHMS)


@pytest.fixture(scope="module")
def table(costs):
    return selection.selection_table(GIVEN_FABRICS, costs, "float64", LIBRARIES)


def test_ranges_tile_every_size_for_every_fabric_and_n(table):
    for _, rows in table.groupby(["fabric", "ranks"]):
        rows = rows.sort_values("min_bytes")
        assert rows.min_bytes.iloc[0] == 0 and pd.isna(rows.max_bytes.iloc[-1])
        for before, after in pairwise(rows.itertuples()):
            assert after.min_bytes == before.max_bytes + 1
    assert set(table.ranks) == set(THEORY_GRID.ranks)


def test_each_range_holds_the_cheapest_exportable_algorithm(costs, table):
    """At every grid size, the range containing it names the cheapest algorithm every
    library has."""
    common = common_algorithms(list(dict.fromkeys(costs.algorithm)), LIBRARIES)
    assert set(common) == {"ring", "recursive_doubling", "rabenseifner"}
    exportable = costs[costs.algorithm.isin(common)]
    for (fabric, ranks, size), rows in exportable.groupby(["fabric", "ranks", "message_bytes"]):
        best = rows.loc[rows.time_s.idxmin()]
        chosen = table[(table.fabric == fabric) & (table.ranks == ranks)]
        (row,) = [
            r for r in chosen.itertuples()
            if r.min_bytes <= size and (pd.isna(r.max_bytes) or size <= r.max_bytes)
        ]  # fmt: skip
        assert rows[rows.algorithm == row.algorithm].time_s.iloc[0] == pytest.approx(best.time_s)
    assert "naive" not in set(table.algorithm)  # MPICH has no naive all-reduce


def test_the_crossover_at_eight_ranks_is_the_closed_form(table):
    """T_rd = 3a + 3Bb and T_rabenseifner = 6a + 1.75Bb cross at B = 2.4 a/b."""
    for fabric in GIVEN_FABRICS.itertuples():
        rows = table[(table.fabric == fabric.fabric) & (table.ranks == 8)]
        first = rows.iloc[0]
        assert first.algorithm == "recursive_doubling"
        assert abs(first.max_bytes - 2.4 * fabric.alpha_s / fabric.beta_s_per_byte) <= 1


def mpich_json(rows: pd.DataFrame, layer: str = "json") -> dict:
    """A selection as one of the MPICH files the pipeline exports (the MPIR layer's, or
    the device's: ch4.json), read back."""
    return json.loads(selection.export("mpich", rows, TREES)[layer])


def test_the_mpich_json_has_mpich_s_shape(table):
    data = mpich_json(table[table.fabric == "slow-latency"])
    assert data["collective=bcast"] == DEFAULT_TREE["collective=bcast"]  # kept: complete
    allreduce = data["collective=allreduce"]
    assert allreduce["comm_type=inter"] == DEFAULT_TREE["collective=allreduce"]["comm_type=inter"]
    intra = allreduce["comm_type=intra"]
    assert list(intra) == [f"comm_size<={n}" for n in sorted(set(THEORY_GRID.ranks))] + [
        "comm_size=any"
    ]
    for messages in intra.values():
        assert list(messages)[-1] == "avg_msg_size=any"
        for leaf in messages.values():
            if "is_commutative=yes" in leaf:  # the ring: commutative operations only
                assert list(leaf) == ["is_commutative=yes", "is_commutative=no"]
            elif "is_op_built_in=yes" in leaf:  # Rabenseifner: built-in ones, 2^k elements
                assert list(leaf["is_op_built_in=yes"]) == ["count<pow2", "count=any"]
            else:
                assert list(leaf) == ["algorithm=MPIR_Allreduce_intra_recursive_doubling"]
    assert DEFAULT_TREE["collective=allreduce"]["comm_type=intra"]  # the input is unchanged


def test_the_device_file_hands_our_ranges_to_mpir_and_keeps_its_own_for_default_ones():
    rows = pd.DataFrame(
        {"fabric": "f", "ranks": [2, 2], "min_bytes": [0, 1024], "max_bytes": [1023, None],
         "algorithm": ["ring", "default"]}
    ).astype({"max_bytes": "Int64"})  # fmt: skip
    device = mpich_json(rows, "ch4.json")
    assert device["collective=bcast"] == DEVICE_TREE["collective=bcast"]  # kept: complete
    intra = device["collective=allreduce"]["comm_type=intra"]
    assert (
        intra["comm_size<=2"]
        == intra["comm_size=any"]
        == {
            "avg_msg_size<=1023": mpich.TO_MPIR,
            "avg_msg_size=any": DEVICE_TREE["collective=allreduce"]["comm_type=intra"],
        }
    )
    mpir = mpich_json(rows)["collective=allreduce"]["comm_type=intra"]["comm_size<=2"]
    assert mpir["avg_msg_size=any"] == DEFAULT_TREE["collective=allreduce"]["comm_type=intra"]


def test_an_mpich_selection_loads_both_files_and_names_a_missing_one(tmp_path):
    path = tmp_path / "mpich.json"
    path.write_text("{}")
    with pytest.raises(LibraryError, match=r"mpich\.json needs mpich\.ch4\.json beside"):
        mpich.KIND.loading(path, 2)
    (tmp_path / "mpich.ch4.json").write_text("{}")
    loaded = mpich.KIND.loading(path, 2)
    assert loaded["MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE"] == str(
        tmp_path / "mpich.ch4.json"
    )
    assert mpich.DEVICE_COLLECTIVE not in loaded  # the device layer takes its own ranges
    assert paths.selection_files("f", "mpich") == [
        "results/selection/f/mpich.json",
        "results/selection/f/mpich.ch4.json",
    ]


def test_parameters_become_keys_that_mpich_reads_with_atoi():
    """csel_container.c parses 'tree_type=1' with atoi: MPIR_TREE_TYPE_KNOMIAL_1 is 1."""
    rows = pd.DataFrame(
        {"fabric": "f", "ranks": [4, 4], "min_bytes": [0, 65], "max_bytes": [64, None],
         "algorithm": ["binomial_tree", "hierarchical-G2"]}
    ).astype({"max_bytes": "Int64"})  # fmt: skip
    tree = mpich_json(rows)
    messages = tree["collective=allreduce"]["comm_type=intra"]["comm_size<=4"]
    assert messages == {
        "avg_msg_size<=64": {
            "algorithm=MPIR_Allreduce_intra_tree": {
                "tree_type=1": {}, "k=2": {}, "chunk_size=0": {}, "buffer_per_child=0": {}
            }
        },
        "avg_msg_size=any": {  # smp needs node structure and a commutative operation
            "comm_hierarchy=parent": {
                "is_commutative=yes": {"algorithm=MPIR_Allreduce_intra_smp": {}},
                "is_commutative=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
            },
            "comm_hierarchy=any": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
        },
    }  # fmt: skip


def test_the_json_round_trips_to_the_selection_table(table, tmp_path):
    for fabric in GIVEN_FABRICS.fabric:
        path = tmp_path / f"{fabric}.json"
        write_json(path, mpich_json(table[table.fabric == fabric]))
        back = read_mpich_json(json.loads(path.read_text()))
        expected = table[table.fabric == fabric].drop(columns=["fabric"])
        expected["algorithm"] = expected.algorithm.map(
            lambda a: mpich.FUNCTION.format(mpich.ALGORITHMS[registry.parse_variant(a)[0]])
        )
        expected = expected.rename(columns={"algorithm": "mpich_algorithm"})
        pd.testing.assert_frame_equal(
            back.reset_index(drop=True), expected.reset_index(drop=True), check_dtype=False
        )


def test_the_open_mpi_rules_round_trip(table):
    """Per communicator size, from each range's first byte, the algorithm's number."""
    for fabric in GIVEN_FABRICS.fabric:
        rows = table[table.fabric == fabric]
        back = read_open_mpi_rules(selection.export("openmpi", rows, None)["rules"])
        expected = [
            (r.ranks, r.min_bytes, int(openmpi.ALGORITHMS[r.algorithm])) for r in rows.itertuples()
        ]
        assert list(back.itertuples(index=False, name=None)) == expected


def test_the_intel_mpi_script_sets_each_n_s_rules(table, tmp_path):
    rows = table[table.fabric == "slow-latency"]
    path = tmp_path / "impi.sh"
    path.write_text(selection.export("impi", rows, None)["sh"])
    for ranks, group in rows.groupby("ranks"):
        value = read_intel_mpi_script(str(path), ranks)
        expected = ";".join(
            f"{impi.ALGORITHMS[r.algorithm]}:{r.min_bytes}-"
            f"{impi.ANY_SIZE if pd.isna(r.max_bytes) else r.max_bytes}"
            for r in group.itertuples()
        )
        assert value == expected
        assert read_intel_mpi_script(str(path), ranks + 1) == value or ranks + 1 in set(rows.ranks)


def test_the_comparison_fills_a_row_per_fabric_and_n(costs, table):
    agreement = selection.library_agreement(
        costs, GIVEN_FABRICS.assign(kind="given"), table, "float64"
    )
    text = markdown.libraries_markdown(agreement, "float64")
    count = THEORY_GRID.elements.nunique()
    for fabric in GIVEN_FABRICS.fabric:
        section = text.split(f"## {fabric}\n")[1].split("\n## ")[0]
        rows = [
            line for line in section.splitlines() if line.startswith("| ") and line[2].isdigit()
        ]
        assert [int(r.split("|")[1]) for r in rows] == sorted(set(THEORY_GRID.ranks))
        for row in rows:
            agree = [cell.strip() for cell in row.split("|") if "/" in cell]
            assert len(agree) == 2 and all(a.endswith(f"/{count}") for a in agree)
    # slow-latency at N = 8: RD up to 24 kB (the model) against MPICH's 2 KiB: a threshold
    assert "| 8 | RD ≤ 23.4 KiB < rabenseifner | RD ≤ 2 KiB < rabenseifner |" in text
    causes = text.split("## Why they disagree")[1]
    assert "| threshold |" in causes and "| arithmetic |" in causes


@pytest.mark.parametrize("rule", ["openmpi-4.1", "openmpi-4.0", "mpich-classic"])
@pytest.mark.parametrize("ranks", [2, 3, 4, 8])
def test_a_size_the_library_s_own_rule_runs_alike_is_left_to_it(rule, ranks):
    """At every message size (2^k doubles, and one double either side), the exported selection
    names the model's algorithm unless the library's rule runs it (or, at N = 2, ring and
    Rabenseifner, which move the same bytes in the same rounds), and then DEFAULT."""
    model = pd.DataFrame(
        {"fabric": "f", "ranks": ranks, "min_bytes": [0, 3001, 70001],
         "max_bytes": [3000, 70000, None],
         "algorithm": ["recursive_doubling", "ring", "rabenseifner"]}
    ).astype({"max_bytes": "Int64"})  # fmt: skip
    left = selection.leave_to_library(model, rule, 8)
    assert left.max_bytes.iloc[:-1].add(1).tolist() == left.min_bytes.iloc[1:].tolist()
    sizes = sorted({8 * max(1, (1 << k) + d) for k in range(27) for d in (-1, 0, 1)})
    for size in sizes:
        ours = tuning.named(model, ranks, size)
        ran = library_rules.library_choice(rule, ranks, size, 8)
        alike = ran == ours or (ranks == 2 and {ran, ours} == {"ring", "rabenseifner"})
        assert tuning.named(left, ranks, size) == (libraries.DEFAULT if alike else ours), size
    assert selection.leave_to_library(model, None, 8) is model  # no rule known: unchanged
    two = pd.concat([model, model.assign(fabric="g")])  # fabrics are never merged
    assert (selection.leave_to_library(two, rule, 8).fabric == "g").sum() == len(left)


def test_which_libraries_own_rule_is_known():
    assert library_rules.rule_of("openmpi", "Open MPI v5.0.11") == "openmpi-4.1"
    assert library_rules.rule_of("openmpi", "Open MPI v4.0.5") == "openmpi-4.0"
    assert library_rules.rule_of("openmpi", "Open MPI v5.1.0") is None  # not checked
    assert library_rules.rule_of("mpich", "MPICH 5.0.2") is None  # its device layer's own
    assert library_rules.rule_of("impi", "Intel(R) MPI Library 2021.18.1") is None
