"""MPI_Allreduce under our selection against the library's default."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter

from .style import GUIDE, Plot, bytes_axis, legend_below, panels

SELECTIONS = (("clock", "-", "o"), ("model", "--", None))  # (setting, line style, marker)


def draw(table: pd.DataFrame) -> Plot:
    """Speedup of each library's MPI_Allreduce over its default against message size, one
    panel per library: the clock's selection (solid) and the model's (dashed), one colour
    per N, each with its 90% interval shaded."""
    libraries = list(dict.fromkeys(table.library))
    ranks = sorted(set(table.ranks))
    fig, axes = panels(max(len(libraries), 1), height=2.0, sharey=True)
    # N is ordered: a sequential palette, apart from the algorithms' qualitative colours
    colours = dict(zip(ranks, sns.color_palette("viridis", len(ranks)), strict=True))
    rows = []
    for axis, library in zip(axes, libraries, strict=False):
        part = table[table.library == library]
        axis.axhline(1, color="0.4", linewidth=0.8, gid=GUIDE)
        for n in ranks:
            here = part[part.ranks == n].sort_values("message_bytes")
            for setting, style, marker in SELECTIONS:
                low, high = here[f"{setting}_speedup_low"], here[f"{setting}_speedup_high"]
                axis.fill_between(here.message_bytes, low, high, color=colours[n], alpha=0.15,
                                  linewidth=0, gid=GUIDE)  # fmt: skip
                axis.plot(here.message_bytes, here[f"{setting}_speedup"], color=colours[n],
                          linestyle=style, marker=marker, markersize=2.5, linewidth=1)  # fmt: skip
                rows += [{"library": library, "ranks": n, "selection": setting,
                          "message_bytes": m, "speedup": v, "low": lo, "high": hi}
                         for m, v, lo, hi in zip(here.message_bytes, here[f"{setting}_speedup"],
                                                 low, high, strict=True)]  # fmt: skip
        axis.set_title(_short(part.version.iloc[0]) or library)
        bytes_axis(axis)
        axis.set_yscale("log", base=2)
        axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
        axis.set_xlabel("message size (bytes)")
    axes[0].set_ylabel("speedup over the default")
    handles = [plt.Line2D([], [], color=colours[n], label=f"N = {n}") for n in ranks]
    handles += [
        plt.Line2D(
            [],
            [],
            color="0.3",
            linestyle=style,
            marker=marker,
            markersize=2.5,
            label=f"{setting}'s selection",
        )
        for setting, style, marker in SELECTIONS
    ]
    handles.append(plt.Rectangle((0, 0), 1, 1, color="0.85", label="90% interval"))
    if libraries:
        legend_below(fig, handles)
    else:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "no library tuned", ha="center", va="center")
    fig.suptitle("MPI_Allreduce with our selection against the library's default, this machine")
    columns = ["library", "ranks", "selection", "message_bytes", "speedup", "low", "high"]
    return Plot(fig, pd.DataFrame(rows, columns=columns))


def _short(version: str) -> str:
    """A library's version string up to its platform ('... 2021.18.1 for Linux* OS')."""
    return str(version).split(" for ")[0] if isinstance(version, str) else ""
