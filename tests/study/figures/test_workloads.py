"""The workloads figure: numbered markers on each fabric's map, keyed below, none touching."""

from __future__ import annotations

import numpy as np

from collectives.study.figures import workloads
from collectives.study.workloads import Workload, workloads_table
from tests.support.grid import GRID_ALGORITHMS
from tests.support.printed import assert_printed

SHAPE = {"hidden": 4096, "sequence": 1, "micro_batch": 1, "layers": 2, "parameters": 1e9,
         "dtype_bytes": 2, "tp": 8, "dp": 16}  # fmt: skip


def test_a_numbered_marker_per_group_on_every_fabric_none_touching(fabric_tables, tmp_path):
    costs, _ = fabric_tables
    fabrics = list(dict.fromkeys(costs.fabric))
    layouts = [  # two TP groups at one N and close sizes: their markers must part
        Workload.from_config(f"w{i}", {**SHAPE, "hidden": 4096 + 512 * (i % 2),
                                       "tp_fabric": fabrics[i % len(fabrics)],
                                       "dp_fabric": fabrics[-1 - i % len(fabrics)]})
        for i in range(2)
    ]  # fmt: skip
    table = workloads_table(layouts, costs, "float64", GRID_ALGORITHMS)
    plot = workloads.draw(costs, table, "float64", GRID_ALGORITHMS)
    shown = sorted(set(table.fabric))
    panels = [axis for axis in plot.figure.axes if axis.get_visible()]
    assert sorted(axis.get_title() for axis in panels) == shown
    keys = [t.get_text() for t in plot.figure.legends[-1].get_texts() if "→" in t.get_text()]
    assert len(keys) == table.groupby(["workload", "group"]).ngroups
    data = assert_printed(plot, tmp_path, "workloads")
    assert sorted(data.number.unique()) == list(range(1, len(keys) + 1))
    for _, band in data.groupby(["fabric", "ranks"]):  # markers in one band of N
        sizes, rows = np.log2(band.shown_bytes.to_numpy(float)), band.shown_row.to_numpy()
        near = np.abs(sizes[:, None] - sizes[None]) < workloads.NEAR - 1e-9
        apart = np.abs(rows[:, None] - rows[None]) >= workloads.SPREAD
        assert (apart | ~near | np.eye(len(band), dtype=bool)).all()
    assert (data.shown_bytes >= data.message_bytes).all()  # nudged right, never left


def test_no_workloads_say_so(fabric_tables, tmp_path):
    costs, _ = fabric_tables
    empty = workloads_table([], costs, "float64", GRID_ALGORITHMS)
    plot = workloads.draw(costs, empty, "float64", GRID_ALGORITHMS)
    assert plot.data.empty
    assert_printed(plot, tmp_path, "workloads")


def test_a_workload_on_a_gpu_system_shows_the_library_s_step_beside_the_map(fabric_tables):
    from tests.study.test_workloads import A100_NODES

    costs, _ = fabric_tables
    fabric = next(iter(dict.fromkeys(costs.fabric)))
    layout = Workload.from_config("w", {**SHAPE, "dp": 1, "tp_fabric": fabric,
                                        "gpu_system": "a100"})  # fmt: skip
    table = workloads_table([layout], costs, "float64", GRID_ALGORITHMS, {"a100": A100_NODES})
    plot = workloads.draw(costs, table, "float64", GRID_ALGORITHMS)
    (key,) = [t.get_text() for t in plot.figure.legends[-1].get_texts() if "→" in t.get_text()]
    row = table.iloc[0]
    assert key.endswith(f"; on a100: {row.nccl_choice}, "
                        f"{workloads.format_seconds(row.nccl_per_step_s)}/step")  # fmt: skip
