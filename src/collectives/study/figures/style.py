"""What every figure shares: one colour, marker and line style per algorithm (from the
registry, on seaborn's colour-blind palette), readable byte and time axes, panel grids,
and saving a figure beside the data it plots."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ... import registry
from ...run.files import write_atomic
from ...run.libraries import KINDS
from ..units import format_bytes, format_seconds

# The library all-reduces timed beside ours: how they are named and drawn. MPI_Allreduce
# runs in our mpi transport's own processes (MPICH), and in launches of its own for every
# configured library (MPI_Allreduce-{library}, drawn as that library's module says).
LIBRARY_LABELS = {
    "MPI_Allreduce": "MPI_Allreduce (MPICH, in our ranks)",
    **{f"MPI_Allreduce-{name}": f"MPI_Allreduce ({kind.title})" for name, kind in KINDS.items()},
    "gloo": "Gloo (torch.distributed)",
}
LIBRARY_STYLE = {
    "MPI_Allreduce": ("0.5", "--"),
    **{f"MPI_Allreduce-{name}": kind.style for name, kind in KINDS.items()},
    "gloo": ("0.55", "-."),
}


# seaborn's colourblind-safe palette of 10; each algorithm's colour index is in the registry
# (or the first free one), and colours beyond the tenth are husl hues between its own.
COLOURS = sns.color_palette("colorblind", 10)


@functools.cache
def palette(count: int) -> list[tuple[float, float, float]]:
    """`count` distinct colours: the colour-blind palette's, then evenly spaced husl hues."""
    return list(COLOURS[:count]) + sns.color_palette("husl", max(0, count - len(COLOURS)))


def colour_indices(algorithms: Mapping[str, registry.Algorithm]) -> dict[str, int]:
    """Each algorithm's colour index: the one its style names, else the first that no
    algorithm names and no earlier one took, in registry order."""
    named = {name: a.style.colour for name, a in algorithms.items() if a.style.colour is not None}
    free = (index for index in itertools.count() if index not in named.values())
    return {name: named[name] if name in named else next(free) for name in algorithms}


# Printed widths (inches) of a journal's single and double column: every figure is drawn
# at the width it is printed at, so that its font sizes are the printed sizes.
COLUMN_WIDTH = 3.5
PAGE_WIDTH = 7.2
SMALLEST_FONT = 7.0  # points, at the printed width
INCHES_PER_BYTES_LABEL = 0.36  # room a byte tick label ('256 KiB') needs along an x axis
LEGEND_ROW = 0.15  # inches per row of legend entries

sns.set_theme(context="paper", style="whitegrid")
plt.rcParams.update({
    "font.size": 8, "axes.titlesize": 8.5, "axes.labelsize": 8, "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5, "legend.fontsize": 7.5, "legend.title_fontsize": 7.5,
    "figure.titlesize": 9, "pdf.fonttype": 42, "ps.fonttype": 42,  # embed TrueType fonts
    "savefig.bbox": "tight", "savefig.pad_inches": 0.02,
})  # fmt: skip


@dataclass
class Plot:
    """A drawn figure and the data it shows (long format), saved side by side so that a
    reader can re-plot or check every point."""

    figure: Figure
    data: pd.DataFrame


def label(name: str) -> str:
    """A readable name for an algorithm variant ('hierarchical-G8' -> 'hierarchical (G=8)')
    or a library all-reduce."""
    if name in LIBRARY_LABELS:
        return LIBRARY_LABELS[name]
    algorithm, given = registry.parse_variant(name)
    letters = {p.name: p.letter for p in registry.get(algorithm).parameters}
    settings = ", ".join(f"{letters[key]}={value}" for key, value in given.items())
    text = registry.get(algorithm).label
    return f"{text} ({settings})" if settings else text


def colour(algorithm: str):
    """The algorithm's colour (the same in every figure)."""
    indices = colour_indices(registry.ALGORITHMS)
    return palette(max(indices.values()) + 1)[indices[registry.get(algorithm).name]]


def marker(algorithm: str) -> str:
    """The algorithm's marker (the same in every figure)."""
    return registry.get(algorithm).style.marker


def dashes(algorithm: str):
    """The algorithm's line style (the same in every figure)."""
    return registry.get(algorithm).style.dashes


def bytes_axis(axis, which: str = "x") -> None:
    """A log2 byte axis with ticks at powers of 16 (1 B, 16 B, 256 B, 4 KiB, ...), every
    other one or fewer where the panel is too narrow for all their labels."""
    target = axis.xaxis if which == "x" else axis.yaxis
    (axis.set_xscale if which == "x" else axis.set_yscale)("log", base=2)
    box = axis.get_position()
    length = box.width * axis.figure.get_figwidth() if which == "x" else (
        box.height * axis.figure.get_figheight())  # fmt: skip
    labels = max(2, int(length / INCHES_PER_BYTES_LABEL))
    target.set_major_locator(LogLocator(base=16, numticks=labels))
    target.set_minor_locator(LogLocator(base=2, subs=(1.0,), numticks=64))
    target.set_major_formatter(FuncFormatter(format_bytes))
    target.set_minor_formatter(NullFormatter())


