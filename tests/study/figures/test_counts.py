"""The counts figure: closed forms, measured counts and the average rank, ties named."""

from __future__ import annotations

from collectives.study.figures import counts
from collectives.study.figures.style import colour, dashes, label
from tests.support.grid import GRID_ALGORITHMS, THEORY_GRID
from tests.support.printed import assert_printed

COUNTS = ["rounds", "messages", "bytes_total", "bytes_critical", "hotspot_bytes"]


def test_counts_name_their_ties_and_set_the_average_rank_apart(tmp_path):
    theory = THEORY_GRID[COUNTS].rename(columns=lambda c: f"theory_{c}")
    plot = counts.draw(THEORY_GRID.join(theory), 1024, "float64", GRID_ALGORITHMS)
    panels = [axis for axis in plot.figure.axes if axis.get_visible()]
    assert len(panels) == len(counts.QUANTITIES)
    data = assert_printed(plot, tmp_path, "counts")
    rounds = data[(data.quantity == "rounds") & (data.kind == "closed form")]
    wide = rounds.pivot(index="ranks", columns="algorithm", values="value")
    assert (wide.naive == wide.ring).all()  # they tie: one line, both named in the title
    assert f"{label('naive')} = {label('ring')}" in " ".join(panels[0].get_title().split("\n"))
    styles = {(tuple(colour(a)), dashes(a)) for a in GRID_ALGORITHMS}
    for line in panels[1].get_lines():  # the average rank looks like no algorithm
        if line.get_linewidth() == counts.AVERAGE["linewidth"]:
            assert (line.get_color(), line.get_linestyle()) not in styles
    average = data[data.kind == "average rank"]
    assert len(average) == len(GRID_ALGORITHMS) * THEORY_GRID.ranks.nunique()
