"""The pages' claims: markers read from Markdown, values recomputed from tables, compared."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pandas as pd
import pytest

from collectives.study import claims

ALPHA, BETA = 2.6e-6, 1.05e-10  # the shipped infiniband fabric


def textbook_crossover(ranks: int, alpha: float, beta: float) -> float:
    """Where ring's 2(N-1) rounds and 2(N-1)/N n bytes meet recursive doubling's log2 N
    rounds of n bytes each."""
    steps = math.log2(ranks)
    return (2 * (ranks - 1) - steps) * alpha / ((steps - 2 * (ranks - 1) / ranks) * beta)


def crossover_table() -> pd.DataFrame:
    return pd.DataFrame(
        [{"fabric": "infiniband", "dtype": "float64", "ranks": 8, "alpha_s": ALPHA,
          "beta_s_per_byte": BETA, "analytic_bytes": textbook_crossover(8, ALPHA, BETA)}]
    )  # fmt: skip


def test_markers_give_the_number_or_range_before_them_and_its_unit():
    page = ("ring wins above 213 KiB<!--claim crossover_infiniband--> here\n\n"
            "it takes 2.6–2.9×<!--claim megatron_rd_over_ring--> and 131,072<!--claim "
            "scale_nccl_tree_from--> GPUs")  # fmt: skip
    page = page.replace("<!--claim \nscale", "<!--claim scale")
    found = claims.find_markers({"p.md": page})
    assert [(m.name, m.line, m.stated, m.unit) for m in found] == [
        ("crossover_infiniband", 1, "213", " KiB"),
        ("megatron_rd_over_ring", 3, "2.6–2.9", "×"),
        ("scale_nccl_tree_from", 3, "131,072", ""),
    ]
    assert claims.stated_numbers("131,072") == ["131072"]
    assert claims.stated_numbers("2.6–2.9") == ["2.6", "2.9"]


@pytest.mark.parametrize(
    "line, message",
    [("213 KiB <!--claim no_such_claim-->", "p.md:2: no claim named 'no_such_claim'"),
     ("about <!--claim crossover_infiniband-->", "p.md:2: a claim marker with no number")],
)  # fmt: skip
def test_a_bad_marker_is_refused_with_its_page_and_line(line, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        claims.find_markers({"p.md": "first line\n" + line})


def test_a_unit_of_another_quantity_is_refused():
    claim = claims.CLAIMS["crossover_infiniband"]
    assert claims.unit_scale(claim, " MiB", "p.md:1") == 2**20
    with pytest.raises(ValueError, match=r"p\.md:1: 'ms' is not a unit of bytes"):
        claims.unit_scale(claim, " ms", "p.md:1")


@pytest.mark.parametrize(
    "stated, values, scale, expected",
    [(["213"], (217_904.76,), 1024, True), (["212"], (217_904.76,), 1024, False),
     (["2.6", "2.9"], (2.556, 2.877), 1, True), (["2.6", "2.9"], (2.54, 2.877), 1, False),
     (["25"], (0.2538,), 0.01, True), (["2.6", "2.9"], (2.6,), 1, False)],
)  # fmt: skip
def test_a_published_value_agrees_when_it_rounds_to_the_stated_one(stated, values, scale, expected):
    assert claims.agrees(stated, values, scale) is expected


def test_the_check_recomputes_each_claim_from_its_table():
    page = ("n = 8.8·α/β<!--claim ring_rd_coefficient-->, 213 KiB<!--claim "
            "crossover_infiniband-->\nand 214 KiB<!--claim crossover_infiniband-->\n"
            "43 KiB<!--claim crossover_xeon-->")  # fmt: skip
    page = page.replace("<!--claim \ncrossover", "<!--claim crossover")
    table = claims.check(claims.find_markers({"README.md": page}),
                         {"tables/crossover.csv": crossover_table()})  # fmt: skip
    assert list(table.status) == ["agrees", "agrees", "differs", "not in this run"]
    assert list(table.this_run[:3]) == ["8.8", "212.8", "212.8"]
    assert claims.differences(table) == [
        "README.md:2: crossover_infiniband states 214 KiB, this run has 212.8"
    ]


def test_a_claim_over_rows_this_run_lacks_is_not_in_this_run():
    summary = pd.DataFrame(
        [{"where": "abci-16", "ranks": 16, "model": "+protocol", "median_abs_rel_error": 0.21}]
    )
    markers = claims.find_markers({"p.md": "16–21%<!--claim cluster_abci-->"})
    table = claims.check(markers, {"tables/validation_summary.csv": summary})
    assert list(table.status) == ["not in this run"]  # abci-128 is half of the range


def test_a_machine_claim_stands_beside_this_run_s_value_and_interval():
    clock = pd.DataFrame(
        [{"transport": t, "algorithm": a, "ranks": n, "message_bytes": claims.LARGE,
          "time_median_s": s, "low_s": s * 0.9, "high_s": s * 1.2}
         for t, a, n, s in [("queue", "ring", 2, 0.7), ("mpi", "MPI_Allreduce", 2, 1.0),
                            ("queue", "ring", 4, 0.8), ("mpi", "MPI_Allreduce", 4, 1.0)]]
    )  # fmt: skip
    markers = claims.find_markers({"p.md": "0.70–0.90×<!--claim ring_over_mpi_queue-->"})
    (row,) = claims.check(markers, {"tables/wallclock.csv": clock}).itertuples()
    assert (row.kind, row.status, row.this_run) == ("machine", "this machine's", "0.7–0.8")
    assert row.agrees is False and (row.low, row.high) == ("0.63", "0.96")
    assert claims.differences(claims.check(markers, {"tables/wallclock.csv": clock})) == []


def test_a_range_leaves_out_medians_over_no_points():
    summary = pd.DataFrame(
        [{"where": w, "ranks": n, "model": "+protocol", "median_abs_rel_error": e}
         for w, n, e in [("mpi", 4, float("nan")), ("mpi", 8, 0.19), ("queue", 4, 0.18),
                         ("queue", 8, 0.33)]]
    )  # fmt: skip
    markers = claims.find_markers({"p.md": "18–33%<!--claim clock_top_n4_8-->"})
    (row,) = claims.check(markers, {"tables/validation_summary.csv": summary}).itertuples()
    assert (row.this_run, row.status) == ("18–33", "this machine's")


def gpu_summary(nccl_error: float) -> pd.DataFrame:
    """One system's three rungs, as validation_gpu_summary.csv holds them."""
    return pd.DataFrame(
        [{"system": "one-node", "model": model, "points": 24, "median_abs_rel_error": error,
          "within_2x": within, "median_predicted_over_measured": ratio,
          "plateau_measured_busbw_GBps": 158.4, "plateau_predicted_busbw_GBps": busbw}
         for model, error, within, ratio, busbw in [
             ("link_alpha_beta", 0.97, 0.125, 0.031, 4.0),
             ("nccl_model", nccl_error, 0.833, 0.68, 187.6),
             ("nccl_replay", 0.32, 0.833, 0.68, 162.5)]]
    )  # fmt: skip


