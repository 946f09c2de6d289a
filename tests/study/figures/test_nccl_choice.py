"""The NCCL choice map: NCCL's pick per (size, nodes) beside our cheapest, printable."""

from __future__ import annotations

import pandas as pd

from collectives.study.figures import nccl_choice
from collectives.study.gpu import CHOICE_MAP_COLUMNS
from tests.support.printed import assert_printed

SIZES = [8 * 4**k for k in range(14)]


def choice_rows(nccl_known: bool = True) -> pd.DataFrame:
    """A map over 1-16 nodes: NCCL's LL, LL128 then Simple; ours one-shot then ring."""
    rows = []
    for nodes in (1, 2, 4, 8, 16):
        for size in SIZES:
            protocol = "LL" if size < 2**16 else "LL128" if size < 2**24 else "Simple"
            pick = f"{'ring' if nodes == 1 else 'tree'}/{protocol}" if nccl_known else ""
            ours = "one_shot" if size < 2**12 * nodes else "ring"
            rows.append(["sys", nodes, 8 * nodes, size, pick, 1e-5 if nccl_known else None,
                         ours, 2e-6])  # fmt: skip
    return pd.DataFrame(rows, columns=CHOICE_MAP_COLUMNS)


def test_both_maps_are_drawn_with_our_changes_marked_on_nccl_s(tmp_path):
    choice = choice_rows()
    plot = nccl_choice.draw(choice)
    theirs, ours = plot.figure.axes[:2]
    assert len(theirs.patches) == len(ours.patches) == len(choice)  # a cell per size and N
    assert len(theirs.get_lines()) == 5  # one change a node count: one-shot to ring
    labels = [t.get_text() for t in plot.figure.legends[0].get_texts()]
    assert {"NCCL ring/LL", "NCCL tree/Simple"} <= set(labels) and "one-shot" in labels
    data = assert_printed(plot, tmp_path, "nccl_choice")
    assert len(data) == len(choice)


def test_a_release_the_model_lacks_says_so(tmp_path):
    plot = nccl_choice.draw(choice_rows(nccl_known=False))
    assert "not available" in plot.figure.axes[0].get_title()
    assert not plot.figure.axes[0].patches
    assert_printed(plot, tmp_path, "nccl_choice")
