"""Where real workloads' all-reduces land on the phase map."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from ..units import format_bytes, format_seconds
from .phase import band_panel, intervals
from .style import GUIDE, Plot, colour, label, legend_below, panels

NEAR = 2.5  # log2 units of message size within which two markers at one N would touch
SPREAD = 0.4  # of a band's height: how far touching markers move off its middle
# a workload's marker: white, over the map, drawn whole at the panel's edge
MARKER = {"marker": "o", "linestyle": "none", "markerfacecolor": "white",
          "markeredgecolor": "black", "zorder": 5, "clip_on": False}  # fmt: skip
BEYOND = {"facecolor": "0.93", "edgecolor": "0.6", "hatch": "//", "linewidth": 0}
COLUMNS = ["number", "fabric", "workload", "group", "ranks", "message_bytes", "count_per_step",
           "winner", "per_step_s", "shown_bytes", "shown_row"]  # fmt: skip


def draw(
    costs: pd.DataFrame, workloads: pd.DataFrame, dtype: str, algorithms: Sequence[str]
) -> Plot:
    """Each workload's TP and DP all-reduces on the phase map of the fabric they run on.

    Each workload group is a numbered marker (a DP gradient's last, partial bucket a small
    one beside it), keyed below the panels with the map's colours, so that no label or
    leader line crosses the map; markers that would touch in one band of N are moved apart
    (see _spread). Sizes beyond the grid are hatched (priced by extending the counts
    linearly in M).
    """
    costs = costs[costs.dtype == dtype]
    fabrics = list(dict.fromkeys(workloads.fabric)) if len(workloads) else []
    bands = intervals(costs[costs.fabric.isin(fabrics)], algorithms)
    sizes = sorted(costs.message_bytes.unique())
    fig, axes = panels(max(len(fabrics), 1), height=2.0, sharex=False)
    shown = _spread(workloads, bands)
    keys, beyond = [], False
    for axis, fabric in zip(axes, fabrics, strict=False):
        band_panel(axis, bands[bands.fabric == fabric], sizes[0], sizes[-1])
        here = shown[shown.fabric == fabric]
        high = max(sizes[-1], here.shown_bytes.max() * 4)
        if high > sizes[-1]:
            axis.axvspan(sizes[-1], high, gid=GUIDE, **BEYOND)
            beyond = True
        axis.set_xlim(min(sizes[0], here.shown_bytes.min() / 2), high)
        for number, rows in here.groupby("number", sort=True):
            main, rest = rows.iloc[0], rows.iloc[1:]
            if len(rest):  # an empty unclipped line would void the layout
                axis.plot(rest.shown_bytes, rest.shown_row, markersize=4, **MARKER)
            axis.plot(main.shown_bytes, main.shown_row, markersize=8, **MARKER)
            axis.plot(main.shown_bytes, main.shown_row, marker=f"${number}$", markersize=4.5,
                      color="black", linestyle="none", zorder=6, clip_on=False)  # fmt: skip
            keys.append(_key(number, rows))
        axis.set_title(fabric)
        axis.set_xlabel("message size")
        axis.set_ylabel("ranks N")
    if fabrics:
        winners = [a for a in algorithms if a in set(bands.algorithm)]
        handles = [Patch(color=colour(a), label=label(a)) for a in winners]
        if beyond:
            handles.append(Patch(label="beyond the grid (counts extended)", **BEYOND))
        legend_below(fig, handles + keys)
    else:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "no workloads in the config", ha="center", va="center")
    return Plot(fig, shown[COLUMNS].reset_index(drop=True))


def _spread(workloads: pd.DataFrame, bands: pd.DataFrame) -> pd.DataFrame:
    """The workloads' messages, groups numbered panel by panel (the largest message first in
    each), on the band of their N in its fabric's panel; where markers in one band lie closer
    than NEAR in size, they take turns below and above its middle, and one that would still
    touch the marker two before moves right (shown_bytes) until it clears it."""
    if workloads.empty:
        return pd.DataFrame(columns=COLUMNS)
    fabrics = {fabric: i for i, fabric in enumerate(dict.fromkeys(workloads.fabric))}
    ranked = workloads.sort_values("fabric", key=lambda column: column.map(fabrics), kind="stable")
    order = {key: i + 1 for i, key in enumerate(
        dict.fromkeys(zip(ranked.workload, ranked.group, strict=True)))}  # fmt: skip
    table = workloads.assign(
        number=[order[key] for key in zip(workloads.workload, workloads.group, strict=True)]
    ).sort_values(["number", "message_bytes"], ascending=[True, False])
    offsets, nudges = pd.Series(0.0, index=table.index), pd.Series(0.0, index=table.index)
    octaves = np.log2(table.message_bytes.astype(float))
    for _, row in table.groupby(["fabric", "ranks"]):
        sizes = octaves[row.index].sort_values()
        cluster = np.concatenate([[0], np.cumsum(np.diff(sizes.to_numpy()) >= NEAR)])
        for _, members in sizes.groupby(cluster):
            if len(members) < 2:
                continue
            shown = members.to_numpy().copy()  # alternately below and above the middle,
            for index in range(2, len(shown)):  # each NEAR right of the one two before
                shown[index] = max(shown[index], shown[index - 2] + NEAR)
            nudges[members.index] = shown - members.to_numpy()
            offsets[members.index] = SPREAD * np.resize([-1.0, 1.0], len(members))
    rows = {(fabric, n): i for fabric, part in bands.groupby("fabric")
            for i, n in enumerate(sorted(part.ranks.unique()))}  # fmt: skip
    middle = [rows[key] for key in zip(table.fabric, table.ranks, strict=True)]
    return table.assign(shown_bytes=table.message_bytes * 2.0**nudges, shown_row=middle + offsets)


def _key(number: int, rows: pd.DataFrame) -> plt.Line2D:
    """The legend entry of one numbered group: its sizes, winner and time per step, and
    where the workload names a GPU system, the library's choice there and its time per step
    by the library's own model (the group's NCCL rows of workloads.csv)."""
    main = rows.iloc[0]
    sizes = f"{main.count_per_step}× {format_bytes(main.message_bytes)}"
    if len(rows) > 1:
        sizes += " + " + " + ".join(format_bytes(b) for b in rows.message_bytes[1:])
    text = (f"{main.workload} {main.group} (N={main.ranks}): {sizes} → {label(main.winner)}, "
            f"{format_seconds(rows.per_step_s.sum())}/step")  # fmt: skip
    if "nccl_per_step_s" in rows and rows.nccl_per_step_s.notna().all() and main.gpu_system:
        text += (f"; on {main.gpu_system}: {main.nccl_choice}, "
                 f"{format_seconds(rows.nccl_per_step_s.sum())}/step")  # fmt: skip
    return plt.Line2D([], [], marker=f"${number}$", color="black", linestyle="none",
                      markersize=6, label=text)  # fmt: skip
