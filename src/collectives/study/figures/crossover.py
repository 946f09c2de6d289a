"""The crossover: each algorithm's modeled time relative to the fastest one, against message
size at one N, a panel per fabric, the background shaded by the fastest. The headline shows
the seed's three algorithms on a few fabrics; crossover_all every algorithm on every fabric."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ...model.cost import among, ranges
from ..question import SEED_PAIR
from ..units import format_bytes
from .style import (
    GUIDE,
    Plot,
    bytes_axis,
    colour,
    handles_of,
    label,
    legend_below,
    panels,
    plot_series,
)

STEPS = 16  # points drawn between neighbouring grid sizes, so that lines cross where they do
SHADE = 0.2  # opacity of the fastest algorithm's colour behind the lines


def curves(slice_: pd.DataFrame, algorithms: Sequence[str]) -> pd.DataFrame:
    """One fabric's times at one N, at the grid sizes and between them (on the straight
    line between neighbouring sizes, the model's one interpolation rule), each relative to
    the fastest of `algorithms` there (ties: the first listed)."""
    times = slice_.pivot_table(index="message_bytes", columns="algorithm", values="time_s")
    times = times[[a for a in algorithms if a in times.columns]]
    grid = times.index.to_numpy(float)
    steps = [np.geomspace(low, high, STEPS + 1)[:-1] for low, high in itertools.pairwise(grid)]
    sizes = np.concatenate([*steps, grid[-1:]])
    values = np.column_stack([np.interp(sizes, grid, times[name]) for name in times.columns])
    best = values.min(axis=1, keepdims=True)
    winner = np.asarray(times.columns)[values.argmin(axis=1)]
    on_grid = np.isin(sizes, grid)
    point = {"message_bytes": sizes, "on_grid": on_grid, "winner": winner}
    return pd.concat(
        pd.DataFrame({**point, "algorithm": name, "time_s": time, "relative": time / best[:, 0]})
        for name, time in zip(times.columns, values.T, strict=True)
    )


def draw(
    costs: pd.DataFrame,
    crossover: pd.DataFrame,
    ranks: int,
    dtype: str,
    algorithms: Sequence[str],
    fabrics: Sequence[str] | None = None,
) -> Plot:
    """Time relative to the fastest of `algorithms` against message size at N = `ranks`,
    one panel per fabric (all of them without `fabrics`), shaded by the fastest, with the
    size from which ring beats recursive doubling marked and given in the panel's title."""
    costs = among(costs[(costs.ranks == ranks) & (costs.dtype == dtype)], list(algorithms))
    fabrics = list(fabrics or dict.fromkeys(costs.fabric))
    fig, axes = panels(len(fabrics), height=1.75, sharey=True)
    data = []
    for axis, fabric in zip(axes, fabrics, strict=True):
        here = costs[costs.fabric == fabric]
        drawn = curves(here, algorithms).assign(fabric=fabric)
        note = panel(axis, here, drawn, crossover_at(crossover, fabric, ranks, dtype, algorithms))
        axis.set_title(f"{fabric}\n{note}" if note else fabric)
        data.append(drawn)
    for axis in axes:
        axis.set_xlabel("message size")
    for axis in axes[:: min(4, len(axes))]:
        axis.set_ylabel("time / fastest")
    latency, bandwidth = SEED_PAIR
    handles = handles_of(axes)
    if any(line.get_gid() == GUIDE for axis in axes for line in axis.get_lines()):
        text = f"{label(bandwidth)} overtakes {label(latency)}"
        handles.append(plt.Line2D([], [], color="black", linewidth=0.9, label=text))
    winners = list(dict.fromkeys(pd.concat(data).winner))
    handles += [Patch(color=colour(a), alpha=SHADE, label=f"fastest: {label(a)}") for a in winners]
    legend_below(fig, handles)
    fig.suptitle(f"All-reduce time relative to the fastest, N = {ranks} ranks ({dtype})")
    columns = ["fabric", "message_bytes", "on_grid", "algorithm", "time_s", "relative", "winner"]
    return Plot(fig, pd.concat(data, ignore_index=True)[columns])


def crossover_at(
    crossover: pd.DataFrame, fabric: str, ranks: int, dtype: str, algorithms: Sequence[str]
) -> float | None:
    """The size from which ring beats recursive doubling for good (NaN: never in the
    grid's range); None if the figure does not show both."""
    if not set(SEED_PAIR) <= set(algorithms):
        return None
    row = crossover[(crossover.fabric == fabric) & (crossover.ranks == ranks)
                    & (crossover.dtype == dtype)]  # fmt: skip
    return float(row.replayed_bytes.iloc[0]) if len(row) else math.nan


def panel(axis, slice_: pd.DataFrame, drawn: pd.DataFrame, at: float | None) -> str:
    """One fabric: a line per algorithm (markers at grid sizes, ties merged), the fastest
    shaded behind them, and the ring / recursive-doubling crossover as a guide line;
    returns the crossover's note for the panel's title."""
    sizes = np.sort(drawn.message_bytes.unique())
    for low, high, winner in ranges(slice_):
        axis.axvspan(max(low, sizes[0]), min(high, sizes[-1]), color=colour(winner),
                     alpha=SHADE, linewidth=0)  # fmt: skip
    order = drawn.groupby("algorithm", sort=False)  # the caller's order: who names a tie
    series = {name: rows.relative.to_numpy() for name, rows in order}
    mask = drawn[drawn.algorithm == drawn.algorithm.iloc[0]].on_grid.to_numpy()
    plot_series(axis, sizes, series, markevery=mask, markersize=3, linewidth=1.1)
    axis.set_xlim(sizes[0], sizes[-1])
    bytes_axis(axis)
    axis.set_yscale("log", base=2)
    axis.yaxis.set_major_locator(LogLocator(base=2))
    axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}×"))
    axis.yaxis.set_minor_formatter(NullFormatter())
    axis.set_ylim(bottom=0.9)
    axis.grid(axis="x", visible=False)
    if at is None:
        return ""
    if math.isnan(at):
        return "no crossover in range"
    axis.axvline(max(at, sizes[0]), color="black", linewidth=0.9, gid=GUIDE)
    return f"crossover at {format_bytes(at)}"
