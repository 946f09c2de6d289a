"""Each measured link class with its fitted α + β·bytes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...model.fabric import Fabric
from ..units import format_seconds
from .style import Plot, bytes_axis, legend_below, panels, seconds_axis

FIT_SAMPLES = 64  # points along each drawn fit line
FIT_COLOUR = "black"  # no algorithm's colour: the fit is not an algorithm


def draw(fabrics: list[dict]) -> Plot:
    """Each measured link class, one panel each: its one-way times with the fitted
    alpha + beta * bytes; the fit's parameters and quality in the panel's title."""
    links = [panel for data in fabrics for panel in Fabric.from_dict(data).fitted()]
    fig, axes = panels(max(len(links), 1), height=1.75, sharex=False)
    rows = []
    for axis, (title, link) in zip(axes, links, strict=False):
        nbytes = np.array(link.measurements["bytes"], dtype=float)
        seconds = np.array(link.measurements["seconds"], dtype=float)
        shown = np.maximum(nbytes, 0.5)  # a 0-byte message sits at 1/2 B on the log axis
        sizes = np.geomspace(0.5, max(nbytes.max(), 1), FIT_SAMPLES)
        fitted = link.time(sizes)
        axis.plot(shown, seconds, "o", markersize=2.5, color="0.45", label="measured")
        axis.plot(sizes, fitted, color=FIT_COLOUR, linewidth=1, label="fit: α + β·bytes")
        axis.set_title(
            f"{title}\nα {format_seconds(link.alpha)} · 1/β {1e-9 / link.beta:.3g} GB/s\n"
            f"R² {link.fit.r_squared:.3f} · max rel. err {link.fit.max_rel_residual:.0%}",
            fontsize=7,
        )
        bytes_axis(axis)
        seconds_axis(axis)
        axis.set_xlabel("message size (bytes)")
        rows += [
            {"link": title, "kind": "measured", "bytes": b, "plotted_bytes": x, "seconds": s}
            for b, x, s in zip(nbytes, shown, seconds, strict=True)
        ]
        rows += [{"link": title, "kind": "fit", "bytes": b, "plotted_bytes": b, "seconds": s}
                 for b, s in zip(sizes, fitted, strict=True)]  # fmt: skip
    if links:
        for axis in axes[:: min(4, len(axes))]:
            axis.set_ylabel("one-way time")
        legend_below(fig, axes[0].get_legend_handles_labels()[0])
    else:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "no measured fabric in the config", ha="center", va="center")
    fig.suptitle("Measured fabrics: one-way time and the fitted α + β·bytes")
    data = pd.DataFrame(rows, columns=["link", "kind", "bytes", "plotted_bytes", "seconds"])
    return Plot(fig, data)
