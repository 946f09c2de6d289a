"""Figures draw from the pipeline's tables: one panel per fabric, readable units."""

from __future__ import annotations

import pytest

from collectives import cost, plotting
from collectives.measure import measure

from .test_cost import ALGORITHMS, FABRICS, GRID


def test_units():
    assert plotting.format_bytes(1) == "1 B"
    assert plotting.format_bytes(4096) == "4 KiB"
    assert plotting.format_bytes(3 * 2**20 + 2**19) == "3.5 MiB"
    assert plotting.format_seconds(3e-6) == "3 us"
    assert plotting.format_seconds(0.25) == "250 ms"


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
    records = [measure(a, 4, 16) for a in ALGORITHMS]
    figure = plotting.hotspot_figure(records)
    assert [axis.get_title() for axis in figure.axes] == [plotting.label(a) for a in ALGORITHMS]
    plotting.save_figure(figure, tmp_path / "h.png")
