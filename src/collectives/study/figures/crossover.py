"""The headline figure: modeled time against message size at one N, per fabric."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...model.cost import SEED_PAIR
from ..units import format_bytes
from .style import (
    bytes_axis,
    colour,
    label,
    marker,
    panels,
    seconds_axis,
)


def draw(
    costs: pd.DataFrame, crossover: pd.DataFrame, ranks: int, dtype: str, algorithms: Sequence[str]
):
    """Modeled time against message size at one N, a panel per fabric, crossover marked."""
    latency, bandwidth = SEED_PAIR
    costs = costs[(costs.ranks == ranks) & (costs.dtype == dtype)]
    fabrics = list(dict.fromkeys(costs.fabric))
    fig, axes = panels(len(fabrics))
    for axis, fabric in zip(axes, fabrics, strict=True):
        mine = costs[costs.fabric == fabric]
        for algorithm in algorithms:
            line = mine[mine.algorithm == algorithm]
            axis.plot(
                line.message_bytes, line.time_s, marker=marker(algorithm), markersize=3.5,
                color=colour(algorithm), label=label(algorithm),
            )  # fmt: skip
        point = crossover[
            (crossover.fabric == fabric) & (crossover.ranks == ranks) & (crossover.dtype == dtype)
        ]
        at = point.replayed_bytes.iloc[0] if len(point) else math.nan
        if np.isfinite(at):  # where ring overtakes recursive doubling for good
            axis.axvline(at, color="0.3", linestyle="--", linewidth=1)
            axis.annotate(
                f"{label(bandwidth)} beats\n{label(latency)}\nfrom {format_bytes(at)}",
                xy=(at, 0.97), xytext=(4, 0), xycoords=("data", "axes fraction"),
                textcoords="offset points", va="top", fontsize=8, color="0.2",
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "alpha": 0.85, "lw": 0},
            )  # fmt: skip
        axis.set_title(fabric)
        bytes_axis(axis)
        seconds_axis(axis)
    for axis in axes:
        axis.set_xlabel("message size (bytes)")
    for axis in axes[:: min(4, len(axes))]:
        axis.set_ylabel("modeled time (replayed)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(f"All-reduce cost on each fabric at N = {ranks} ranks ({dtype})", y=1.0)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig
