"""The validation figure: a column per model, a row per transport and the clusters."""

from __future__ import annotations

import numpy as np
import pandas as pd

from collectives.model import ladder
from collectives.study.figures import validation
from tests.support.printed import assert_printed


def predicted(rows: list[dict], seed: int) -> pd.DataFrame:
    """`rows` with a measured time and each model's prediction within a factor 3 of it."""
    table = pd.DataFrame(rows)
    noise = np.random.default_rng(seed).uniform(1 / 3, 3, (len(ladder.MODELS), len(table)))
    table["measured_s"] = 1e-5 * (1 + table.message_bytes / 1e4)
    for model, factor in zip(ladder.MODELS, noise, strict=True):
        table[ladder.column(model)] = table.measured_s * factor
    return table


def test_legends_below_every_point_in_a_panel_and_in_the_csv(tmp_path):
    machine = predicted([{"transport": t, "fabric": f"local-{t}", "algorithm": a, "ranks": n,
                          "message_bytes": 8 * 4**k}
                         for t in ("queue", "mpi") for a in ("ring", "recursive_doubling")
                         for n in (2, 4, 8) for k in range(10)], 0)  # fmt: skip
    clusters = predicted([{"cluster": c, "ranks": n, "message_bytes": 4 * 4**k}
                          for c, n in (("a-16", 16), ("b-128", 128), ("c-144", 144),
                                       ("d-192", 192)) for k in range(12)], 1)  # fmt: skip
    plot = validation.draw(machine, clusters)
    axes = [axis for axis in plot.figure.axes if axis.get_visible()]
    assert len(axes) == 3 * len(ladder.MODELS)
    assert all(axis.get_legend() is None for axis in axes)  # every legend below the panels
    data = assert_printed(plot, tmp_path, "validation")
    assert len(data) == (len(machine) + len(clusters)) * len(ladder.MODELS)
    clusters_drawn = [line.get_color() for line in axes[-1].get_lines() if line.get_gid() is None]
    assert len(set(map(str, clusters_drawn))) == 4  # a colour per cluster
