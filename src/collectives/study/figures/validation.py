"""The model ladder's predictions against the clock."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from ...model import ladder
from ..units import format_seconds
from ..validation import within_factor
from .style import COLOURS, GUIDE, PAGE_WIDTH, Plot, colour, label, legend_below, marker

# N on this machine: the algorithm's marker hollow, half filled, filled, ...
FILLS = ("none", "bottom", "full", "left", "top", "right")
# Real clusters: colour-blind-safe hues far apart (blue, vermillion, black, sky blue, ...),
# each with its own marker.
CLUSTER_STYLES = ((COLOURS[0], "s"), (COLOURS[3], "o"), ("black", "D"), (COLOURS[9], "v"),
                  (COLOURS[8], "^"), (COLOURS[7], "P"))  # fmt: skip
COLUMNS = ["row", "model", "series", "ranks", "message_bytes", "measured_s", "predicted_s"]


def draw(validation: pd.DataFrame, clusters: pd.DataFrame) -> Plot:
    """Predicted against measured time, log-log with y = x and a 2x band: one column per
    model of the ladder, one row per transport of this machine (the algorithm's colour and
    marker, filled by N) and a row for the real clusters (a colour and marker each); each
    panel's accuracy in its title, every legend below the panels."""
    transports = list(dict.fromkeys(validation.transport))
    rows = [(f"{t} ({validation[validation.transport == t].fabric.iloc[0]})",
             validation[validation.transport == t], _machine_style(validation))
            for t in transports]  # fmt: skip
    if not clusters.empty:
        rows.append(("real clusters", clusters.assign(algorithm=clusters.cluster),
                     _cluster_style(clusters)))  # fmt: skip
    columns = len(ladder.MODELS)
    fig, axes = plt.subplots(max(len(rows), 1), columns, squeeze=False, layout="constrained",
                             figsize=(PAGE_WIDTH, 1.75 * max(len(rows), 1) + 0.4))  # fmt: skip
    data = []
    for panels, (name, table, style) in zip(axes, rows, strict=False):
        for axis, model in zip(panels, ladder.MODELS, strict=True):
            predicted = table.assign(predicted_s=table[ladder.column(model)])
            for (series, n), points in predicted.groupby(["algorithm", "ranks"], sort=False):
                axis.plot(points.measured_s, points.predicted_s, linestyle="none",
                          markersize=3.5, markeredgewidth=0.7, **style(series, n))  # fmt: skip
            data.append(predicted.assign(row=name, model=model, series=predicted.algorithm))
            _identity(axis, predicted)
            axis.set_title(f"{model}\n{_accuracy(predicted)}", fontsize=7)
        panels[0].set_ylabel(f"{name}\npredicted")
    for axis in axes[-1]:
        axis.set_xlabel("measured")
    if rows:
        handles = _legend(validation, clusters)
        legend_below(fig, handles)
    else:
        axes[0, 0].text(0.5, 0.5, "nothing timed", ha="center", va="center")
    fig.suptitle("The model ladder against the clock: each layer's prediction of every run")
    table = pd.concat(data) if data else pd.DataFrame(columns=COLUMNS)
    return Plot(fig, table[COLUMNS].reset_index(drop=True))


def _machine_style(validation: pd.DataFrame):
    """(algorithm, N) -> the algorithm's colour and marker, filled by N's rank among the Ns."""
    ranks = sorted(set(validation.ranks))
    return lambda algorithm, n: {"color": colour(algorithm), "marker": marker(algorithm),
                                 "fillstyle": FILLS[ranks.index(n) % len(FILLS)]}  # fmt: skip


def _cluster_style(clusters: pd.DataFrame):
    """(cluster, N) -> the cluster's own colour and marker (open, as the machine's N = 2)."""
    names = list(dict.fromkeys(clusters.cluster))
    return lambda name, _n: dict(zip(("color", "marker"),
                                     CLUSTER_STYLES[names.index(name) % len(CLUSTER_STYLES)],
                                     strict=True), fillstyle="none")  # fmt: skip


def _legend(validation: pd.DataFrame, clusters: pd.DataFrame) -> list:
    """Legend entries: algorithms, N (fill), clusters, and the guides."""
    entry = {"linestyle": "none", "markersize": 4, "markeredgewidth": 0.7}
    handles = [plt.Line2D([], [], color=colour(a), marker=marker(a), label=label(a), **entry)
               for a in dict.fromkeys(validation.algorithm)]  # fmt: skip
    ranks = sorted(set(validation.ranks))
    handles += [plt.Line2D([], [], color="0.3", marker="o", label=f"N = {n}",
                           fillstyle=FILLS[i % len(FILLS)], **entry)
                for i, n in enumerate(ranks)]  # fmt: skip
    style = _cluster_style(clusters) if not clusters.empty else None
    handles += [plt.Line2D([], [], label=f"{name} (N={points.ranks.iloc[0]})",
                           **style(name, None), **entry)
                for name, points in clusters.groupby("cluster", sort=False)]  # fmt: skip
    handles += [plt.Line2D([], [], color="black", linewidth=0.8, label="y = x"),
                plt.Rectangle((0, 0), 1, 1, color="0.9", label="within 2×")]  # fmt: skip
    return handles


def _accuracy(data: pd.DataFrame) -> str:
    """A panel's median |relative error| and share within a factor 2."""
    rel_error = data.predicted_s / data.measured_s - 1
    within = within_factor(rel_error, 2).mean()
    return f"|err| {rel_error.abs().median():.0%}, 2×: {within:.0%}"


def _identity(axis, data: pd.DataFrame) -> None:
    """Log-log axes with the y = x line and the band within a factor 2 of it (guides)."""
    values = np.concatenate([data.measured_s, data.predicted_s])
    values = values[values > 0]
    low, high = values.min() / 2, values.max() * 2
    line = np.array([low, high])
    axis.plot(line, line, color="black", linewidth=0.8, gid=GUIDE)
    axis.fill_between(line, line / 2, line * 2, color="0.9", zorder=0, gid=GUIDE)
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    # a narrow panel holds two labels across and four up
    for setter, target, count in ((axis.set_xscale, axis.xaxis, 2),
                                  (axis.set_yscale, axis.yaxis, 4)):  # fmt: skip
        setter("log")
        target.set_major_locator(FixedLocator(_ticks(low, high, count)))
        target.set_major_formatter(FuncFormatter(format_seconds))
        target.set_minor_formatter(NullFormatter())


def _ticks(low: float, high: float, count: int) -> np.ndarray:
    """At most `count` round values in [low, high]: decades, or 1-2-5 steps in a range of
    less than two decades, every k-th of them."""
    decades = np.arange(np.floor(np.log10(low)), np.ceil(np.log10(high)) + 1)
    steps = (1.0,) if high / low >= 100 else (1.0, 2.0, 5.0)
    values = np.array([step * 10**d for d in decades for step in steps])
    values = values[(values >= low) & (values <= high)]
    return values[:: -(-len(values) // count)] if len(values) else values
