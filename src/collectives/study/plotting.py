"""The study's figures, drawn from the pipeline's tables (matplotlib + seaborn).

Message sizes are bytes on a log axis with B/KiB/MiB ticks, times in s/ms/us, and every
algorithm keeps one colour across all figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .. import registry
from ..model import ladder
from ..model.cost import SEED_PAIR
from ..model.fabric import Fabric
from ..run.files import write_atomic
from ..run.record import Record
from .units import format_bytes, format_seconds
from .validation import within_factor

# The library all-reduces timed beside ours: how they are named and drawn.
# MPI_Allreduce runs in our mpi transport's own processes (MPICH), and in launches of its
# own for every configured library (MPI_Allreduce-{library}).
LIBRARY_LABELS = {
    "MPI_Allreduce": "MPI_Allreduce (MPICH, in our ranks)",
    "MPI_Allreduce-mpich": "MPI_Allreduce (MPICH)",
    "MPI_Allreduce-openmpi": "MPI_Allreduce (Open MPI)",
    "MPI_Allreduce-impi": "MPI_Allreduce (Intel MPI)", "gloo": "Gloo (torch.distributed)",
}  # fmt: skip
LIBRARY_STYLE = {
    "MPI_Allreduce": ("0.5", "--"), "MPI_Allreduce-mpich": ("black", "--"),
    "MPI_Allreduce-openmpi": ("black", ":"), "MPI_Allreduce-impi": ("0.3", (0, (6, 2, 1, 2, 1, 2))),
    "gloo": ("0.55", "-."),
}  # fmt: skip
# seaborn's colourblind-safe palette; each algorithm's colour index is in the registry.
_COLOURS = sns.color_palette("colorblind", 10)

sns.set_theme(context="paper", style="whitegrid", font_scale=1.1)


def label(name: str) -> str:
    """A readable name for an algorithm variant ('hierarchical-G8' -> 'hierarchical (G=8)')
    or a library all-reduce."""
    if name in LIBRARY_LABELS:
        return LIBRARY_LABELS[name]
    group = registry.parse_variant(name)[1]
    text = registry.get(name).label
    return f"{text} (G={group})" if group else text


def _colour(algorithm: str):
    return _COLOURS[registry.get(algorithm).style.colour]


def _marker(algorithm: str) -> str:
    return registry.get(algorithm).style.marker


def _dashes(algorithm: str):
    return registry.get(algorithm).style.dashes


def bytes_axis(axis, which: str = "x") -> None:
    """A log2 byte axis with ticks at powers of 16 (1 B, 16 B, 256 B, 4 KiB, ...)."""
    target = axis.xaxis if which == "x" else axis.yaxis
    (axis.set_xscale if which == "x" else axis.set_yscale)("log", base=2)
    target.set_major_locator(LogLocator(base=16, numticks=12))
    target.set_minor_locator(LogLocator(base=2, subs=(1.0,), numticks=64))
    target.set_major_formatter(FuncFormatter(format_bytes))
    target.set_minor_formatter(NullFormatter())


def seconds_axis(axis) -> None:
    """A log time axis with s/ms/us ticks."""
    axis.set_yscale("log")
    axis.yaxis.set_major_formatter(FuncFormatter(format_seconds))
    axis.yaxis.set_minor_formatter(NullFormatter())


def save_figure(fig, *paths: str | Path) -> None:
    """Write the figure to every path (format from the suffix), atomically."""
    for path in paths:
        fmt = Path(path).suffix.lstrip(".")
        write_atomic(path, lambda handle, f=fmt: fig.savefig(handle, format=f, dpi=150), "wb")
    plt.close(fig)


def _panels(count: int, width: float = 4.2, height: float = 3.2, sharex: bool = True):
    columns = min(4, count)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(width * columns, height * rows), squeeze=False, sharex=sharex
    )
    for extra in axes.flat[count:]:
        extra.set_visible(False)
    return fig, list(axes.flat[:count])


def crossover_figure(
    costs: pd.DataFrame, crossover: pd.DataFrame, ranks: int, dtype: str, algorithms: Sequence[str]
):
    """Modeled time against message size at one N, a panel per fabric, crossover marked."""
    latency, bandwidth = SEED_PAIR
    costs = costs[(costs.ranks == ranks) & (costs.dtype == dtype)]
    fabrics = list(dict.fromkeys(costs.fabric))
    fig, axes = _panels(len(fabrics))
    for axis, fabric in zip(axes, fabrics, strict=True):
        mine = costs[costs.fabric == fabric]
        for algorithm in algorithms:
            line = mine[mine.algorithm == algorithm]
            axis.plot(
                line.message_bytes, line.time_s, marker=_marker(algorithm), markersize=3.5,
                color=_colour(algorithm), label=label(algorithm),
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


def phase_figure(
    costs: pd.DataFrame, crossover: pd.DataFrame, dtype: str, algorithms: Sequence[str]
):
    """The (message size, N) plane coloured by the cheapest algorithm, one panel per fabric;
    black lines mark the size at which each algorithm starts to win, per N."""
    winners = costs[(costs.dtype == dtype) & costs.is_winner]
    fabrics = list(dict.fromkeys(winners.fabric))
    present = [a for a in algorithms if a in set(winners.algorithm)]
    fig, axes = _panels(len(fabrics))
    for axis, fabric in zip(axes, fabrics, strict=True):
        _phase_panel(axis, winners, crossover, fabric, dtype, present)
    for axis in axes[:: min(4, len(axes))]:
        axis.set_ylabel("ranks N")
    _phase_legend(fig, present)
    fig.suptitle(f"Cheapest all-reduce by message size and ranks ({dtype})", y=1.0)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def workloads_figure(
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
    fig, axes = _panels(max(len(fabrics), 1), width=6.5, height=5.0, sharex=False)
    markers = dict(zip(dict.fromkeys(workloads.workload), "o^sDvP*X", strict=False))
    for axis, fabric in zip(axes, fabrics, strict=False):
        _phase_panel(axis, winners, crossover, fabric, dtype, present)
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
    _phase_legend(fig, present)
    fig.suptitle("Where the workloads land: tensor- and data-parallel all-reduces", y=1.0)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def _phase_panel(axis, winners, crossover, fabric: str, dtype: str, present: list[str]) -> None:
    """One fabric's winner map with its thresholds (see phase_figure)."""
    colours = ListedColormap([_colour(a) for a in present])
    index = {a: i for i, a in enumerate(present)}
    grid = winners[winners.fabric == fabric].pivot_table(
        index="ranks", columns="message_bytes", values="algorithm", aggfunc="first"
    )
    sizes, ranks = grid.columns.to_numpy(float), grid.index.to_numpy(float)
    cells = grid.apply(lambda column: column.map(index)).to_numpy(float)
    axis.pcolormesh(_edges(sizes), _edges(ranks), cells, cmap=colours, vmin=-0.5,
                    vmax=len(present) - 0.5, shading="flat")  # fmt: skip
    bounds = crossover[(crossover.fabric == fabric) & (crossover.dtype == dtype)]
    for algorithm in present:  # the size at which each algorithm starts to win
        starts = bounds[bounds[f"{algorithm}_from_bytes"] > 0].sort_values("ranks")
        axis.plot(starts[f"{algorithm}_from_bytes"], starts.ranks, color="black", marker="o",
                  markersize=3, linewidth=1.2)  # fmt: skip
    axis.set_xlim(_edges(sizes)[0], _edges(sizes)[-1])
    axis.set_title(fabric)
    bytes_axis(axis)
    axis.set_yscale("log", base=2)
    axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    axis.set_xlabel("message size (bytes)")
    axis.grid(False)


