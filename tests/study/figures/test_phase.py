"""The phase map: a band per N on every fabric, each split where the cheapest changes."""

from __future__ import annotations

import math

from collectives.study.figures import phase
from tests.support.grid import GRID_ALGORITHMS
from tests.support.printed import assert_printed


def test_every_band_is_labelled_and_split_where_the_cheapest_changes(fabric_tables, tmp_path):
    costs, _ = fabric_tables
    plot = phase.draw(costs, "float64", GRID_ALGORITHMS)
    panels = [axis for axis in plot.figure.axes if axis.get_visible()]
    assert [axis.get_title() for axis in panels] == list(dict.fromkeys(costs.fabric))
    ranks = sorted(costs.ranks.unique())
    for axis in panels:  # every N named, not only powers of two
        assert [text.get_text() for text in axis.get_yticklabels()] == [str(n) for n in ranks]
    data = assert_printed(plot, tmp_path, "phase")
    for (fabric, n), band in data.groupby(["fabric", "ranks"]):
        assert band.from_bytes.iloc[0] == 0 and math.isinf(band.to_bytes.iloc[-1])
        assert (band.to_bytes.to_numpy()[:-1] == band.from_bytes.to_numpy()[1:]).all()
        winners = costs[(costs.fabric == fabric) & (costs.ranks == n) & costs.is_winner]
        for size, winner in zip(winners.message_bytes, winners.algorithm, strict=True):
            inside = band[(band.from_bytes <= size) & (size < band.to_bytes)]
            assert list(inside.algorithm) == [winner]
