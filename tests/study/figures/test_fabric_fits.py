"""The fabric fits figure: a panel per measured link class, readable at 1, 4 and 18."""

from __future__ import annotations

import numpy as np
import pytest

from collectives.model.fabric import Fabric, LinkClass
from collectives.model.fit import Points, fit_alpha_beta
from collectives.study.figures import fabric_fits
from tests.support.printed import assert_printed

SIZES = np.array([0, 1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576], float)


def measured_fabric(index: int, alpha: float, beta: float) -> dict:
    """A fabric whose one link class was fitted to noisy ping-pong points."""
    noise = 1 + 0.1 * np.sin(np.arange(len(SIZES)) + index)
    seconds = (alpha + beta * SIZES) * noise
    link = LinkClass(alpha, beta, "measured", fit_alpha_beta(Points(SIZES, seconds)),
                     {"bytes": SIZES.tolist(), "seconds": seconds.tolist()})  # fmt: skip
    return Fabric(f"fabric-{index:02d}", "measured", link).as_dict()


@pytest.mark.parametrize("count", [1, 4, 18])
def test_a_readable_panel_per_link_class_with_its_points_and_fit(count, tmp_path):
    fabrics = [
        measured_fabric(i, alpha, beta)
        for i, (alpha, beta) in enumerate(
            zip(np.geomspace(5e-5, 5e-7, count), np.geomspace(1e-9, 2e-11, count), strict=True)
        )
    ]
    plot = fabric_fits.draw(fabrics)
    titles = [axis.get_title().split("\n")[0] for axis in plot.figure.axes if axis.get_visible()]
    assert titles == [f"fabric-{i:02d}" for i in range(count)]
    data = assert_printed(plot, tmp_path, "fabric_fits")
    measured = data[data.kind == "measured"]
    assert len(measured) == count * len(SIZES)
    assert measured.plotted_bytes.min() == 0.5  # the 0-byte message, drawn at 1/2 B


def test_no_measured_fabric_says_so(tmp_path):
    plot = fabric_fits.draw([])
    assert plot.data.empty
    assert_printed(plot, tmp_path, "fabric_fits")