GPU_PAGE = """The systems:

<!--claim-table gpu_validation-->
| system | sizes | link | NCCL | replay | busbw | NCCL | replay |
|---|---|---|---|---|---|---|---|
| One node (8 GPUs) | 24 | 0.03, 97%, 12% | 0.68, 32%, 83% | 0.68, 32%, 83% | 158 | 188 | 162 |
"""


def test_a_table_claim_compares_every_cell_but_its_words(monkeypatch):
    claim = claims.TABLE_CLAIMS["gpu_validation"]
    monkeypatch.setitem(claims.TABLE_CLAIMS, "gpu_validation", replace(claim, rows=("one-node",)))
    markers = claims.find_markers({"p.md": GPU_PAGE})
    assert [(m.name, m.line, m.rows[0][:2]) for m in markers] == [
        ("gpu_validation", 3, ("One node (8 GPUs)", "24"))
    ]
    (row,) = claims.check(markers, {"tables/validation_gpu_summary.csv": gpu_summary(0.32)})[
        ["status", "stated", "this_run"]
    ].itertuples(index=False)
    assert tuple(row) == ("agrees", "1 rows", "1 rows")
    (row,) = claims.check(markers, {"tables/validation_gpu_summary.csv": gpu_summary(0.34)})[
        ["status", "this_run"]
    ].itertuples(index=False)
    assert tuple(row) == (
        "differs",
        "row 1 (One node (8 GPUs)), column 4: '0.68, 34%, 83%' for '0.68, 32%, 83%'",
    )
    assert claims.check(markers, {}).status.tolist() == ["not in this run"]


def test_a_table_claim_over_systems_this_run_lacks_is_not_in_this_run():
    markers = claims.find_markers({"p.md": GPU_PAGE})
    tables = {"tables/validation_gpu_summary.csv": gpu_summary(0.32)}  # not the page's twelve
    assert claims.check(markers, tables).status.tolist() == ["not in this run"]


def test_a_bad_table_marker_is_refused_with_its_page_and_line():
    with pytest.raises(ValueError, match=re.escape("p.md:3: a table claim marker with no")):
        claims.find_markers({"p.md": GPU_PAGE.replace("| system", "\n| system")})
    with pytest.raises(ValueError, match=re.escape("p.md:3: no table claim named 'gpu'")):
        claims.find_markers({"p.md": GPU_PAGE.replace("gpu_validation", "gpu")})
