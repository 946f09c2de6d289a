"""NCCL's choice of algorithm and protocol over message size and node count, beside ours."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from ... import registry
from .style import GUIDE, Plot, bytes_axis, colour, edges, label, legend_below, panels

# NCCL's choices: the tree in blues and the ring in oranges, darker for the heavier
# protocol; NVLS (the switch reduces) in greens. The tree's LL128 is a violet blue, at a
# CIEDE2000 difference of 19 or more from every algorithm's colour (one-shot's sky blue
# is 3 from the Blues palette's middle shade), so that one legend can hold both.
NCCL_COLOURS = {
    "tree/LL": "#C6DBEF", "tree/LL128": "#8C8FD9", "tree/Simple": "#08519C",
    "ring/LL": "#FDD0A2", "ring/LL128": "#FD8D3C", "ring/Simple": "#A63603",
    "nvls/Simple": "#74C476", "nvls_tree/Simple": "#006D2C",
}  # fmt: skip


def draw(choice: pd.DataFrame) -> Plot:
    """Two panels over (message size, node count) of one system: NCCL's choice by its own
    model, with the sizes where our cheapest algorithm changes marked in black; and our
    cheapest algorithm replayed on the link-level fabrics (the data: the map's cells)."""
    fig, (theirs, ours) = panels(2, height=2.2, sharey=True)
    system = choice.system.iloc[0] if len(choice) else "no GPU system"
    nodes = sorted(choice.nodes.unique())
    sizes = np.sort(choice.message_bytes.unique())
    bounds = edges(sizes) if len(sizes) else np.array([1.0, 2.0])
    handles = []
    if choice.nccl_choice.fillna("").astype(bool).any():
        _cells(theirs, choice, nodes, sizes, bounds, "nccl_choice", NCCL_COLOURS.__getitem__)
        handles += [Patch(color=NCCL_COLOURS[key], label=f"NCCL {key}")
                    for key in NCCL_COLOURS if key in set(choice.nccl_choice)]  # fmt: skip
        for row, count in enumerate(nodes):
            cheapest = choice[choice.nodes == count].sort_values("message_bytes")
            changes = np.flatnonzero(
                cheapest.cheapest_algorithm.to_numpy()[1:]
                != cheapest.cheapest_algorithm.to_numpy()[:-1]
            )
            for index in changes:
                theirs.plot([bounds[index + 1]] * 2, [row - 0.45, row + 0.45], color="black",
                            linewidth=1.2, gid=GUIDE)  # fmt: skip
        theirs.set_title(f"NCCL's choice, its own model ({system})\n"
                         "black: where our cheapest changes", fontsize=7.5)  # fmt: skip
    else:
        theirs.set_title(f"NCCL's choice: not available ({system})", fontsize=7.5)
    _cells(ours, choice, nodes, sizes, bounds, "cheapest_algorithm", _algorithm_colour)
    variants = list(dict.fromkeys(choice.sort_values("message_bytes").cheapest_algorithm))
    handles += [Patch(color=_algorithm_colour(v), label=label(v)) for v in variants]
    ours.set_title("our cheapest, link-level α-β replayed", fontsize=7.5)
    for axis in (theirs, ours):
        axis.set_xlim(bounds[0], bounds[-1])
        axis.set_ylim(-0.5, max(len(nodes), 1) - 0.5)
        bytes_axis(axis)
        axis.set_yticks(range(len(nodes)), [str(n) for n in nodes])
        axis.set_xlabel("message size (float32)")
        axis.grid(False)
    theirs.set_ylabel("nodes")
    if handles:
        legend_below(fig, handles)
    fig.suptitle("Which all-reduce runs: NCCL's pick against the cheapest of ours")
    return Plot(fig, choice.reset_index(drop=True))


def _cells(axis, choice, nodes, sizes, bounds, column, colour_of) -> None:
    """One band per node count, a cell per message size coloured by `column`'s value."""
    for row, count in enumerate(nodes):
        band = choice[choice.nodes == count].set_index("message_bytes")[column]
        for index, size in enumerate(sizes):
            if size in band.index:
                low, high = bounds[index], bounds[index + 1]
                axis.barh(row, high - low, left=low, height=0.9, color=colour_of(band[size]),
                          linewidth=0)  # fmt: skip


def _algorithm_colour(variant: str):
    """A variant's algorithm's colour."""
    return colour(registry.parse_variant(variant)[0])
