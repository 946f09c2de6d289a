"""Figures draw from the pipeline's tables: one panel per fabric, readable units."""

from __future__ import annotations

import pytest

from collectives.model import cost
from collectives.run.measure import measure
from collectives.study import plotting
from collectives.study.workloads import Workload, workloads_table
from tests.model.test_cost import ALGORITHMS, FABRICS, GRID


@pytest.fixture(scope="module")
def tables():
    costs = cost.modeled_costs(GRID, FABRICS, ALGORITHMS)
    return costs, cost.crossover_table(GRID, FABRICS, costs)


def test_crossover_and_phase_figures_have_a_panel_per_fabric(tables, tmp_path):
    costs, crossover = tables
    for figure in (
        plotting.crossover_figure(costs, crossover, 8, "float64", ALGORITHMS),
        plotting.phase_figure(costs, crossover, "float64", ALGORITHMS),
    ):
        titles = [
            axis.get_title() for axis in figure.axes if axis.get_visible() and axis.get_title()
        ]
        assert titles == list(FABRICS.fabric)
        plotting.save_figure(figure, tmp_path / "f.png", tmp_path / "f.pdf")
        assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"


def test_counts_and_hotspot_figures(tmp_path):
    theory_cols = GRID.rename(columns={c: f"theory_{c}" for c in ["rounds", "messages",
        "bytes_total", "bytes_critical", "hotspot_bytes"]})  # fmt: skip
    table = GRID.join(theory_cols.filter(like="theory_"))
    figure = plotting.counts_figure(table, 1024, "float64", ALGORITHMS)
    assert len(figure.axes) == 4
    records = [measure(a, 4, 16).record for a in ALGORITHMS]
    figure = plotting.hotspot_figure(records)
    assert [axis.get_title() for axis in figure.axes] == [plotting.label(a) for a in ALGORITHMS]
    plotting.save_figure(figure, tmp_path / "h.png")


def test_workloads_figure_has_a_panel_per_fabric_and_a_label_per_group(tables, tmp_path):
    costs, crossover = tables
    shape = {"hidden": 4096, "sequence": 1, "micro_batch": 1, "layers": 2, "parameters": 1e9,
             "dtype_bytes": 2, "tp": 8, "dp": 16, "tp_fabric": "fast-latency",
             "dp_fabric": "slow-latency"}  # fmt: skip
    workloads = [Workload.from_config("a", shape), Workload.from_config("b", {**shape, "dp": 4})]
    table = workloads_table(workloads, costs, "float64", ALGORITHMS)
    figure = plotting.workloads_figure(costs, crossover, table, "float64", ALGORITHMS)
    panels = [axis for axis in figure.axes if axis.get_title()]
    assert [axis.get_title() for axis in panels] == ["fast-latency", "slow-latency"]
    labels = [text.get_text().split(":")[0] for text in panels[1].texts if "(N=" in text.get_text()]
    assert labels == ["a DP (N=16)", "b DP (N=4)"]  # one label per group, buckets merged
    plotting.save_figure(figure, tmp_path / "w.png")
    empty = workloads_table([], costs, "float64", ALGORITHMS)
    plotting.save_figure(
        plotting.workloads_figure(costs, crossover, empty, "float64", ALGORITHMS),
        tmp_path / "e.png",
    )
