"""Wall-clock time of our algorithms beside the library all-reduces."""

from __future__ import annotations

import pandas as pd

from .style import (
    LIBRARY_LABELS,
    LIBRARY_STYLE,
    Plot,
    bytes_axis,
    handles_of,
    legend_below,
    panels,
    plot_series,
    seconds_axis,
)

COLUMNS = ["transport", "ranks", "algorithm", "message_bytes", "time_median_s"]


def draw(wallclock: pd.DataFrame) -> Plot:
    """Measured median time against message size, one panel per transport and N: our
    algorithms (registry colours and markers; ties on one line) beside the library
    all-reduces timed on the same ranks (grey and black, no markers)."""
    transports = list(dict.fromkeys(wallclock.transport))
    ranks = sorted(set(wallclock.ranks))
    fig, axes = panels(max(len(transports) * len(ranks), 1), height=1.8,
                       columns=max(len(ranks), 1))  # fmt: skip
    names = list(dict.fromkeys(wallclock.algorithm))
    libraries = [name for name in names if name in LIBRARY_STYLE]
    ours = [name for name in names if name not in LIBRARY_STYLE]
    panel = iter(axes)
    for transport in transports:
        for n in ranks:
            axis = next(panel)
            here = wallclock[(wallclock.transport == transport) & (wallclock.ranks == n)]
            times = here.pivot_table(index="message_bytes", columns="algorithm",
                                     values="time_median_s")  # fmt: skip
            drawn = [name for name in ours if name in times]
            plot_series(axis, times.index, {a: times[a].to_numpy() for a in drawn},
                        markersize=2.5, linewidth=1)  # fmt: skip
            for name in (name for name in libraries if name in times):
                shade, style = LIBRARY_STYLE[name]
                axis.plot(times.index, times[name], color=shade, linestyle=style, linewidth=1,
                          label=LIBRARY_LABELS[name])  # fmt: skip
            axis.set_title(f"{transport}, N = {n}")
            bytes_axis(axis)
            seconds_axis(axis)
    for axis in axes[-len(ranks) :] if ranks else axes:
        axis.set_xlabel("message size (bytes)")
    for axis in axes[:: max(len(ranks), 1)]:
        axis.set_ylabel("median time")
    if names:
        legend_below(fig, handles_of(axes))
    else:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "nothing timed", ha="center", va="center")
    fig.suptitle("Wall-clock time of one all-reduce on this machine: ours and the libraries")
    data = wallclock[COLUMNS].sort_values(["transport", "ranks", "algorithm", "message_bytes"])
    return Plot(fig, data.reset_index(drop=True))
