"""GPU systems: the library's measured all-reduce time (NCCL or RCCL) beside each rung's."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ..gpu import LINK_RUNG, NCCL_RUNG, REPLAY_RUNG
from .style import Plot, bytes_axis, legend_below, panels, seconds_axis

COLUMNS = ["system", "ranks", "message_bytes", "series", "time_s"]
SERIES = {  # what is drawn: column -> (legend label, line style)
    "measured_s": ("measured (nccl-tests or rccl-tests, out of place)",
                   {"color": "black", "marker": "o"}),
    f"{LINK_RUNG}_s": ("link-level α-β: the cheapest algorithm, replayed",
                       {"color": "#0072B2", "marker": "s", "linestyle": "--"}),
    f"{NCCL_RUNG}_s": ("the library's own model (NCCL's, RCCL's): its choice",
                       {"color": "#D55E00", "marker": "^", "linestyle": "-."}),
    f"{REPLAY_RUNG}_s": ("the library's choice replayed from our traces, at its costs",
                         {"color": "#009E73", "marker": "D", "linestyle": ":"}),
}  # fmt: skip
SHORT = {LINK_RUNG: "α-β", NCCL_RUNG: "own", REPLAY_RUNG: "replay"}  # the titles' names


def draw(validation: pd.DataFrame) -> Plot:
    """Time against message size, one panel per GPU system (its library named): the
    library's clock and each rung's prediction, each rung's median predicted/measured in
    the panel's title (n/a where a rung has no prediction for the system)."""
    systems = list(dict.fromkeys(validation.system))
    fig, axes = panels(max(len(systems), 1), height=1.9, columns=min(3, max(len(systems), 1)))
    data = []
    for axis, system in zip(axes, systems, strict=False):
        rows = validation[validation.system == system]
        same = _same_as(rows)
        for column, (label, style) in SERIES.items():
            hidden = {"linestyle": "none", "markerfacecolor": "none"} if column in same else {}
            axis.plot(rows.message_bytes, rows[column], label=label, markersize=2.5,
                      linewidth=1, **(style | hidden))  # fmt: skip
            shown = rows[["system", "ranks", "message_bytes"]]
            data.append(shown.assign(series=column, time_s=rows[column]))
        ratios = ", ".join(
            f"{short} {_ratio(rows, rung)}"
            + (f" (= {SHORT[same[f'{rung}_s'][:-2]]})" if f"{rung}_s" in same else "")
            for rung, short in SHORT.items()
        )
        library = rows.library.iloc[0].upper()
        axis.set_title(f"{system} ({library}, N = {rows.ranks.iloc[0]})\n{ratios}", fontsize=7)
        bytes_axis(axis)
        seconds_axis(axis)
    columns = min(3, len(axes))
    for index, axis in enumerate(axes[: max(len(systems), 1)]):
        if index + columns >= len(systems):  # no panel below it
            axis.set_xlabel("message size")
    for axis in axes[::columns]:
        axis.set_ylabel("time")
    if systems:
        handles = [plt.Line2D([], [], label=label, markersize=3, **style)
                   for label, style in SERIES.values()]  # fmt: skip
        legend_below(fig, handles)
    else:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "no GPU system", ha="center", va="center")
    fig.suptitle("GPU systems: NCCL's and RCCL's all-reduce against the models "
                 "(each panel: median predicted/measured)")  # fmt: skip
    table = pd.concat(data) if data else pd.DataFrame(columns=COLUMNS)
    return Plot(fig, table[COLUMNS].reset_index(drop=True))


def _ratio(rows: pd.DataFrame, rung: str) -> str:
    """A rung's median predicted/measured over a system's sizes, or n/a."""
    ratio = (rows[f"{rung}_s"] / rows.measured_s).median()
    return "n/a" if pd.isna(ratio) else f"{ratio:.2g}"


def _same_as(rows: pd.DataFrame) -> dict[str, str]:
    """The rungs whose prediction equals an earlier rung's at every size, each with that
    rung's column: drawn as hollow markers on the other's line, and said in the title."""
    rungs = [f"{rung}_s" for rung in SHORT]
    same = {}
    for later, column in enumerate(rungs):
        for earlier in rungs[:later]:
            values, other = rows[column], rows[earlier]
            if values.notna().all() and (values - other).abs().le(1e-9 * other.abs()).all():
                same[column] = earlier
                break
    return same
