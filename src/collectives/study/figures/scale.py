"""What scale changes: the cheapest all-reduce and the library's pick by N, and why."""

from __future__ import annotations

import pandas as pd
from matplotlib.patches import Patch

from ..units import format_bytes
from .nccl_choice import NCCL_COLOURS
from .style import Plot, colour, handles_of, label, legend_below, panels, seconds_axis

DIFFERS = "////"  # the hatch of a cell where the pick is not the cheapest
LATENCY_STYLE = {"ring": ("#A63603", "-", "o"), "tree": ("#08519C", "--", "s")}


def draw(scale: pd.DataFrame) -> Plot:
    """Four panels: on the CPU cluster's fabric, the cheapest algorithm per (N, size),
    hatched where the MPI library's rule picks another; on the GPU system, the library's
    pick, hatched where another of its algorithms is cheaper; under each, the ring's latency
    term against the latency-optimal algorithm's over N, beside the cheapest time of the
    smallest and largest size."""
    fig, axes = panels(4, height=2.3, columns=2, sharex=False)
    handles: dict[str, Patch] = {}
    for column, side in enumerate(("cluster", "gpu")):
        rows = scale[scale.side == side]
        cells, lines = axes[column], axes[column + 2]
        if rows.empty:
            for axis in (cells, lines):
                axis.set_title(f"no {'GPU system' if side == 'gpu' else 'fabric'} configured",
                               fontsize=7.5)  # fmt: skip
                axis.set_axis_off()
            continue
        where = rows["where"].iloc[0]
        if side == "cluster":
            _cells(cells, rows, "cheapest", colour, handles, label)
            pick = rows.pick.iloc[0].split(":")[0]
            cells.set_title(f"cheapest on {where} (flat α-β)\nhatched: {pick}'s rule "
                            "picks another", fontsize=7.5)  # fmt: skip
        else:
            picks = rows.pick.str.split(": ").str[1]
            _cells(cells, rows.assign(pick=picks), "pick", NCCL_COLOURS.__getitem__, handles,
                   lambda key: f"NCCL {key}", cheapest=rows.cheapest)  # fmt: skip
            library = rows.pick.iloc[0].split(":")[0].upper()
            cells.set_title(f"{library}'s pick on {where}, grown\nhatched: another of its "
                            "algorithms is cheaper", fontsize=7.5)  # fmt: skip
        _latencies(lines, rows, side)
    handles["differs"] = Patch(facecolor="white", edgecolor="0.3", hatch=DIFFERS,
                               label="the pick is not the cheapest")  # fmt: skip
    legend_below(fig, list(handles.values()) + handles_of(axes[2:]))
    fig.suptitle("What scale changes: the cheapest all-reduce by N, and the latency terms")
    return Plot(fig, scale.reset_index(drop=True))


def _cells(axis, rows, column, colour_of, handles, name_of, cheapest=None) -> None:
    """One band per message size, one cell per N, coloured by `column`; hatched where the
    pick differs from the cheapest."""
    ranks = sorted(rows.ranks.unique())
    sizes = sorted(rows.message_bytes.unique())
    other = rows.cheapest if cheapest is None else cheapest
    differs = rows.pick.str.split(": ").str[-1] != other
    for (_, row), hatched in zip(rows.iterrows(), differs, strict=True):
        x, y = ranks.index(row.ranks), sizes.index(row.message_bytes)
        axis.barh(y, 1, left=x - 0.5, height=0.92, color=colour_of(row[column]),
                  hatch=DIFFERS if hatched else None, edgecolor="0.3" if hatched else "none",
                  linewidth=0)  # fmt: skip
        handles.setdefault(row[column], Patch(color=colour_of(row[column]),
                                              label=name_of(row[column])))  # fmt: skip
    axis.set_xticks(range(len(ranks)), [_count(n) for n in ranks])
    axis.set_yticks(range(len(sizes)), [format_bytes(s) for s in sizes])
    axis.set_xlim(-0.5, len(ranks) - 0.5)
    axis.set_ylim(-0.5, len(sizes) - 0.5)
    axis.set_xlabel("N (ranks)")
    axis.set_ylabel("message size")
    axis.grid(False)


def _latencies(axis, rows, side) -> None:
    """The ring's latency term and the latency-optimal one's over N, with the cheapest time
    of the smallest and largest size for scale."""
    by_n = rows.groupby("ranks").first().sort_index()
    optimal = "recursive doubling" if side == "cluster" else "tree"
    for key, column, text in (("ring", "ring_latency_s", "ring"),
                              ("tree", "tree_latency_s", "latency-optimal")):  # fmt: skip
        shade, dashes, mark = LATENCY_STYLE[key]
        axis.plot(by_n.index, by_n[column], color=shade, linestyle=dashes, marker=mark,
                  markersize=3, label=f"{text}: latency term")  # fmt: skip
    for nbytes, shade in ((rows.message_bytes.min(), "0.55"), (rows.message_bytes.max(), "0.2")):
        whole = rows[rows.message_bytes == nbytes].set_index("ranks").cheapest_s.sort_index()
        axis.plot(whole.index, whole, color=shade, linestyle=":", linewidth=1.2,
                  label=f"cheapest, all of {format_bytes(nbytes)}")  # fmt: skip
    axis.set_xscale("log", base=2)
    ticks = by_n.index[:: max(1, len(by_n) // 4)]
    axis.set_xticks(ticks, [_count(n) for n in ticks])
    axis.minorticks_off()
    seconds_axis(axis)
    axis.set_xlabel("N (ranks)")
    axis.set_ylabel("time")
    axis.set_title(f"latency terms: ring and {optimal} ({rows['where'].iloc[0]})", fontsize=7.5)


def _count(ranks: int) -> str:
    """A rank count as it reads on an axis: 512, 8K, 128K."""
    return f"{ranks // 1024}K" if ranks >= 8192 and ranks % 1024 == 0 else str(ranks)
