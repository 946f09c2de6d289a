"""The GPU systems figure: a panel per system, NCCL's clock beside each rung's prediction."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from collectives.study.figures import gpu_systems
from tests.support.printed import assert_printed

SIZES = [8 * 4**k for k in range(12)]
RUNGS = ["link_alpha_beta_s", "nccl_model_s", "nccl_replay_s"]


@pytest.mark.parametrize("systems", [1, 6])
def test_a_panel_per_system_with_each_rung_s_median_ratio(systems, tmp_path):
    rows = [{"system": f"system-{s}", "ranks": 8 * (s + 1), "message_bytes": m,
             "measured_s": 2e-5 + m / 1e11, "link_alpha_beta_s": 1e-6 + m / 2e11,
             "nccl_model_s": 1e-5 + m / 1e11, "nccl_replay_s": math.nan if s else 3e-5}
            for s in range(systems) for m in SIZES]  # fmt: skip
    plot = gpu_systems.draw(pd.DataFrame(rows))
    titles = [axis.get_title() for axis in plot.figure.axes if axis.get_visible()]
    assert len(titles) == systems and titles[0].startswith("system-0 (N = 8)")
    ratio = pd.Series([(1e-6 + m / 2e11) / (2e-5 + m / 1e11) for m in SIZES]).median()
    assert f"\nα-β {ratio:.2g}, NCCL" in titles[0]
    assert titles[-1].endswith("replay n/a") == (systems > 1)  # no prediction: said so
    data = assert_printed(plot, tmp_path)
    assert len(data) == 4 * len(rows) and set(data.series) == {"measured_s", *RUNGS}


def test_no_system_says_so(tmp_path):
    empty = pd.DataFrame(columns=["system", "ranks", "message_bytes", "measured_s", *RUNGS])
    plot = gpu_systems.draw(empty)
    assert "no GPU system" in [t.get_text() for t in plot.figure.axes[0].texts]
