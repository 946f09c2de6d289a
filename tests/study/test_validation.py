"""The model against the clock: ratios to the libraries, predictions, crossovers, clusters."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from collectives import registry
from collectives.model import ladder, theory
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import Cores, replay
from collectives.run.measure import measure
from collectives.run.record import Record, Timing
from collectives.study import validation
from collectives.study.aggregate import wallclock_table

REPO = Path(__file__).resolve().parents[2]


def record(algorithm: str, elements: int, seconds: float, library: bool = False) -> dict:
    """A timed record of the bench document's format (counts for ours only)."""
    counts = dict.fromkeys(theory.COUNT_FIELDS)
    if not library:
        counts = registry.get(algorithm).predict(4, elements, 8).as_dict()
    timing = Timing(warmup=1, iterations=5, times_s=[seconds] * 5, time_min_s=seconds * 0.9,
                    time_median_s=seconds, algbw_GBps=1.0, busbw_GBps=1.5)  # fmt: skip
    return Record(
        algorithm=algorithm, ranks_per_node=None, ranks=4, elements=elements, dtype="float64",
        itemsize=8, seed=0, data="int", transport="mpi", library=library, **counts,
        bytes_sent=None, bytes_recv=None, elements_reduced=None, trace=None, theory=None,
        link_classes=None, matches_theory=not library or None, verified=True,
        max_abs_error=0.0, ranks_agree=True, wrong_ranks=[], wall_seconds=None,
        collective_seconds=None, timing=timing, versions={"cores": "1"},
    ).to_dict()  # fmt: skip


DOCUMENT = {
    "records": [
        record("ring", 1, 4e-4), record("recursive_doubling", 1, 1e-4),
        record("MPI_Allreduce", 1, 2e-5, library=True),
        record("ring", 1 << 20, 8e-3), record("recursive_doubling", 1 << 20, 1.2e-2),
        record("MPI_Allreduce", 1 << 20, 8e-3, library=True),
    ]
}  # fmt: skip


def with_models(frame: pd.DataFrame) -> pd.DataFrame:
    """A validation table whose every model predicts `predicted_s`."""
    frame = frame.assign(**{ladder.column(m): frame.predicted_s for m in ladder.MODELS})
    return frame.assign(rel_error=frame.predicted_s / frame.measured_s - 1)


def test_ratios_divide_by_the_library_timed_on_the_same_ranks():
    table = wallclock_table({"N4.json": DOCUMENT})
    ours = table[~table.library]
    assert list(ours.ratio_to_mpi) == pytest.approx([20.0, 5.0, 1.0, 1.5])
    assert table[table.library].ratio_to_mpi.isna().all()
    assert ours.ratio_to_gloo.isna().all()  # no gloo in this run


@pytest.fixture(scope="module")
def traces():
    """The grid's trace of every timed run of DOCUMENT."""
    keys = [(r["algorithm"], r["ranks"], r["elements"], r["dtype"]) for r in DOCUMENT["records"]
            if not r["library"]]  # fmt: skip
    return {key: measure(*key[:3], dtype=key[3]).trace for key in keys}


def test_every_model_predicts_every_timed_run(traces):
    table = wallclock_table({"N4.json": DOCUMENT})
    fabric = Fabric("local-mpi", "measured", LinkClass(1e-5, 1e-9), gamma=1e-10)
    result = validation.model_against_clock(table, {"local-mpi": fabric}, {"mpi": "local-mpi"},
                                            traces)  # fmt: skip
    ours = table[~table.library].reset_index(drop=True)
    closed = ours.rounds * 1e-5 + ours.bytes_critical * 1e-9
    assert list(result.alpha_beta_s) == pytest.approx(list(closed))
    for index, row in result.iterrows():
        trace = traces[(row.algorithm, row.ranks, row.elements, row["dtype"])]
        assert row.gamma_s == row.structure_s == replay(trace, fabric)  # flat: no structure
        assert row.resources_s == replay(trace, fabric, Cores(1))  # the record's cores
        assert row.resources_s > row.structure_s  # 4 ranks queue for one core
        assert row.predicted_s == row.resources_s
        assert row.rel_error == pytest.approx(row.predicted_s / ours.time_median_s[index] - 1)
    missing = dict(list(traces.items())[1:])
    with pytest.raises(ValueError, match="no trace for"):
        validation.model_against_clock(table, {"local-mpi": fabric}, {"mpi": "local-mpi"}, missing)


