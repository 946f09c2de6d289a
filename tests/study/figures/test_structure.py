"""The structure figure: replayed times beside the flat model, ties on one line."""

from __future__ import annotations

from collectives.model import cost
from collectives.study.figures import structure
from collectives.study.figures.style import label
from tests.support.grid import GRID_ALGORITHMS, THEORY_GRID, synthetic_fabrics
from tests.support.printed import assert_printed


def test_replayed_and_flat_panels_merge_tied_algorithms(tmp_path):
    costs = cost.modeled_costs(THEORY_GRID, synthetic_fabrics(1), GRID_ALGORITHMS)
    replayed = costs.time_s.where(costs.algorithm != "naive", costs.time_s * 3)
    costs = costs.assign(time_s=replayed)  # the flat model ties nothing, the replay differs
    ring = costs[costs.algorithm == "ring"].set_index(["ranks", "elements"]).time_s
    tied = costs.algorithm == "binomial_tree"
    costs.loc[tied, "time_s"] = ring.reindex(
        costs[tied].set_index(["ranks", "elements"]).index
    ).to_numpy()
    plot = structure.draw(costs, {"fabric": "fabric-00", "ranks": 16}, "float64", GRID_ALGORITHMS)
    labels = [text.get_text() for text in plot.figure.legends[0].get_texts()]
    assert f"{label('ring')} = {label('binomial_tree')}" in labels
    assert label("binomial_tree") in labels  # alone on the flat model's panel
    data = assert_printed(plot, tmp_path, "structure")
    sizes = costs[costs.ranks == 16].message_bytes.nunique()
    assert len(data) == 2 * len(GRID_ALGORITHMS) * sizes
    assert data.groupby(["model", "message_bytes"]).cheapest.sum().eq(1).all()


def test_without_a_two_level_fabric_the_figure_says_so(tmp_path):
    costs = cost.modeled_costs(THEORY_GRID, synthetic_fabrics(1), GRID_ALGORITHMS)
    plot = structure.draw(costs, None, "float64", GRID_ALGORITHMS)
    assert plot.data.empty
    assert_printed(plot, tmp_path, "structure")
