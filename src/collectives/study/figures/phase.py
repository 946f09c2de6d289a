"""The (message size, N) plane coloured by the cheapest algorithm, per fabric."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from .style import (
    bytes_axis,
    colour,
    edges,
    label,
    panels,
)


def draw(costs: pd.DataFrame, crossover: pd.DataFrame, dtype: str, algorithms: Sequence[str]):
    """The (message size, N) plane coloured by the cheapest algorithm, one panel per fabric;
    black lines mark the size at which each algorithm starts to win, per N."""
    winners = costs[(costs.dtype == dtype) & costs.is_winner]
    fabrics = list(dict.fromkeys(winners.fabric))
    present = [a for a in algorithms if a in set(winners.algorithm)]
    fig, axes = panels(len(fabrics))
    for axis, fabric in zip(axes, fabrics, strict=True):
        phase_panel(axis, winners, crossover, fabric, dtype, present)
    for axis in axes[:: min(4, len(axes))]:
        axis.set_ylabel("ranks N")
    phase_legend(fig, present)
    fig.suptitle(f"Cheapest all-reduce by message size and ranks ({dtype})", y=1.0)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def phase_panel(axis, winners, crossover, fabric: str, dtype: str, present: list[str]) -> None:
    """One fabric's winner map with its thresholds (see phase_figure)."""
    colours = ListedColormap([colour(a) for a in present])
    index = {a: i for i, a in enumerate(present)}
    grid = winners[winners.fabric == fabric].pivot_table(
        index="ranks", columns="message_bytes", values="algorithm", aggfunc="first"
    )
    sizes, ranks = grid.columns.to_numpy(float), grid.index.to_numpy(float)
    cells = grid.apply(lambda column: column.map(index)).to_numpy(float)
    axis.pcolormesh(edges(sizes), edges(ranks), cells, cmap=colours, vmin=-0.5,
                    vmax=len(present) - 0.5, shading="flat")  # fmt: skip
    bounds = crossover[(crossover.fabric == fabric) & (crossover.dtype == dtype)]
    for algorithm in present:  # the size at which each algorithm starts to win
        starts = bounds[bounds[f"{algorithm}_from_bytes"] > 0].sort_values("ranks")
        axis.plot(starts[f"{algorithm}_from_bytes"], starts.ranks, color="black", marker="o",
                  markersize=3, linewidth=1.2)  # fmt: skip
    axis.set_xlim(edges(sizes)[0], edges(sizes)[-1])
    axis.set_title(fabric)
    bytes_axis(axis)
    axis.set_yscale("log", base=2)
    axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    axis.set_xlabel("message size (bytes)")
    axis.grid(False)


def phase_legend(fig, present: list[str]) -> None:
    handles = [Patch(color=colour(a), label=label(a)) for a in present]
    handles.append(plt.Line2D([], [], color="black", marker="o", label="threshold"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False)
