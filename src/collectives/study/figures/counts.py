"""Measured against closed-form counts, against N."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FuncFormatter

from .style import (
    colour,
    dashes,
    label,
    marker,
)


def draw(measurements: pd.DataFrame, elements: int, dtype: str, algorithms: Sequence[str]):
    """Measured (markers) and theoretical (lines) counts against N at one message size."""
    data = measurements[(measurements.elements == elements) & (measurements.dtype == dtype)]
    data = data.sort_values("ranks")
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), sharex=True)
    panels = [
        ("rounds", "message rounds (critical path)", None),
        ("hotspot_bytes", "bytes through the busiest rank  (÷ M·s)", "per-rank"),
        ("bytes_total", "bytes on the wire, all ranks  (÷ M·s)", "M"),
        ("bytes_critical", "bytes on the critical path  (÷ M·s)", "M"),
    ]
    for axis, (column, title, scale) in zip(axes.flat, panels, strict=True):
        for algorithm in algorithms:
            rows = data[data.algorithm == algorithm]
            if rows.empty:
                continue
            norm = 1.0 if scale is None else rows.message_bytes.to_numpy(float)
            shade = colour(algorithm)
            axis.plot(rows.ranks, rows[f"theory_{column}"] / norm, color=shade,
                      linestyle=dashes(algorithm), linewidth=1.3)  # fmt: skip
            axis.plot(rows.ranks, rows[column] / norm, linestyle="none", marker=marker(algorithm),
                      markerfacecolor="none", markeredgecolor=shade, markersize=7)  # fmt: skip
            if scale == "per-rank":  # the average rank, for contrast with the busiest one
                mean = 2 * rows.bytes_total / rows.ranks / norm
                axis.plot(rows.ranks, mean, color=shade, linestyle=":", linewidth=0.8)
        axis.set_title(title)
        axis.set_xscale("log", base=2)
        axis.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        axis.set_yscale("log", base=2)
        axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    for axis in axes[1]:
        axis.set_xlabel("ranks N")
    axes[0, 1].text(0.02, 0.97, "dotted: the average rank", transform=axes[0, 1].transAxes,
                    va="top", fontsize=8, color="0.3")  # fmt: skip
    handles = [
        plt.Line2D([], [], color=colour(a), linestyle=dashes(a), marker=marker(a),
                   markerfacecolor="none", label=label(a))
        for a in algorithms
    ]  # fmt: skip
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=9,
               title="lines: closed form · open markers: measured (coinciding counts overlap)",
               title_fontsize=9)  # fmt: skip
    fig.suptitle(f"Measured vs theoretical counts, M = {elements} elements ({dtype})")
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig
