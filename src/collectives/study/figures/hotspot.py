"""Bytes through every rank, per algorithm."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import registry
from ...run.record import Record
from .style import (
    colour,
    label,
)


def draw(records: list[Record]):
    """Bytes sent and received by every rank, one panel per algorithm (same N and M)."""
    records = sorted(records, key=lambda r: list(registry.ALGORITHMS).index(r.algorithm))
    names = [registry.variant_name(r.algorithm, r.ranks_per_node) for r in records]
    fig, axes = plt.subplots(
        1, len(records), figsize=(3.6 * len(records), 3.4), sharey=True, squeeze=False
    )
    peak = max(max(np.add(r.bytes_sent, r.bytes_recv)) for r in records)
    unit, scale = next(
        ((u, f) for u, f in (("MiB", 2**20), ("KiB", 2**10), ("B", 1)) if peak >= 4 * f),
        ("B", 1),
    )
    for axis, record, name in zip(axes[0], records, names, strict=True):
        ranks = np.arange(record.ranks)
        sent = np.array(record.bytes_sent) / scale
        received = np.array(record.bytes_recv) / scale
        shade = colour(name)
        axis.bar(ranks, sent, color=shade, label="sent")
        axis.bar(ranks, received, bottom=sent, color=shade, alpha=0.45, label="received")
        axis.set_title(label(name))
        axis.set_xlabel("rank")
        axis.set_xticks(ranks)
    axes[0, 0].set_ylabel(f"bytes through the rank ({unit})")
    axes[0, 0].legend(fontsize=8)
    first = records[0]
    fig.suptitle(f"Where the bytes go: N = {first.ranks}, M = {first.elements} {first.dtype}")
    fig.tight_layout()
    return fig
