"""A two-level fabric: replayed time against the flat model's prediction."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .style import (
    PAGE_WIDTH,
    Plot,
    bytes_axis,
    colour,
    edges,
    handles_of,
    legend_below,
    plot_series,
    seconds_axis,
)

# (column of the costs table, panel title): the replay on the fabric, then the flat model
MODELS = (
    ("time_s", "replayed on the two-level fabric"),
    ("closed_form_s", "flat α-β model (every message inter-node)"),
)


def draw(
    costs: pd.DataFrame, structure: dict | None, dtype: str, algorithms: Sequence[str]
) -> Plot:
    """On one two-level fabric at one N, side by side: every algorithm's replayed time and
    the flat model's prediction (shared time axis), each under a strip of the cheapest
    algorithm size by size. Algorithms whose times coincide share one line."""
    columns = ["model", "algorithm", "message_bytes", "time_s", "cheapest"]
    if not structure:
        fig = plt.figure(figsize=(PAGE_WIDTH, 1.0))
        fig.text(0.5, 0.5, "no two-level fabric chosen (figures.structure)", ha="center")
        return Plot(fig, pd.DataFrame(columns=columns))
    fabric, ranks = structure["fabric"], structure["ranks"]
    data = costs[(costs.fabric == fabric) & (costs.ranks == ranks) & (costs.dtype == dtype)]
    present = [a for a in algorithms if a in set(data.algorithm)]
    sizes = np.sort(data.message_bytes.unique())
    cell_edges = edges(sizes)
    fig, grid = plt.subplots(2, 2, figsize=(PAGE_WIDTH, 3.3), sharex=True, sharey="row",
                             height_ratios=[1, 7], layout="constrained")  # fmt: skip
    rows = []
    for (strip, axis), (column, title) in zip(grid.T, MODELS, strict=True):
        times = data.pivot_table(index="message_bytes", columns="algorithm", values=column)
        times = times.reindex(index=sizes, columns=present)
        cheapest = times.idxmin(axis=1)
        for (low, high), algorithm in zip(pairwise(cell_edges), cheapest, strict=True):
            strip.axvspan(low, high, color=colour(algorithm))
        strip.set_yticks([0.5], ["cheapest"])
        strip.set_ylim(0, 1)
        strip.grid(False)
        strip.set_title(title)
        strip.tick_params(labeltop=True, labelbottom=False, labelleft=True)
        plot_series(axis, sizes, {a: times[a].to_numpy() for a in present}, markersize=3,
                    linewidth=1)  # fmt: skip
        bytes_axis(axis)
        seconds_axis(axis)
        axis.tick_params(labelleft=True)
        axis.set_xlim(cell_edges[0], cell_edges[-1])
        axis.set_xlabel("message size (bytes)")
        rows += [{"model": title, "algorithm": a, "message_bytes": m, "time_s": times.at[m, a],
                  "cheapest": cheapest[m] == a} for a in present for m in sizes]  # fmt: skip
    grid[1, 0].set_ylabel("time")
    legend_below(fig, handles_of(grid[1]))
    fig.suptitle(f"{fabric}, N = {ranks}: the structure against the flat α-β model ({dtype})")
    return Plot(fig, pd.DataFrame(rows, columns=columns))
