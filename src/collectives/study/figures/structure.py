"""A two-level fabric: replayed time against the flat model's prediction."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .style import (
    bytes_axis,
    colour,
    edges,
    label,
    marker,
    seconds_axis,
)


def draw(costs: pd.DataFrame, structure: dict | None, dtype: str, algorithms: Sequence[str]):
    """On one two-level fabric at one N: every algorithm's replayed time (solid) against
    the flat model's prediction (dashed), and the winner under each, size by size."""
    fig = plt.figure(figsize=(9, 6.5))
    if not structure:
        fig.text(0.5, 0.5, "no two-level fabric chosen (figures.structure)", ha="center")
        return fig
    fabric, ranks = structure["fabric"], structure["ranks"]
    data = costs[(costs.fabric == fabric) & (costs.ranks == ranks) & (costs.dtype == dtype)]
    strip, axis = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1, 6]})
    present = [a for a in algorithms if a in set(data.algorithm)]
    for algorithm in present:
        rows = data[data.algorithm == algorithm].sort_values("message_bytes")
        shade = colour(algorithm)
        axis.plot(rows.message_bytes, rows.time_s, color=shade, marker=marker(algorithm),
                  markersize=3.5, label=label(algorithm))  # fmt: skip
        axis.plot(rows.message_bytes, rows.closed_form_s, color=shade, linestyle="--",
                  linewidth=1, alpha=0.8)  # fmt: skip
    sizes = np.sort(data.message_bytes.unique())
    cell_edges = edges(sizes)
    for row, column in enumerate(("closed_form_s", "time_s")):
        best = data.loc[data.groupby("message_bytes")[column].idxmin()].sort_values("message_bytes")
        for (low, high), algorithm in zip(pairwise(cell_edges), best.algorithm, strict=True):
            strip.axvspan(low, high, ymin=row / 2, ymax=(row + 1) / 2, color=colour(algorithm))
    strip.set_yticks([0.25, 0.75], ["flat model", "replayed"])
    strip.set_ylim(0, 1)
    strip.set_title("cheapest algorithm", fontsize=10)
    strip.grid(False)
    bytes_axis(axis)
    seconds_axis(axis)
    axis.set_xlim(cell_edges[0], cell_edges[-1])
    axis.set_xlabel("message size (bytes)")
    axis.set_ylabel("time")
    axis.legend(fontsize=8, loc="upper left", title="solid: replayed · dashed: flat model",
                title_fontsize=8)  # fmt: skip
    fig.suptitle(f"{fabric}: N = {ranks} ranks, structure against the flat α-β model ({dtype})")
    fig.tight_layout()
    return fig