def _phase_legend(fig, present: list[str]) -> None:
    handles = [Patch(color=_colour(a), label=label(a)) for a in present]
    handles.append(plt.Line2D([], [], color="black", marker="o", label="threshold"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False)


def _edges(values: np.ndarray) -> np.ndarray:
    """Cell edges for values on a log axis: geometric midpoints, extended at both ends."""
    values = np.asarray(values, dtype=float)
    if len(values) == 1:
        return np.array([values[0] / 2, values[0] * 2])
    middle = np.sqrt(values[:-1] * values[1:])
    return np.concatenate([[values[0] ** 2 / middle[0]], middle, [values[-1] ** 2 / middle[-1]]])


def counts_figure(measurements: pd.DataFrame, elements: int, dtype: str, algorithms: Sequence[str]):
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
            colour = _colour(algorithm)
            axis.plot(rows.ranks, rows[f"theory_{column}"] / norm, color=colour,
                      linestyle=_dashes(algorithm), linewidth=1.3)  # fmt: skip
            axis.plot(rows.ranks, rows[column] / norm, linestyle="none", marker=_marker(algorithm),
                      markerfacecolor="none", markeredgecolor=colour, markersize=7)  # fmt: skip
            if scale == "per-rank":  # the average rank, for contrast with the busiest one
                mean = 2 * rows.bytes_total / rows.ranks / norm
                axis.plot(rows.ranks, mean, color=colour, linestyle=":", linewidth=0.8)
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
        plt.Line2D([], [], color=_colour(a), linestyle=_dashes(a), marker=_marker(a),
                   markerfacecolor="none", label=label(a))
        for a in algorithms
    ]  # fmt: skip
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=9,
               title="lines: closed form · open markers: measured (coinciding counts overlap)",
               title_fontsize=9)  # fmt: skip
    fig.suptitle(f"Measured vs theoretical counts, M = {elements} elements ({dtype})")
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig


