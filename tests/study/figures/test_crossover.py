"""The crossover figures: time relative to the fastest, the fastest shaded, the ring /
recursive-doubling crossover marked; ties drawn once and named together."""

from __future__ import annotations

import numpy as np
import pandas as pd

from collectives.study.figures import crossover
from collectives.study.figures.style import label
from tests.support.grid import GRID_ALGORITHMS, tables_on
from tests.support.printed import assert_printed

SEED = ["naive", "ring", "recursive_doubling"]


def visible_panels(plot) -> list:
    return [axis for axis in plot.figure.axes if axis.get_visible()]


def test_the_headline_shows_the_chosen_fabrics_relative_to_the_fastest(fabric_tables, tmp_path):
    costs, table = fabric_tables
    fabrics = list(dict.fromkeys(costs.fabric))[-3:]
    plot = crossover.draw(costs, table, 8, "float64", SEED, fabrics)
    panels = visible_panels(plot)
    assert [axis.get_title().split("\n")[0] for axis in panels] == fabrics
    data = assert_printed(plot, tmp_path, "crossover")
    assert set(data.fabric) == set(fabrics) and set(data.algorithm) == set(SEED)
    point = data.groupby(["fabric", "message_bytes"])
    assert np.allclose(point.relative.min(), 1.0)  # the fastest is the reference
    for _, here in point:  # shaded by the fastest there
        assert (here.winner == here.algorithm[here.relative.idxmin()]).all()
    grid = data[data.on_grid].merge(costs[(costs.ranks == 8)], on=["fabric", "message_bytes",
                                                                   "algorithm"])  # fmt: skip
    assert len(grid) == len(data[data.on_grid]) and np.allclose(grid.time_s_x, grid.time_s_y)
    for axis, fabric in zip(panels, fabrics, strict=True):  # the crossover's guide line
        at = table[(table.fabric == fabric) & (table.ranks == 8)].replayed_bytes.iloc[0]
        guides = [line.get_xdata()[0] for line in axis.get_lines() if line.get_gid() == "guide"]
        assert np.allclose(guides, [at])
        ring, rd = (data[(data.fabric == fabric) & (data.algorithm == a)] for a in SEED[1:])
        after = ring.message_bytes.to_numpy() > at * 1.01  # ring faster past the line only
        assert (ring.time_s.to_numpy()[after] < rd.time_s.to_numpy()[after]).all()
        assert (ring.time_s.to_numpy()[~after] >= rd.time_s.to_numpy()[~after] * 0.99).all()


def test_every_fabric_and_algorithm_in_the_supplementary_figure(fabric_tables, tmp_path):
    costs, table = fabric_tables
    plot = crossover.draw(costs, table, 8, "float64", GRID_ALGORITHMS)
    titles = [axis.get_title().split("\n")[0] for axis in visible_panels(plot)]
    assert titles == list(dict.fromkeys(costs.fabric))
    data = assert_printed(plot, tmp_path, "crossover")
    assert set(data.algorithm) == set(GRID_ALGORITHMS)


def test_algorithms_that_tie_share_one_line_and_one_legend_entry(tmp_path):
    costs, table = tables_on(4)
    twin = costs[costs.algorithm == "ring"].assign(algorithm="hierarchical-G8")
    costs = pd.concat([costs, twin], ignore_index=True)
    plot = crossover.draw(costs, table, 8, "float64", [*SEED, "hierarchical-G8"])
    tie = f"{label('ring')} = {label('hierarchical-G8')}"
    entries = [text.get_text() for text in plot.figure.legends[0].get_texts()]
    assert tie in entries
    assert label("ring") not in entries and label("hierarchical-G8") not in entries
    for axis in visible_panels(plot):
        assert [line.get_label() for line in axis.get_lines()].count(tie) == 1
    assert_printed(plot, tmp_path, "crossover")
