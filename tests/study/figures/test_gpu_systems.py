"""The GPU systems figure: a panel per system, its library's clock beside each rung's."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from collectives.study.figures import gpu_systems
from tests.support.printed import assert_printed

SIZES = [8 * 4**k for k in range(12)]
RUNGS = ["link_alpha_beta_s", "nccl_model_s", "nccl_replay_s"]


@pytest.mark.parametrize("systems", [1, 10])
def test_a_panel_per_system_with_each_rung_s_median_ratio(systems, tmp_path):
    rows = [{"system": f"system-{s}", "ranks": 8 * (s + 1), "message_bytes": m,
             "library": "rccl" if s % 2 else "nccl",
             "measured_s": 2e-5 + m / 1e11, "link_alpha_beta_s": 1e-6 + m / 2e11,
             "nccl_model_s": 1e-5 + m / 1e11, "nccl_replay_s": math.nan if s else 3e-5}
            for s in range(systems) for m in SIZES]  # fmt: skip
    plot = gpu_systems.draw(pd.DataFrame(rows))
    titles = [axis.get_title() for axis in plot.figure.axes if axis.get_visible()]
    assert len(titles) == systems and titles[0].startswith("system-0 (NCCL, N = 8)")
    ratio = pd.Series([(1e-6 + m / 2e11) / (2e-5 + m / 1e11) for m in SIZES]).median()
    assert f"\nα-β {ratio:.2g}, own" in titles[0]
    assert all(title.startswith(f"system-{s} (RCCL") for s, title in enumerate(titles) if s % 2)
    assert titles[-1].endswith("replay n/a") == (systems > 1)  # no prediction: said so
    data = assert_printed(plot, tmp_path, "gpu_systems")
    assert len(data) == 4 * len(rows) and set(data.series) == {"measured_s", *RUNGS}


def test_no_system_says_so(tmp_path):
    empty = pd.DataFrame(
        columns=["system", "ranks", "library", "message_bytes", "measured_s", *RUNGS]
    )
    plot = gpu_systems.draw(empty)
    assert "no GPU system" in [t.get_text() for t in plot.figure.axes[0].texts]


def test_a_rung_equal_to_another_is_said_and_drawn_hollow(tmp_path):
    rows = [{"system": "nvls", "ranks": 8, "library": "nccl", "message_bytes": m,
             "measured_s": 2e-5 + m / 1e11, "link_alpha_beta_s": 1e-6 + m / 2e11,
             "nccl_model_s": 1e-5 + m / 1e11, "nccl_replay_s": 1e-5 + m / 1e11}
            for m in SIZES]  # fmt: skip
    plot = gpu_systems.draw(pd.DataFrame(rows))
    axis = plot.figure.axes[0]
    assert axis.get_title().endswith("own 0.51, replay 0.51 (= own)")
    replay = next(line for line in axis.lines if line.get_color() == "#009E73")
    assert replay.get_linestyle() == "None" and replay.get_markerfacecolor() == "none"
    assert_printed(plot, tmp_path, "gpu_systems")