def hotspot_figure(records: list[Record]):
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
        colour = _colour(name)
        axis.bar(ranks, sent, color=colour, label="sent")
        axis.bar(ranks, received, bottom=sent, color=colour, alpha=0.45, label="received")
        axis.set_title(label(name))
        axis.set_xlabel("rank")
        axis.set_xticks(ranks)
    axes[0, 0].set_ylabel(f"bytes through the rank ({unit})")
    axes[0, 0].legend(fontsize=8)
    first = records[0]
    fig.suptitle(f"Where the bytes go: N = {first.ranks}, M = {first.elements} {first.dtype}")
    fig.tight_layout()
    return fig


def fabric_fits_figure(fabrics: list[dict]):
    """Each measured link class: its one-way times with the fitted alpha + beta * bytes."""
    panels = [panel for data in fabrics for panel in Fabric.from_dict(data).fitted()]
    fig, axes = _panels(max(len(panels), 1), width=4.0, height=3.2, sharex=False)
    for axis, (title, link) in zip(axes, panels, strict=False):
        nbytes = np.array(link.measurements["bytes"])
        seconds = np.array(link.measurements["seconds"])
        shown = np.maximum(nbytes, 0.5)  # a 0-byte message sits at 1/2 B on the log axis
        axis.plot(shown, seconds, "o", markersize=3.5, color="0.25", label="measured")
        sizes = np.geomspace(0.5, max(nbytes.max(), 1), 200)
        axis.plot(sizes, link.time(sizes), color="C3", label="fit")
        axis.text(
            0.03, 0.97,
            f"α = {format_seconds(link.alpha)}\n1/β = {1e-9 / link.beta:.3g} GB/s\n"
            f"R² = {link.fit.r_squared:.3f}, max rel. err {link.fit.max_rel_residual:.0%}",
            transform=axis.transAxes, va="top", fontsize=8,
        )  # fmt: skip
        axis.set_title(title)
        bytes_axis(axis)
        seconds_axis(axis)
        axis.set_xlabel("message size (bytes)")
    if not panels:
        axes[0].text(0.5, 0.5, "no measured fabric in the config", ha="center", va="center")
    axes[0].set_ylabel("one-way time")
    axes[0].legend(loc="lower right", fontsize=8)
    fig.suptitle(
        "Measured fabrics: one-way time and the fitted α + β·bytes (relative least squares)"
    )
    fig.tight_layout()
    return fig