def test_crossovers_are_found_the_same_way_in_prediction_and_measurement():
    rows = []
    for algorithm, measured, predicted in (
        ("recursive_doubling", [1, 2, 10], [1, 2, 4]),
        ("ring", [3, 3, 3], [3, 3, 3]),
    ):
        for size, m, p in zip([8, 80, 800], measured, predicted, strict=True):
            rows.append({"transport": "queue", "ranks": 4, "algorithm": algorithm,
                         "message_bytes": size, "measured_s": m, "predicted_s": p})  # fmt: skip
    table = validation.crossover_against_clock(pd.DataFrame(rows))
    (row,) = table.itertuples()
    assert row.measured_bytes == pytest.approx(80 + 720 * 1 / 8)  # 3-2 vs 3-10: 1/8 of the way
    assert row.predicted_bytes == pytest.approx(80 + 720 * 1 / 2)


@pytest.fixture(scope="module")
def clusters():
    fabrics = pd.DataFrame({"fabric": ["ib"], "alpha_s": [2e-6], "beta_s_per_byte": [1e-10]})
    entry = {
        "fabric": "ib",
        "ranks": 16,
        "ranks_per_node": 8,
        "allreduce": "config/fabrics/abci_anode_osu_allreduce_host_16ranks_ib_hdr_2nodes.txt",
    }
    algorithms = ["ring", "recursive_doubling", "rabenseifner"]  # fmt: skip
    return validation.clusters_against_clock({"abci": entry}, fabrics, algorithms, REPO)


def test_clusters_are_predicted_by_every_algorithm_from_the_fit(clusters):
    assert len(clusters) == 24 and clusters.message_bytes.iloc[0] == 4
    first = clusters.iloc[0]  # 4 bytes = 1 float: recursive doubling's 4 rounds of 4 bytes
    assert first.recursive_doubling_s == pytest.approx(4 * 2e-6 + 16 * 1e-10)
    assert first.measured_s == pytest.approx(3.35e-6)
    best = clusters[["ring_s", "recursive_doubling_s", "rabenseifner_s"]].min(axis=1)
    assert list(clusters.predicted_s) == pytest.approx(list(best))
    assert (clusters.shared_s >= clusters.predicted_s).all()  # 8 ranks share a link
    inside = (clusters.predicted_s <= clusters.measured_s) & (
        clusters.measured_s <= clusters.shared_s
    )
    assert list(clusters.between) == list(inside)


def test_no_clusters_still_make_a_readable_table(tmp_path):
    """A wallclock section without clusters: the table has its header, so the next rule
    can read it back."""
    fabrics = pd.DataFrame({"fabric": ["ib"], "alpha_s": [2e-6], "beta_s_per_byte": [1e-10]})
    table = validation.clusters_against_clock({}, fabrics, ["ring", "rabenseifner"], REPO)
    table.to_csv(tmp_path / "clusters.csv", index=False)
    back = pd.read_csv(tmp_path / "clusters.csv")
    assert back.empty and {"ring_s", "rabenseifner_s", "rel_error"} <= set(back.columns)
    assert validation.error_summary(pd.DataFrame(), back).empty


def test_the_summary_has_a_row_per_transport_and_n_and_per_cluster(clusters):
    here = pd.DataFrame({"transport": ["queue"] * 3, "ranks": [2] * 3, "measured_s": 1.0,
                         "predicted_s": [1.0, 0.5, 4.0]})  # fmt: skip
    here = with_models(here)
    summary = validation.error_summary(here, clusters)
    assert list(summary["where"]) == ["queue"] * len(ladder.MODELS) + ["abci"]
    assert list(summary.model) == [*ladder.MODELS, "alpha-beta"]
    row = summary.iloc[0]
    assert (row.points, row.median_abs_rel_error, row.max_abs_rel_error) == (3, 0.5, 3.0)
    assert row.within_2x == pytest.approx(2 / 3) and row.within_25pct == pytest.approx(1 / 3)
    assert row.p90_abs_rel_error == pytest.approx(2.5)


def test_the_summary_judges_the_model_s_choices():
    """At 8 B the model picks the measured winner; at 80 B a loser 5% slower; at 800 B one
    50% slower."""
    rows = [
        ("ring", 8, 2.0, 1.0), ("recursive_doubling", 8, 1.0, 0.5),
        ("ring", 80, 2.0, 1.0), ("recursive_doubling", 80, 1.0, 1.05),
        ("ring", 800, 1.0, 3.0), ("recursive_doubling", 800, 2.0, 2.0),
    ]  # fmt: skip
    here = pd.DataFrame(rows, columns=["algorithm", "message_bytes", "predicted_s", "measured_s"])
    here = with_models(here.assign(transport="mpi", ranks=2))
    row = next(validation.error_summary(here, pd.DataFrame()).itertuples())
    assert row.same_winner == pytest.approx(1 / 3)
    assert row.choice_within_10pct == pytest.approx(2 / 3)
