"""The (message size, N) plane coloured by the cheapest algorithm, per fabric."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from matplotlib.patches import Patch

from ...model.cost import among, ranges
from .style import Plot, bytes_axis, colour, label, legend_below, panels


def intervals(costs: pd.DataFrame, algorithms: Sequence[str]) -> pd.DataFrame:
    """Per fabric and N, the message-size intervals [from, to) in which each algorithm is
    the cheapest of `algorithms` (boundaries where the times cross between grid sizes)."""
    rows = []
    for (fabric, ranks), group in among(costs, list(algorithms)).groupby(
        ["fabric", "ranks"], sort=False
    ):
        for low, high, winner in ranges(group):
            rows.append({"fabric": fabric, "ranks": ranks, "from_bytes": low, "to_bytes": high,
                         "algorithm": winner})  # fmt: skip
    return pd.DataFrame(rows, columns=["fabric", "ranks", "from_bytes", "to_bytes", "algorithm"])


def draw(costs: pd.DataFrame, dtype: str, algorithms: Sequence[str]) -> Plot:
    """The cheapest algorithm over (message size, N), one panel per fabric and one band per
    N; each band's colours change where the times cross, so the boundaries are the
    thresholds (the data: one row per band and interval)."""
    costs = costs[costs.dtype == dtype]
    data = intervals(costs, algorithms)
    fabrics = list(dict.fromkeys(data.fabric))
    sizes = sorted(costs.message_bytes.unique())
    fig, axes = panels(len(fabrics), height=1.9, sharey=True)
    for axis, fabric in zip(axes, fabrics, strict=True):
        band_panel(axis, data[data.fabric == fabric], sizes[0], sizes[-1])
        axis.set_title(fabric)
        axis.set_xlabel("message size")
    for axis in axes[:: min(4, len(axes))]:
        axis.set_ylabel("ranks N")
    winners = [a for a in algorithms if a in set(data.algorithm)]
    legend_below(fig, [Patch(color=colour(a), label=label(a)) for a in winners],
                 title="cheapest (boundaries where the modeled times cross)")  # fmt: skip
    fig.suptitle(f"Cheapest all-reduce by message size and ranks ({dtype})")
    return Plot(fig, data)


def band_panel(axis, data: pd.DataFrame, smallest: float, largest: float) -> None:
    """One fabric: a horizontal band per N, split at its boundaries, the grid's sizes
    shown (first and last interval clipped to them), every N labelled."""
    ranks = sorted(data.ranks.unique())
    row = {n: index for index, n in enumerate(ranks)}
    for item in data.itertuples():
        low, high = max(item.from_bytes, smallest), min(item.to_bytes, largest)
        axis.barh(row[item.ranks], high - low, left=low, height=0.9, color=colour(item.algorithm),
                  linewidth=0)  # fmt: skip
    axis.set_xlim(smallest, largest)
    axis.set_ylim(-0.5, len(ranks) - 0.5)
    bytes_axis(axis)
    axis.set_yticks(range(len(ranks)), [str(n) for n in ranks])
    axis.grid(False)