def structure_figure(
    costs: pd.DataFrame, structure: dict | None, dtype: str, algorithms: Sequence[str]
):
    """On one two-level fabric at one N: every algorithm's replayed time (solid) against
    the flat model's prediction (dashed), and the winner under each, size by size."""
    fig = plt.figure(figsize=(9, 6.5))
    if not structure:
        fig.text(0.5, 0.5, "no two-level fabric chosen (figures.structure)", ha="center")
        return fig
    fabric, ranks = structure["fabric"], structure["ranks"]
    data = costs[(costs.fabric == fabric) & (costs.ranks == ranks) & (costs.dtype == dtype)]
    strip, axis = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1, 6]})
    present = [a for a in algorithms if a in set(data.algorithm)]
    for algorithm in present:
        rows = data[data.algorithm == algorithm].sort_values("message_bytes")
        colour = _colour(algorithm)
        axis.plot(rows.message_bytes, rows.time_s, color=colour, marker=_marker(algorithm),
                  markersize=3.5, label=label(algorithm))  # fmt: skip
        axis.plot(rows.message_bytes, rows.closed_form_s, color=colour, linestyle="--",
                  linewidth=1, alpha=0.8)  # fmt: skip
    sizes = np.sort(data.message_bytes.unique())
    edges = _edges(sizes)
    for row, column in enumerate(("closed_form_s", "time_s")):
        best = data.loc[data.groupby("message_bytes")[column].idxmin()].sort_values("message_bytes")
        for (low, high), algorithm in zip(pairwise(edges), best.algorithm, strict=True):
            strip.axvspan(low, high, ymin=row / 2, ymax=(row + 1) / 2, color=_colour(algorithm))
    strip.set_yticks([0.25, 0.75], ["flat model", "replayed"])
    strip.set_ylim(0, 1)
    strip.set_title("cheapest algorithm", fontsize=10)
    strip.grid(False)
    bytes_axis(axis)
    seconds_axis(axis)
    axis.set_xlim(edges[0], edges[-1])
    axis.set_xlabel("message size (bytes)")
    axis.set_ylabel("time")
    axis.legend(fontsize=8, loc="upper left", title="solid: replayed · dashed: flat model",
                title_fontsize=8)  # fmt: skip
    fig.suptitle(f"{fabric}: N = {ranks} ranks, structure against the flat α-β model ({dtype})")
    fig.tight_layout()
    return fig


def _timed_style(name: str) -> tuple:
    """(colour, line style, marker) of a timed entry: ours solid, the libraries dashed."""
    if name in LIBRARY_STYLE:
        return (*LIBRARY_STYLE[name], None)
    return _colour(name), "-", _marker(name)


def wallclock_figure(wallclock: pd.DataFrame):
    """Measured median time against message size, one panel per transport and N: our
    algorithms (solid) beside the library all-reduces timed on the same ranks (dashed)."""
    transports = list(dict.fromkeys(wallclock.transport))
    ranks = sorted(set(wallclock.ranks))
    fig, axes = plt.subplots(len(transports), len(ranks), squeeze=False, sharex=True,
                             figsize=(4.2 * len(ranks), 3.4 * len(transports)))  # fmt: skip
    names = list(dict.fromkeys(wallclock.algorithm))
    for row, transport in zip(axes, transports, strict=True):
        for axis, n in zip(row, ranks, strict=True):
            here = wallclock[(wallclock.transport == transport) & (wallclock.ranks == n)]
            for name in names:
                rows = here[here.algorithm == name].sort_values("message_bytes")
                if rows.empty:
                    continue
                colour, style, marker = _timed_style(name)
                axis.plot(rows.message_bytes, rows.time_median_s, color=colour, linestyle=style,
                          marker=marker, markersize=4, linewidth=1.3)  # fmt: skip
            axis.set_title(f"{transport} transport, N = {n}")
            bytes_axis(axis)
            seconds_axis(axis)
    for axis in axes[-1]:
        axis.set_xlabel("message size (bytes)")
    for row in axes:
        row[0].set_ylabel("median time per all-reduce")
    handles = [
        plt.Line2D([], [], color=colour, linestyle=style, marker=marker, label=label(n))
        for n in names
        for colour, style, marker in [_timed_style(n)]
    ]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), frameon=False)
    fig.suptitle("Wall-clock time on this machine: from-scratch algorithms and the libraries")
    fig.tight_layout(rect=(0, 0.05 * math.ceil(len(handles) / 4), 1, 1))
    return fig


def tuned_vs_default_figure(table: pd.DataFrame):
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


N_MARKERS = "os^Dv"


