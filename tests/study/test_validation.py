"""The model against the clock: ratios to the libraries, predictions, crossovers, clusters."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from collectives import registry
from collectives.model import ladder, library_rules, theory
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.fit import Points
from collectives.model.replay import replay
from collectives.run.measure import measure
from collectives.run.record import Record, Timing
from collectives.study import fabrics, validation
from collectives.study.aggregate import wallclock_table
from collectives.study.config import DEFAULT_INTRA_FABRIC
from collectives.transport.dry import dry_trace

REPO = Path(__file__).resolve().parents[2]


def record(algorithm: str, elements: int, seconds: float, library: bool = False) -> dict:
    """A timed record of the bench document's format (counts for ours only)."""
    counts = dict.fromkeys(theory.COUNT_FIELDS)
    if not library:
        counts = registry.get(algorithm).predict(4, elements, 8).as_dict()
    timing = Timing(warmup=1, iterations=5, times_s=[seconds] * 5, time_min_s=seconds * 0.9,
                    time_median_s=seconds, algbw_GBps=1.0, busbw_GBps=1.5, blocks=[5],
                    launch_blocks=[1], launches=1, low_s=seconds * 0.95,
                    high_s=seconds * 1.05)  # fmt: skip
    return Record(
        algorithm=algorithm, parameters={}, ranks=4, elements=elements, dtype="float64",
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
    """The recorded trace of every timed run of DOCUMENT."""
    keys = [(r["algorithm"], r["ranks"], r["elements"], r["dtype"]) for r in DOCUMENT["records"]
            if not r["library"]]  # fmt: skip
    return {key: measure(*key[:3], dtype=key[3]).trace for key in keys}


def test_every_model_predicts_every_timed_run(traces):
    table = wallclock_table({"N4.json": DOCUMENT})
    fabric = Fabric("local-mpi", "measured", LinkClass(1e-5, 1e-9), gamma=1e-10)
    sizes = np.array([1.0, 1e3, 1e6])
    busy = Points(sizes, 3e-5 + 2e-9 * sizes)  # the exchange of 4 ranks: slower
    result = validation.model_against_clock(
        table, {"local-mpi": fabric}, {"mpi": "local-mpi"}, {("mpi", 4): busy}
    )
    ours = table[~table.library].reset_index(drop=True)
    closed = ours.rounds * 1e-5 + ours.bytes_critical * 1e-9
    assert list(result.alpha_beta_s) == pytest.approx(list(closed))
    shared = Fabric("busy", "measured", LinkClass(3e-5, 2e-9), gamma=1e-10)
    for index, row in result.iterrows():
        trace = traces[(row.algorithm, row.ranks, row.elements, row["dtype"])]
        assert row.gamma_s == row.structure_s == replay(trace, fabric)  # flat: no structure
        resources = replay(trace, shared, validation.OWN_CORE)
        assert row.resources_s == pytest.approx(resources, rel=1e-6)  # the exchange's link
        assert row.resources_s > row.structure_s
        assert row.predicted_s == row.protocol_s  # the top model
        assert row.rel_error == pytest.approx(row.predicted_s / ours.time_median_s[index] - 1)
    assert result.predicted_low_s.isna().all() and not result.noisy.any()  # no bounds given
    top = validation.error_summary(result, pd.DataFrame()).iloc[-1]
    assert pd.isna(top.within_interval)  # no interval: not "never inside"
    with pytest.raises(ValueError, match="no exchange benchmark for mpi at N=4"):
        validation.model_against_clock(table, {"local-mpi": fabric}, {"mpi": "local-mpi"}, {})


def test_the_exchange_s_interval_bounds_the_prediction_and_wide_points_are_noisy(traces):
    table = wallclock_table({"N4.json": DOCUMENT})
    fabric = Fabric("local-mpi", "measured", LinkClass(1e-5, 1e-9), gamma=1e-10)
    sizes = np.array([1.0, 1e3, 1e6])
    busy = Points(sizes, 3e-5 + 2e-9 * sizes)
    low, high = Points(sizes, 2e-5 + 1.5e-9 * sizes), Points(sizes, 5e-5 + 3e-9 * sizes)
    result = validation.model_against_clock(
        table, {"local-mpi": fabric}, {"mpi": "local-mpi"}, {("mpi", 4): busy},
        {("mpi", 4): (low, high)}, noise_bound=0.05,
    )  # fmt: skip
    assert (result.predicted_low_s < result.predicted_s).all()
    assert (result.predicted_s < result.predicted_high_s).all()
    assert result.noisy.all()  # every record's interval is ±5%: 10% wide, beyond 5%
    summary = validation.error_summary(result, pd.DataFrame())
    assert (summary.points == 0).all() and (summary.kept_out == 4).all()
    result["noisy"] = [True, False, False, False]
    top = validation.error_summary(result, pd.DataFrame()).iloc[-1]
    assert (top.model, top.points, top.kept_out) == (ladder.MODELS[-1], 3, 1)
    assert 0 <= top.within_interval <= 1


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


@pytest.mark.parametrize(
    ("spread", "band", "resolved"),
    [(0.01, (16, 32), True), (0.5, (0, 256), False), (2.0, (0, math.nan), False)],
)
def test_a_measured_crossover_is_resolved_only_where_the_intervals_place_it(spread, band, resolved):
    # recursive doubling 1 s everywhere, the ring from 1.5 s down to 0.5 s: they cross at
    # 16-32 B; intervals of +-spread blur where
    sizes = [8, 16, 32, 64, 128, 256]
    rows = []
    for algorithm, times in (("recursive_doubling", [1.0] * 6),
                             ("ring", [1.5, 1.2, 0.9, 0.7, 0.6, 0.5])):  # fmt: skip
        for size, t in zip(sizes, times, strict=True):
            rows.append({"transport": "mpi", "ranks": 2, "algorithm": algorithm,
                         "message_bytes": size, "measured_s": t, "predicted_s": t,
                         "low_s": t * (1 - spread / 3), "high_s": t * (1 + spread)})  # fmt: skip
    (row,) = validation.crossover_against_clock(pd.DataFrame(rows)).itertuples()
    assert (row.measured_low_bytes, row.measured_high_bytes) == pytest.approx(band, nan_ok=True)
    assert row.resolved == resolved and 16 < row.measured_bytes < 32


INTER = Fabric("ib", "given", LinkClass(2e-6, 1e-10))
SHM = Fabric("shm", "given", LinkClass(5e-7, 2e-10))  # a single-node osu_latency's fit
ABCI_16 = "config/fabrics/abci_anode_osu_allreduce_host_16ranks_ib_hdr_2nodes.txt"
FLAT_ALGORITHMS = ["ring", "recursive_doubling", "rabenseifner"]


@pytest.fixture(scope="module")
def clusters():
    entry = {"fabric": "ib", "ranks": 16, "ranks_per_node": 8, "allreduce": ABCI_16,
             "itemsize": 4, "intra_fabric": "shm"}  # as the schema fills it in  # fmt: skip
    return validation.clusters_against_clock({"abci": entry}, {"ib": INTER, "shm": SHM},
                                             FLAT_ALGORITHMS, REPO)  # fmt: skip


def test_without_a_library_the_cheapest_algorithm_is_predicted(clusters):
    assert len(clusters) == 24 and clusters.message_bytes.iloc[0] == 4
    first = clusters.iloc[0]  # 4 bytes = 1 float: recursive doubling's 4 rounds of 4 bytes
    assert first.algorithm == "recursive_doubling" and first.library == ""
    assert first.alpha_beta_s == pytest.approx(4 * 2e-6 + 16 * 1e-10)
    assert first.measured_s == pytest.approx(3.35e-6)
    for row in clusters.itertuples():  # alpha-beta: the cheapest closed form
        counts = [registry.get(a).predict(16, row.message_bytes // 4, 4) for a in FLAT_ALGORITHMS]
        cheapest = min(c.rounds * 2e-6 + c.bytes_critical * 1e-10 for c in counts)
        assert row.alpha_beta_s == pytest.approx(cheapest)
    assert (clusters.predicted_s == clusters.cheapest_s).all()
    assert (clusters.protocol_s == clusters.predicted_s).all()


def test_the_library_s_rule_picks_the_algorithm_and_a_node_log_is_a_rung_apart(tmp_path):
    # a single-node log made from known intra-node alpha and beta under Open MPI 4.0's rule
    alpha, beta, sizes = 5e-7, 2e-10, [4 << k for k in range(0, 22, 3)]
    lines = ["# OSU MPI Allreduce Latency Test v5.7", "# Size       Avg Latency(us)"]
    for size in sizes:
        algorithm = library_rules.library_choice("openmpi-4.0", 8, size, 4)
        counts = registry.get(algorithm).predict(8, size // 4, 4)
        lines.append(f"{size} {(counts.rounds * alpha + counts.bytes_critical * beta) * 1e6}")
    (tmp_path / "node.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "run.txt").write_text((REPO / ABCI_16).read_text())
    entry = {"fabric": "ib", "ranks": 16, "ranks_per_node": 8, "allreduce": "run.txt",
             "library": "openmpi-4.0", "node": {"allreduce": "node.txt", "ranks": 8},
             "itemsize": 4, "intra_fabric": "ib"}  # fmt: skip
    intra = validation.node_link(entry, 4, tmp_path)
    assert (intra.alpha, intra.beta) == pytest.approx((alpha, beta), rel=1e-6)
    table = validation.clusters_against_clock({"abci": entry}, {"ib": INTER}, FLAT_ALGORITHMS,
                                              tmp_path)  # fmt: skip
    expected = [library_rules.library_choice("openmpi-4.0", 16, b, 4) for b in table.message_bytes]
    assert list(table.algorithm) == expected and set(table.library) == {"openmpi-4.0"}
    # the headline never uses the cluster's own collective log: its intra link is the
    # configured one (here the network's), and the node log's variant is a column apart
    assert (table.intra == "ib").all() and (table.structure_s >= table.gamma_s).all()
    assert (table.node_log_s < table.predicted_s).any()  # cheaper links inside the nodes
    with_node_log = validation.cluster_fabric("abci", entry, INTER, intra)
    top = ladder.rungs(with_node_log)[ladder.MODELS[-1]]
    for row in table.itertuples():
        trace = dry_trace(registry.get(row.algorithm).at_defaults(16), 16,
                          row.message_bytes // 4, 4)  # fmt: skip
        assert row.node_log_s == pytest.approx(replay(trace, top, pipelined=True))


def test_a_latency_never_holds_a_shared_nic_and_a_measured_stream_s_gap_does():
    # 2 nodes x 8 ranks, one NIC each: recursive doubling's last round sends 8 messages per
    # node through it. Without a stream a message holds the NIC for its bytes·β alone, so
    # their latencies overlap; with one, for the gap g measured with messages in flight.
    stream = LinkClass(2e-6, 1e-10, occupancy=(2e-7, 1e-10))
    entry = {"fabric": "ib", "ranks": 16, "ranks_per_node": 8, "nic_per_node": 1,
             "allreduce": ABCI_16, "itemsize": 4, "intra_fabric": "ib"}  # fmt: skip
    for link, shared_round in ((INTER.link, 2e-6), (stream, 2e-6 + 7 * 2e-7)):
        given = {"ib": Fabric("ib", "measured", link)}
        table = validation.clusters_against_clock({"x": entry}, given,
                                                  ["recursive_doubling"], REPO)  # fmt: skip
        small = table.iloc[0]  # 4 bytes: 3 intra rounds on the same link, 1 shared round
        assert small.structure_s == pytest.approx(4 * 2e-6, rel=1e-3)
        assert small.resources_s == pytest.approx(3 * 2e-6 + shared_round, rel=1e-3)


def test_no_clusters_still_make_a_readable_table(tmp_path):
    """A wallclock section without clusters: the table has its header, so the next rule
    can read it back."""
    table = validation.clusters_against_clock({}, {"ib": INTER}, FLAT_ALGORITHMS, REPO)
    table.to_csv(tmp_path / "clusters.csv", index=False)
    back = pd.read_csv(tmp_path / "clusters.csv")
    assert back.empty and {"protocol_s", "cheapest_s", "rel_error"} <= set(back.columns)
    assert validation.error_summary(pd.DataFrame(), back).empty


def test_the_summary_has_a_row_per_transport_and_n_and_per_cluster(clusters):
    here = pd.DataFrame({"transport": ["queue"] * 3, "ranks": [2] * 3, "measured_s": 1.0,
                         "predicted_s": [1.0, 0.5, 4.0], "algorithm": "ring",
                         "message_bytes": [8, 80, 800]})  # fmt: skip
    here = with_models(here)
    summary = validation.error_summary(here, clusters)
    assert list(summary["where"]) == ["queue", "abci"] * len(ladder.MODELS)
    assert list(summary.model) == [m for m in ladder.MODELS for _ in range(2)]
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
    # predicted, ring stays ahead from 440 B on (2 > 1 at 80 B, 1 < 2 at 800 B); measured it
    # leads at 80 B only to lose at 800 B, so it never takes over: no crossover
    assert row.predicted_crossover_bytes == pytest.approx(80 + 720 * 1 / 2)
    assert pd.isna(row.measured_crossover_bytes)


SHIPPED = yaml.safe_load((REPO / "config/config.yaml").read_text())
PARTIAL = {  # what a cluster can leave out: its stream table, its library's rule, both
    "every input": lambda entry, link: (entry, link),
    "no stream table": lambda entry, link: (entry, replace(link, occupancy=None)),
    "no library": lambda entry, link: (
        {k: v for k, v in entry.items() if k not in ("library", "node")}, link),
}  # fmt: skip
PARTIAL["neither"] = lambda entry, link: PARTIAL["no library"](*PARTIAL["no stream table"](
    entry, link))  # fmt: skip


@pytest.mark.parametrize("cluster", list(SHIPPED["wallclock"]["clusters"]))
def test_partial_inputs_never_make_a_rung_worse_than_the_rung_below(cluster, tmp_path):
    # every third size of the cluster's own osu_allreduce, to keep the test short
    entry = {**SHIPPED["wallclock"]["clusters"][cluster], "itemsize": 4}
    entry.setdefault("intra_fabric", DEFAULT_INTRA_FABRIC)
    measured = fabrics.read_osu_latency(REPO / entry.pop("allreduce"), entry.pop("table", None))
    rows = [f"{int(b)} {s * 1e6}" for b, s in zip(measured.nbytes[::3], measured.seconds[::3],
                                                  strict=True)]  # fmt: skip
    log = tmp_path / "allreduce.txt"
    log.write_text("# OSU MPI Allreduce Latency Test\n# Size Avg Latency(us)\n" + "\n".join(rows))
    built = {name: fabrics.build(name, SHIPPED["fabrics"][name], REPO)
             for name in (entry["fabric"], entry["intra_fabric"])}  # fmt: skip
    for inputs, leave_out in PARTIAL.items():
        inter = built[entry["fabric"]]
        given, link = leave_out({**entry, "allreduce": str(log)}, inter.link)
        table = validation.clusters_against_clock(
            {cluster: given}, {**built, inter.name: replace(inter, link=link)},
            FLAT_ALGORITHMS, REPO,
        )  # fmt: skip
        errors = {m: (table[ladder.column(m)] / table.measured_s - 1).abs().to_numpy()
                  for m in ladder.MODELS}  # fmt: skip
        for below, above in itertools.pairwise(ladder.MODELS):
            low, _ = validation.median_difference_interval(errors[above], errors[below])
            assert low <= 1e-9, f"{cluster}, {inputs}: {above} worse than {below}, beyond chance"
