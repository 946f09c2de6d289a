"""Measured against closed-form counts, against N."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from .style import Plot, algorithm_handle, label, legend_below, panels, plot_series

# (count, panel title, divided by the vector's bytes M·s?)
QUANTITIES = [
    ("rounds", "message rounds (critical path)", False),
    ("hotspot_bytes", "bytes through the busiest rank ÷ M·s", True),
    ("bytes_total", "bytes on the wire, all ranks ÷ M·s", True),
    ("bytes_critical", "bytes on the critical path ÷ M·s", True),
]
TITLE_CHARACTERS = 48  # a title line's characters across half a page
MEASURED = {"linestyle": "none", "marker": ".", "markersize": 3, "color": "0.15"}
AVERAGE = {"color": "0.82", "linewidth": 4.0, "solid_capstyle": "round", "zorder": 1}


def table(measurements: pd.DataFrame, algorithms: Sequence[str]) -> pd.DataFrame:
    """What the figure plots, long: per quantity, algorithm and N the closed form, the
    measured count and (busiest-rank panel) the average rank's bytes, scaled as drawn."""
    rows = []
    for quantity, _title, scaled in QUANTITIES:
        for algorithm in algorithms:
            runs = measurements[measurements.algorithm == algorithm].sort_values("ranks")
            scale = runs.message_bytes.to_numpy(float) if scaled else 1.0
            kinds = {"closed form": runs[f"theory_{quantity}"], "measured": runs[quantity]}
            if quantity == "hotspot_bytes":  # sent + received, averaged over the ranks
                kinds["average rank"] = 2 * runs.bytes_total / runs.ranks
            for kind, values in kinds.items():
                rows.append(pd.DataFrame({"quantity": quantity, "algorithm": algorithm,
                                          "ranks": runs.ranks.to_numpy(), "kind": kind,
                                          "value": values.to_numpy(float) / scale}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def draw(measurements: pd.DataFrame, elements: int, dtype: str, algorithms: Sequence[str]) -> Plot:
    """Closed-form counts (lines, open markers; algorithms with equal counts share a line)
    and measured ones (dots) against N at one message size, one panel per count."""
    runs = measurements[(measurements.elements == elements) & (measurements.dtype == dtype)]
    algorithms = [a for a in algorithms if a in set(runs.algorithm)]
    data = table(runs, algorithms)
    ranks = sorted(data.ranks.unique())
    fig, axes = panels(len(QUANTITIES), height=1.9, columns=2)
    for axis, (quantity, title, _scaled) in zip(axes, QUANTITIES, strict=True):
        shown = data[data.quantity == quantity]
        wide = shown.pivot_table(index="ranks", columns=["kind", "algorithm"], values="value")
        wide = wide.reindex(ranks)
        if "average rank" in wide:
            for algorithm in algorithms:
                axis.plot(ranks, wide["average rank", algorithm], **AVERAGE)
        theory = {a: wide["closed form", a].to_numpy() for a in algorithms}
        ties = plot_series(axis, ranks, theory, markersize=5, markerfacecolor="none",
                           linewidth=1.1)  # fmt: skip
        for algorithm in algorithms:
            axis.plot(ranks, wide["measured", algorithm], **MEASURED)
        axis.set_title("\n".join([title, *tie_notes(ties)]))
        log_axes(axis, ranks)
    for axis in axes[-2:]:
        axis.set_xlabel("ranks N")
    handles = [algorithm_handle(a, markersize=5, markerfacecolor="none") for a in algorithms]
    handles += [
        plt.Line2D([], [], label="measured (inside the closed form's marker)", **MEASURED),
        plt.Line2D([], [], label="the average rank (busiest-rank panel)", **AVERAGE),
    ]  # fmt: skip
    legend_below(fig, handles, title="closed form: line and open marker; equal counts share "
                 "the first one's line, the others named under the panel's title")  # fmt: skip
    fig.suptitle(f"Measured against closed-form counts, M = {elements} elements ({dtype})")
    return Plot(fig, data)


def tie_notes(ties: list[tuple[str, ...]]) -> list[str]:
    """Lines for a panel's title naming the algorithms drawn as one (equal at every N)."""
    notes = [" = ".join(label(name) for name in group) for group in ties]
    return textwrap.wrap("one line: " + "; ".join(notes), TITLE_CHARACTERS) if notes else []


def log_axes(axis, ranks: list[int]) -> None:
    """Log2 axes: x ticked at every N of the grid, y at powers of two."""
    axis.set_xscale("log", base=2)
    axis.xaxis.set_major_locator(FixedLocator(ranks))
    axis.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    axis.xaxis.set_minor_formatter(NullFormatter())
    axis.set_yscale("log", base=2)
    axis.yaxis.set_major_locator(LogLocator(base=2, numticks=6))
    axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    axis.yaxis.set_minor_formatter(NullFormatter())
