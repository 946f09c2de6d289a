"""Where real workloads' all-reduces land on the phase map."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..units import format_bytes, format_seconds
from .phase import phase_legend, phase_panel
from .style import (
    label,
    panels,
)


def draw(
    costs: pd.DataFrame,
    crossover: pd.DataFrame,
    workloads: pd.DataFrame,
    dtype: str,
    algorithms: Sequence[str],
):
    """Each workload's TP and DP all-reduces on the phase map of the fabric they run on.

    One marker per message size (a DP gradient is full buckets plus a remainder), one label
    per workload and group, stacked at the panel's top left so that labels never collide;
    sizes beyond the measured grid are hatched (priced by extending the counts linearly in M).
    """
    winners = costs[(costs.dtype == dtype) & costs.is_winner]
    fabrics = list(dict.fromkeys(workloads.fabric)) if len(workloads) else []
    present = [a for a in algorithms if a in set(winners[winners.fabric.isin(fabrics)].algorithm)]
    fig, axes = panels(max(len(fabrics), 1), width=6.5, height=5.0, sharex=False)
    markers = dict(zip(dict.fromkeys(workloads.workload), "o^sDvP*X", strict=False))
    for axis, fabric in zip(axes, fabrics, strict=False):
        phase_panel(axis, winners, crossover, fabric, dtype, present)
        grid_low, grid_high = axis.get_xlim()
        here = workloads[workloads.fabric == fabric]
        low = min(grid_low, here.message_bytes.min() / 2)
        high = max(grid_high, here.message_bytes.max() * 4)
        if high > grid_high:
            axis.axvspan(grid_high, high, facecolor="0.93", edgecolor="0.6", hatch="//", lw=0)
            axis.text(grid_high * 1.1, axis.get_ylim()[0] * 1.05, "beyond the grid",
                      fontsize=7, color="0.35", rotation=90, va="bottom")  # fmt: skip
        axis.set_xlim(low, high)
        for order, ((workload, group), rows) in enumerate(
            here.groupby(["workload", "group"], sort=False)
        ):
            rows = rows.sort_values("message_bytes", ascending=False)
            for row in rows.itertuples():
                axis.plot(row.message_bytes, row.ranks, marker=markers[workload], ls="none",
                          markersize=10 if row.Index == rows.index[0] else 6,
                          markerfacecolor="white", markeredgecolor="black", zorder=5)  # fmt: skip
            main = rows.iloc[0]
            sizes = f"{main.count_per_step}× {format_bytes(main.message_bytes)}"
            if len(rows) > 1:
                sizes += " + " + " + ".join(format_bytes(b) for b in rows.message_bytes[1:])
            axis.annotate(
                f"{workload} {group} (N={main.ranks}): {sizes}\n"
                f"→ {label(main.winner)}, {format_seconds(rows.per_step_s.sum())}/step",
                xy=(main.message_bytes, main.ranks), xytext=(0.03, 0.97 - 0.14 * order),
                textcoords="axes fraction", va="top", fontsize=7.5, zorder=6,
                bbox={"boxstyle": "round", "fc": "white", "alpha": 0.9},
                arrowprops={"arrowstyle": "->", "color": "black", "lw": 0.8},
            )  # fmt: skip
        axis.set_ylabel("ranks N")
    if not fabrics:
        axes[0].text(0.5, 0.5, "no workloads in the config", ha="center", va="center")
    phase_legend(fig, present)
    fig.suptitle("Where the workloads land: tensor- and data-parallel all-reduces", y=1.0)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig
