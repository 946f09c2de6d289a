"""Each measured link class with its fitted α + β·bytes."""

from __future__ import annotations

import numpy as np

from ...model.fabric import Fabric
from ..units import format_seconds
from .style import (
    bytes_axis,
    seconds_axis,
)


def draw(fabrics: list[dict]):
    """Each measured link class: its one-way times with the fitted alpha + beta * bytes."""
    panels = [panel for data in fabrics for panel in Fabric.from_dict(data).fitted()]
    fig, axes = panels(max(len(panels), 1), width=4.0, height=3.2, sharex=False)
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