def validation_figure(validation: pd.DataFrame, clusters: pd.DataFrame):
    """Predicted against measured time, log-log with y = x (and a 2x band): one column per
    model of the ladder, one row per transport of this machine (colour: algorithm, marker:
    N) and a row for the real clusters (colour: cluster)."""
    transports = list(dict.fromkeys(validation.transport))
    rows, columns = len(transports) + (not clusters.empty), len(ladder.MODELS)
    fig, axes = plt.subplots(max(rows, 1), columns, squeeze=False,
                             figsize=(3.9 * columns, 3.9 * max(rows, 1)))  # fmt: skip
    for row, transport in zip(axes, transports, strict=False):
        data = validation[validation.transport == transport]
        ranks = sorted(set(data.ranks))
        for axis, model in zip(row, ladder.MODELS, strict=True):
            predicted = data.assign(predicted_s=data[ladder.column(model)])
            for (algorithm, n), points in predicted.groupby(["algorithm", "ranks"]):
                axis.plot(points.measured_s, points.predicted_s, linestyle="none",
                          marker=N_MARKERS[ranks.index(n) % len(N_MARKERS)], markersize=4.5,
                          markerfacecolor="none", color=_colour(algorithm),
                          label=f"{label(algorithm)}, N={n}")  # fmt: skip
            axis.set_title(f"{transport} ({data.fabric.iloc[0]}): {model}", fontsize=9)
            _accuracy(axis, predicted)
    if not clusters.empty:
        colours = sns.color_palette("Set1", len(set(clusters.cluster)))
        for axis, model in zip(axes[-1], ladder.MODELS, strict=True):
            predicted = clusters.assign(predicted_s=clusters[ladder.column(model)])
            groups = predicted.groupby("cluster", sort=False)
            for index, (colour, (name, points)) in enumerate(zip(colours, groups, strict=True)):
                axis.plot(points.measured_s, points.predicted_s, linestyle="none",
                          marker=N_MARKERS[index % len(N_MARKERS)], color=colour,
                          markersize=4.5, markerfacecolor="none",
                          label=f"{name} (N={points.ranks.iloc[0]})")  # fmt: skip
            axis.set_title(f"real clusters (osu_allreduce): {model}", fontsize=9)
            _accuracy(axis, predicted)
        axes[-1, -1].legend(fontsize=6.5, loc="lower right")
    for axis in axes[-1]:
        axis.set_xlabel("measured (median)")
    for axis in axes[:, 0]:
        axis.set_ylabel("predicted")
    if transports:
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=7,
                   frameon=False)  # fmt: skip
    fig.suptitle("The model ladder against the clock: each layer's prediction of every timed run")
    fig.tight_layout(rect=(0, 0.06 if transports else 0, 1, 1))
    return fig


def _accuracy(axis, data: pd.DataFrame) -> None:
    """The y = x frame and the panel's median |error| and share within 2x."""
    _identity(axis, data)
    rel_error = data.predicted_s / data.measured_s - 1
    within = within_factor(rel_error, 2).mean()
    axis.text(0.03, 0.97, f"median |error| {rel_error.abs().median():.0%}\n"
              f"within 2x: {within:.0%} of {len(data)}", transform=axis.transAxes,
              va="top", fontsize=8)  # fmt: skip


def _identity(axis, data: pd.DataFrame) -> None:
    """Log-log axes with the y = x line and the band within a factor 2 of it."""
    values = np.concatenate([data.measured_s, data.predicted_s])
    values = values[values > 0]
    low, high = values.min() / 2, values.max() * 2
    line = np.array([low, high])
    axis.plot(line, line, color="black", linewidth=1)
    axis.fill_between(line, line / 2, line * 2, color="0.9", zorder=0)
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    # Labels at 1, 2, 5 x 10^k when the range spans less than two decades, else decades.
    subs = (1.0, 2.0, 5.0) if high / low < 100 else (1.0,)
    for setter, target in ((axis.set_xscale, axis.xaxis), (axis.set_yscale, axis.yaxis)):
        setter("log")
        target.set_major_locator(LogLocator(subs=subs))
        target.set_major_formatter(FuncFormatter(format_seconds))
        target.set_minor_formatter(NullFormatter())
