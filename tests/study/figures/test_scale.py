"""The scale figure: cells by N and size on both sides, latency terms below, printable."""

from __future__ import annotations

from collectives.study import scale
from collectives.study.figures import scale as figure
from tests.study.test_scale import CLUSTER, SIZES, SYSTEM
from tests.support.printed import assert_printed


def test_both_sides_are_drawn_and_printable(tmp_path):
    table = scale.scale_table(CLUSTER, ("s", SYSTEM), ["ring", "recursive_doubling"],
                              [8, 64, 512, 4096], SIZES)  # fmt: skip
    plot = figure.draw(table)
    cluster, gpu = plot.figure.axes[:2]
    assert len(cluster.patches) == 8 and len(gpu.patches) == 8  # a cell per (N, size)
    hatched = sum(bool(p.get_hatch()) for p in cluster.patches)
    assert hatched == sum(table[table.side == "cluster"].pick.str.split(": ").str[1]
                          != table[table.side == "cluster"].cheapest)  # fmt: skip
    labels = [t.get_text() for t in plot.figure.legends[0].get_texts()]
    assert "ring: latency term" in labels and "the pick is not the cheapest" in labels
    assert len(assert_printed(plot, tmp_path, "scale")) == len(table)


def test_without_a_gpu_system_that_side_says_so(tmp_path):
    table = scale.scale_table(CLUSTER, None, ["ring"], [8, 64], SIZES)
    plot = figure.draw(table)
    assert "no GPU system" in plot.figure.axes[1].get_title()
    assert_printed(plot, tmp_path, "scale")
