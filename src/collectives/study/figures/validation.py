"""The model ladder's predictions against the clock."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ...model import ladder
from ..units import format_seconds
from ..validation import within_factor
from .style import (
    colour,
    label,
)

N_MARKERS = "os^Dv"


def draw(validation: pd.DataFrame, clusters: pd.DataFrame):
    """Predicted against measured time, log-log with y = x (and a 2x band): one column per
    model of the ladder, one row per transport of this machine (colour: algorithm, marker:
    N) and a row for the real clusters (colour: cluster)."""
    transports = list(dict.fromkeys(validation.transport))
    rows, columns = len(transports) + (not clusters.empty), len(ladder.MODELS)
    fig, axes = plt.subplots(max(rows, 1), columns, squeeze=False,
                             figsize=(3.9 * columns, 3.9 * max(rows, 1)))  # fmt: skip
    for row, transport in zip(axes, transports, strict=False):
        data = validation[validation.transport == transport]
        ranks = sorted(set(data.ranks))
        for axis, model in zip(row, ladder.MODELS, strict=True):
            predicted = data.assign(predicted_s=data[ladder.column(model)])
            for (algorithm, n), points in predicted.groupby(["algorithm", "ranks"]):
                axis.plot(points.measured_s, points.predicted_s, linestyle="none",
                          marker=N_MARKERS[ranks.index(n) % len(N_MARKERS)], markersize=4.5,
                          markerfacecolor="none", color=colour(algorithm),
                          label=f"{label(algorithm)}, N={n}")  # fmt: skip
            axis.set_title(f"{transport} ({data.fabric.iloc[0]}): {model}", fontsize=9)
            _accuracy(axis, predicted)
    if not clusters.empty:
        palette = sns.color_palette("Set1", len(set(clusters.cluster)))
        for axis, model in zip(axes[-1], ladder.MODELS, strict=True):
            predicted = clusters.assign(predicted_s=clusters[ladder.column(model)])
            groups = predicted.groupby("cluster", sort=False)
            for index, (shade, (name, points)) in enumerate(zip(palette, groups, strict=True)):
                axis.plot(points.measured_s, points.predicted_s, linestyle="none",
                          marker=N_MARKERS[index % len(N_MARKERS)], color=shade,
                          markersize=4.5, markerfacecolor="none",
                          label=f"{name} (N={points.ranks.iloc[0]})")  # fmt: skip
            axis.set_title(f"real clusters (osu_allreduce): {model}", fontsize=9)
            _accuracy(axis, predicted)
        axes[-1, -1].legend(fontsize=6.5, loc="lower right")
    for axis in axes[-1]:
        axis.set_xlabel("measured (median)")
    for axis in axes[:, 0]:
        axis.set_ylabel("predicted")
    if transports:
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=7,
                   frameon=False)  # fmt: skip
    fig.suptitle("The model ladder against the clock: each layer's prediction of every timed run")
    fig.tight_layout(rect=(0, 0.06 if transports else 0, 1, 1))
    return fig


def _accuracy(axis, data: pd.DataFrame) -> None:
    """The y = x frame and the panel's median |error| and share within 2x."""
    _identity(axis, data)
    rel_error = data.predicted_s / data.measured_s - 1
    within = within_factor(rel_error, 2).mean()
    axis.text(0.03, 0.97, f"median |error| {rel_error.abs().median():.0%}\n"
              f"within 2x: {within:.0%} of {len(data)}", transform=axis.transAxes,
              va="top", fontsize=8)  # fmt: skip


def _identity(axis, data: pd.DataFrame) -> None:
    """Log-log axes with the y = x line and the band within a factor 2 of it."""
    values = np.concatenate([data.measured_s, data.predicted_s])
    values = values[values > 0]
    low, high = values.min() / 2, values.max() * 2
    line = np.array([low, high])
    axis.plot(line, line, color="black", linewidth=1)
    axis.fill_between(line, line / 2, line * 2, color="0.9", zorder=0)
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    # Labels at 1, 2, 5 x 10^k when the range spans less than two decades, else decades.
    subs = (1.0, 2.0, 5.0) if high / low < 100 else (1.0,)
    for setter, target in ((axis.set_xscale, axis.xaxis), (axis.set_yscale, axis.yaxis)):
        setter("log")
        target.set_major_locator(LogLocator(subs=subs))
        target.set_major_formatter(FuncFormatter(format_seconds))
        target.set_minor_formatter(NullFormatter())
