"""Wall-clock time of our algorithms beside the library all-reduces."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from .style import (
    LIBRARY_STYLE,
    bytes_axis,
    colour,
    label,
    marker,
    seconds_axis,
)


def _timed_style(name: str) -> tuple:
    """(colour, line style, marker) of a timed entry: ours solid, the libraries dashed."""
    if name in LIBRARY_STYLE:
        return (*LIBRARY_STYLE[name], None)
    return colour(name), "-", marker(name)


def draw(wallclock: pd.DataFrame):
    """Measured median time against message size, one panel per transport and N: our
    algorithms (solid) beside the library all-reduces timed on the same ranks (dashed)."""
    transports = list(dict.fromkeys(wallclock.transport))
    ranks = sorted(set(wallclock.ranks))
    fig, axes = plt.subplots(len(transports), len(ranks), squeeze=False, sharex=True,
                             figsize=(4.2 * len(ranks), 3.4 * len(transports)))  # fmt: skip
    names = list(dict.fromkeys(wallclock.algorithm))
    for row, transport in zip(axes, transports, strict=True):
        for axis, n in zip(row, ranks, strict=True):
            here = wallclock[(wallclock.transport == transport) & (wallclock.ranks == n)]
            for name in names:
                rows = here[here.algorithm == name].sort_values("message_bytes")
                if rows.empty:
                    continue
                colour, style, marker = _timed_style(name)
                axis.plot(rows.message_bytes, rows.time_median_s, color=colour, linestyle=style,
                          marker=marker, markersize=4, linewidth=1.3)  # fmt: skip
            axis.set_title(f"{transport} transport, N = {n}")
            bytes_axis(axis)
            seconds_axis(axis)
    for axis in axes[-1]:
        axis.set_xlabel("message size (bytes)")
    for row in axes:
        row[0].set_ylabel("median time per all-reduce")
    handles = [
        plt.Line2D([], [], color=colour, linestyle=style, marker=marker, label=label(n))
        for n in names
        for colour, style, marker in [_timed_style(n)]
    ]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), frameon=False)
    fig.suptitle("Wall-clock time on this machine: from-scratch algorithms and the libraries")
    fig.tight_layout(rect=(0, 0.05 * math.ceil(len(handles) / 4), 1, 1))
    return fig
