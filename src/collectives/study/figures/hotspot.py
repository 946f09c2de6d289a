"""Bytes through every rank, per algorithm."""

from __future__ import annotations

import pandas as pd
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ... import registry
from ...run.record import Record
from .style import COLUMN_WIDTH, Plot, colour, label, legend_below, panels

RECEIVED = 0.45  # opacity of the received bytes, stacked on the sent ones
UNITS = (("MiB", 2**20), ("KiB", 2**10), ("B", 1))


def table(records: list[Record]) -> pd.DataFrame:
    """Bytes sent and received by every rank of every record, in registry order."""
    records = sorted(records, key=lambda r: list(registry.ALGORITHMS).index(r.algorithm))
    return pd.DataFrame(
        {"algorithm": registry.variant_name(r.algorithm, r.parameters), "rank": rank,
         "sent_bytes": sent, "received_bytes": received}
        for r in records
        for rank, (sent, received) in enumerate(zip(r.bytes_sent, r.bytes_recv, strict=True))
    )  # fmt: skip


def draw(records: list[Record]) -> Plot:
    """Bytes sent (solid) and received (light, stacked) by every rank, one panel per
    algorithm (same N and M), two panels a row at column width, one y scale."""
    data = table(records)
    names = list(dict.fromkeys(data.algorithm))
    peak = (data.sent_bytes + data.received_bytes).max()
    unit, scale = next(((u, f) for u, f in UNITS if peak >= 4 * f), UNITS[-1])
    fig, axes = panels(len(names), height=1.3, columns=min(2, len(names)), sharex=False,
                       sharey=True, width=COLUMN_WIDTH)  # fmt: skip
    for axis, name in zip(axes, names, strict=True):
        rows = data[data.algorithm == name]
        sent, received = rows.sent_bytes / scale, rows.received_bytes / scale
        axis.bar(rows["rank"], sent, color=colour(name), width=0.8)
        axis.bar(rows["rank"], received, bottom=sent, color=colour(name), alpha=RECEIVED,
                 width=0.8)  # fmt: skip
        axis.set_title(label(name))
        axis.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
        axis.grid(axis="x", visible=False)
    for axis in axes[-min(2, len(names)) :]:
        axis.set_xlabel("rank")
    for axis in axes[::2]:
        axis.set_ylabel(unit)
    legend_below(fig, [Patch(color="0.35", label="sent"),
                       Patch(color="0.35", alpha=RECEIVED, label="received")])  # fmt: skip
    first = records[0]
    fig.suptitle(f"Bytes through each rank, N = {first.ranks}, M = {first.elements} "
                 f"{first.dtype}")  # fmt: skip
    return Plot(fig, data)
