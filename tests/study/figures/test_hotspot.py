"""The hotspot figure: a grid of per-rank bars at column width."""

from __future__ import annotations

from collectives.run.measure import measure
from collectives.study.figures import hotspot
from collectives.study.figures.style import COLUMN_WIDTH, label
from tests.support.grid import GRID_ALGORITHMS
from tests.support.printed import assert_printed


def test_a_panel_per_algorithm_in_a_column_wide_grid(tmp_path):
    records = [measure(a, 4, 16).record for a in GRID_ALGORITHMS]
    plot = hotspot.draw(records)
    panels = [axis for axis in plot.figure.axes if axis.get_visible()]
    assert [axis.get_title() for axis in panels] == [label(a) for a in GRID_ALGORITHMS]
    assert plot.figure.get_figwidth() == COLUMN_WIDTH
    assert len({round(axis.get_position().y0, 3) for axis in panels}) == 3  # rows of two
    data = assert_printed(plot, tmp_path, "hotspot")
    for record in records:
        rows = data[data.algorithm == record.algorithm]
        assert list(rows.sent_bytes) == list(record.bytes_sent)
        assert list(rows.received_bytes) == list(record.bytes_recv)