def seconds_axis(axis) -> None:
    """A log time axis with s/ms/us ticks."""
    axis.set_yscale("log")
    axis.yaxis.set_major_formatter(FuncFormatter(format_seconds))
    axis.yaxis.set_minor_formatter(NullFormatter())


def save(plot: Plot, *paths: str | Path) -> None:
    """Write the figure (.png, .pdf) and its data (.csv) to each path by suffix, atomically."""
    for path in paths:
        fmt = Path(path).suffix.lstrip(".")
        if fmt == "csv":
            write_atomic(path, lambda handle: plot.data.to_csv(handle, index=False))
        else:
            write_atomic(
                path, lambda handle, f=fmt: plot.figure.savefig(handle, format=f, dpi=300), "wb"
            )
    plt.close(plot.figure)


def panels(
    count: int,
    height: float = 1.9,
    columns: int | None = None,
    sharex: bool = True,
    sharey: bool = False,
    width: float | None = None,
):
    """A grid of `count` panels `width` inches wide (default: a column for one panel, a
    page for more; at most four per row), each `height` inches tall (title included), every
    one with its own tick labels (shared axes keep their limits, not their labels hidden);
    legend_below makes room for the legend."""
    width = width or (COLUMN_WIDTH if count == 1 else PAGE_WIDTH)
    columns = columns or min(4, count)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(width, height * rows + 0.3), squeeze=False, sharex=sharex,
        sharey=sharey, layout="constrained",
    )  # fmt: skip
    for extra in axes.flat[count:]:
        extra.set_visible(False)
    for axis in axes.flat[:count]:
        axis.tick_params(labelbottom=True, labelleft=True)
    return fig, list(axes.flat[:count])


def legend_below(fig: Figure, handles: list, title: str | None = None) -> None:
    """The figure's legend under its panels, outside the data, in as many columns as fit
    the figure's width (labels measured in characters of the legend font); the figure
    grows by the legend's height, so that the panels keep theirs."""
    font = plt.rcParams["legend.fontsize"] / 72  # inches per character, about
    widest = max(len(handle.get_label()) for handle in handles) * 0.55 * font + 0.5
    columns = max(1, min(len(handles), int(fig.get_figwidth() // widest)))
    rows = math.ceil(len(handles) / columns) + (title is not None)
    fig.set_figheight(fig.get_figheight() + rows * LEGEND_ROW + 0.1)
    fig.legend(handles=handles, loc="outside lower center", ncol=columns, frameon=False,
               title=title)  # fmt: skip


def algorithm_handle(name: str, **style) -> plt.Line2D:
    """A legend entry drawn as the algorithm's lines are (colour, marker, line style)."""
    return plt.Line2D([], [], color=colour(name), marker=marker(name), linestyle=dashes(name),
                      label=label(name), **style)  # fmt: skip


def handles_of(axes) -> list:
    """Every distinct labelled artist of `axes`, first seen first (panels may differ in
    which algorithms they tie)."""
    found: dict[str, object] = {}
    for axis in axes:
        for handle, text in zip(*axis.get_legend_handles_labels(), strict=True):
            found.setdefault(text, handle)
    return list(found.values())


def plot_series(axis, x, series: dict[str, np.ndarray], **style) -> list[tuple[str, ...]]:
    """Draw one line per algorithm; algorithms whose values coincide at every x (both NaN
    where neither has a value) share one line labelled "a = b", so that no series hides under
    another. Returns the tied groups."""
    groups: list[tuple[list[str], np.ndarray]] = []
    for name, values in series.items():
        values = np.asarray(values, dtype=float)
        for names, shown in groups:
            if shown.shape == values.shape and np.allclose(
                shown, values, rtol=1e-9, atol=0, equal_nan=True
            ):
                names.append(name)
                break
        else:
            groups.append(([name], values))
    for names, values in groups:
        axis.plot(x, values, color=colour(names[0]), marker=marker(names[0]),
                  linestyle=dashes(names[0]), label=" = ".join(label(n) for n in names),
                  **style)  # fmt: skip
    return [tuple(names) for names, _ in groups if len(names) > 1]


def edges(values: np.ndarray) -> np.ndarray:
    """Cell edges for values on a log axis: geometric midpoints, extended at both ends."""
    values = np.asarray(values, dtype=float)
    if len(values) == 1:
        return np.array([values[0] / 2, values[0] * 2])
    middle = np.sqrt(values[:-1] * values[1:])
    return np.concatenate([[values[0] ** 2 / middle[0]], middle, [values[-1] ** 2 / middle[-1]]])


# gid of reference artists (y = x, a band, a threshold): guides that text and legends may
# cross, unlike data (tests/study/figures/readable.py skips them)
GUIDE = "guide"
