"""MPI_Allreduce under our selection against the library's default."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter

from .style import (
    bytes_axis,
)


def draw(table: pd.DataFrame):
    """Speedup of each library's MPI_Allreduce over its default against message size, one
    panel per library: the clock's selection (solid) and the model's (dashed), one colour
    per N, the run-to-run noise shaded around 1."""
    libraries = list(dict.fromkeys(table.library))
    ranks = sorted(set(table.ranks))
    fig, axes = plt.subplots(1, len(libraries), squeeze=False, sharey=True,
                             figsize=(4.2 * len(libraries), 3.6))  # fmt: skip
    # N is ordered: a sequential palette, apart from the algorithms' qualitative colours
    colours = dict(zip(ranks, sns.color_palette("viridis", len(ranks)), strict=True))
    for axis, library in zip(axes[0], libraries, strict=True):
        part = table[table.library == library]
        noise = float(part.groupby("ranks").noise_limit.first().median())
        axis.axhspan(1 / (1 + noise), 1 + noise, color="0.88", zorder=0)
        axis.axhline(1, color="0.4", linewidth=0.8)
        for n in ranks:
            rows = part[part.ranks == n].sort_values("message_bytes")
            for setting, style in (("clock", "-"), ("model", "--")):
                axis.plot(rows.message_bytes, rows[f"{setting}_speedup"], color=colours[n],
                          linestyle=style, marker="o" if setting == "clock" else None,
                          markersize=3, linewidth=1.3)  # fmt: skip
        axis.set_title(f"{part.version.iloc[0] or library}")
        bytes_axis(axis)
        axis.set_yscale("log", base=2)
        axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
        axis.set_xlabel("message size (bytes)")
    axes[0][0].set_ylabel("speedup over the library's default")
    handles = [plt.Line2D([], [], color=colours[n], label=f"N = {n}") for n in ranks] + [
        plt.Line2D([], [], color="0.3", linestyle="-", marker="o", label="clock's selection"),
        plt.Line2D([], [], color="0.3", linestyle="--", label="model's selection"),
        plt.Rectangle((0, 0), 1, 1, color="0.88", label="run-to-run noise (median over N)"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False)
    fig.suptitle("MPI_Allreduce with our selection against the library's default, this machine")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig
