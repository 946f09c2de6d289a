"""GPU systems: their topology, and the link-level rung against a log."""

# ruff: noqa: E501  (nccl-tests lines are as wide as the tool prints them)
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from collectives import registry
from collectives.model import nccl
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import replay
from collectives.study import gpu
from collectives.transport.dry import dry_trace

NVLINK = Fabric("fast", "given", LinkClass(1e-6, 1e-11))
NET = Fabric("slow", "given", LinkClass(5e-6, 1e-10))
SYSTEM = {"log": "log.txt", "nodes": 2, "gpus_per_node": 4, "gpu": "G", "nvlink_generation": 3,
          "compute_capability": 8.0, "cpu": "amd", "nvlinks": 12, "nvlink_GBps": 300,
          "nvswitch": True, "nics_per_node": 2, "nic_Gbps": 200, "nccl": "2.8.4",
          "intra_fabric": "fast", "inter_fabric": "slow"}  # fmt: skip
LOG = """\
#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
           8             2   float     sum    20.00    0.00    0.00  0e+00    20.00    0.00    0.00  0e+00
     1048576        262144   float     sum   100.00   10.49   18.35  0e+00   100.00   10.49   18.35  0e+00
"""


def test_a_system_is_nodes_of_gpus_with_rail_nics():
    fabric = gpu.gpu_fabric("s", SYSTEM, {"fast": NVLINK, "slow": NET})
    topology = fabric.topology
    assert (topology.ranks_per_node, topology.nic_per_node, topology.rails) == (4, 2, True)
    assert fabric.intra == NVLINK.link and fabric.link == NET.link
    pooled = gpu.gpu_fabric("s", SYSTEM | {"nics_per_node": 32}, {"fast": NVLINK, "slow": NET})
    assert not pooled.rails  # more NICs than GPUs: one pool a node


def test_the_link_rung_is_the_cheapest_replay_beside_the_log(tmp_path):
    (tmp_path / "log.txt").write_text(LOG)
    algorithms = ["ring", "recursive_doubling", "one_shot"]
    table = gpu.gpu_against_clock({"s": SYSTEM}, {"fast": NVLINK, "slow": NET}, algorithms,
                                  tmp_path)  # fmt: skip
    assert list(table.message_bytes) == [8, 1048576] and list(table.ranks) == [8, 8]
    fabric = gpu.gpu_fabric("s", SYSTEM, {"fast": NVLINK, "slow": NET})
    for row in table.itertuples():
        elements = row.message_bytes // 4
        times = {
            a: replay(dry_trace(registry.get(a).at_defaults(8), 8, elements, 4), fabric)
            for a in algorithms
        }
        assert row.cheapest_algorithm == min(times, key=times.__getitem__)
        assert row.link_alpha_beta_s == pytest.approx(min(times.values()))
    assert table.measured_s.tolist() == pytest.approx([20e-6, 100e-6])
    summary = gpu.gpu_summary(table).iloc[0]
    ratios = table.link_alpha_beta_s / table.measured_s
    assert summary.median_predicted_over_measured == pytest.approx(ratios.median())
    assert summary.within_2x == ((ratios >= 0.5) & (ratios <= 2)).mean()
    assert summary.plateau_measured_busbw_GBps == 18.35
    assert summary.plateau_predicted_busbw_GBps == pytest.approx(
        1048576 / table.link_alpha_beta_s.iloc[1] / 1e9 * 2 * 7 / 8
    )


def test_one_shot_is_left_out_where_no_library_runs_it(tmp_path):
    (tmp_path / "log.txt").write_text(LOG)
    big = SYSTEM | {"nodes": 4}  # 16 GPUs: past vLLM's 8
    table = gpu.gpu_against_clock({"s": big}, {"fast": NVLINK, "slow": NET}, ["one_shot", "ring"],
                                  Path(tmp_path))  # fmt: skip
    assert set(table.cheapest_algorithm) == {"ring"}


def test_an_algorithm_on_nodes_takes_the_system_s_gpus_per_node(tmp_path):
    (tmp_path / "log.txt").write_text(LOG)
    table = gpu.gpu_against_clock({"s": SYSTEM}, {"fast": NVLINK, "slow": NET}, ["hierarchical"],
                                  tmp_path)  # fmt: skip
    assert set(table.cheapest_algorithm) == {"hierarchical-G4"}
    assert registry.get("hierarchical").on_nodes(8, 4) == {"ranks_per_node": 4}
    with pytest.raises(ValueError, match="one_shot runs on at most 8 ranks"):
        registry.get("one_shot").on_nodes(16, 8)


def test_the_nccl_rungs_are_nccl_s_choice_by_its_model_and_by_our_replay(tmp_path):
    (tmp_path / "log.txt").write_text(LOG)
    table = gpu.gpu_against_clock({"s": SYSTEM}, {"fast": NVLINK, "slow": NET}, ["ring"],
                                  tmp_path)  # fmt: skip
    system = gpu.nccl_system(SYSTEM)
    assert (system.ranks, system.compute_capability, system.nic_GBps) == (8, 80, 25.0)
    chosen = nccl.choice(system, nccl.NCCL_2_8_4, [8, 1048576])
    assert list(table.nccl_choice) == [f"{a}/{p}" for a, p, _ in chosen]
    assert list(table.nccl_model_s) == [seconds for *_, seconds in chosen]
    for row, (algorithm, protocol, _) in zip(table.itertuples(), chosen, strict=True):
        name = {"ring": "nccl_ring", "tree": "double_binary_tree"}[algorithm]
        entry = registry.get(name)
        given = {"channels": 1} if name == "nccl_ring" else {"ranks_per_node": 4}
        fabric = gpu.nccl_fabric(system, nccl.NCCL_2_8_4, 4, algorithm, protocol)
        trace = dry_trace(entry.bind(**entry.resolve(given, 8)), 8, row.message_bytes // 4, 4)
        base = nccl.NCCL_2_8_4.base_latency[algorithm][nccl.PROTOCOLS.index(protocol)]
        # a step's latency is NCCL's synchronisation: it overlaps other chunks' bytes, so a
        # message holds its ports for its bytes at the protocol's bandwidth only
        for link in (fabric.link, fabric.intra):
            assert link.holds(np.array([1e6]))[0] == pytest.approx(1e6 * link.beta)
        expected = base * 1e-6 + replay(trace, fabric, pipelined=True)
        assert row.nccl_replay_s == pytest.approx(expected)
    summary = gpu.gpu_summary(table)
    assert list(summary.model) == list(gpu.RUNGS) and summary.available.all()


def test_a_release_the_model_lacks_leaves_the_nccl_rungs_not_available(tmp_path):
    (tmp_path / "log.txt").write_text(LOG)
    newer = SYSTEM | {"nccl": "unknown"}
    table = gpu.gpu_against_clock({"s": newer}, {"fast": NVLINK, "slow": NET}, ["ring"],
                                  tmp_path)  # fmt: skip
    assert table.nccl_model_s.isna().all() and table.nccl_replay_s.isna().all()
    summary = gpu.gpu_summary(table).set_index("model")
    assert summary.loc["link_alpha_beta"].available
    assert not summary.loc["nccl_model"].available and summary.loc["nccl_model"].points == 0


def test_busbw_is_time_and_link_shares_under_the_algorithm_assumed(tmp_path):
    (tmp_path / "log.txt").write_text(LOG)
    table = gpu.gpu_against_clock({"s": SYSTEM}, {"fast": NVLINK, "slow": NET}, ["ring"],
                                  tmp_path)  # fmt: skip
    row = gpu.busbw_meaning(table, {"s": SYSTEM}).iloc[0]
    algbw = 1048576 / 100e-6 / 1e9
    assert row.algbw_GBps == pytest.approx(algbw) and row.busbw_GBps == 18.35
    assert row.ring_nvlink_share == pytest.approx(18.35 / 300)
    assert row.ring_nic_share == pytest.approx(18.35 / 50)  # 2 NICs of 200 Gb/s a node
    assert row.hierarchical_nic_share == pytest.approx(algbw * 2 * 1 / 2 / 50)


def test_the_choice_map_is_nccl_s_pick_beside_our_cheapest_at_each_node_count():
    fabrics = {"fast": NVLINK, "slow": NET}
    algorithms, sizes = ["ring", "recursive_doubling", "one_shot"], [8, 65536, 2**24]
    table = gpu.nccl_choice_map("s", SYSTEM, fabrics, algorithms, [1, 2, 4], sizes)
    assert list(table.columns) == gpu.CHOICE_MAP_COLUMNS
    assert list(table.nodes) == [1] * 3 + [2] * 3 + [4] * 3
    for count, rows in table.groupby("nodes"):
        scaled = SYSTEM | {"nodes": count}
        system = gpu.nccl_system(scaled)
        chosen = nccl.choice(system, nccl.NCCL_2_8_4, sizes)
        assert list(rows.nccl_choice) == [f"{a}/{p}" for a, p, _ in chosen]
        assert list(rows.nccl_model_s) == [seconds for *_, seconds in chosen]
        ours = gpu.cheapest_on_links("s", scaled, fabrics, algorithms, [(m, 4) for m in sizes])
        assert list(zip(rows.cheapest_algorithm, rows.cheapest_s, strict=True)) == ours
    assert set(table.ranks) == {4, 8, 16}
    unknown = gpu.nccl_choice_map("s", SYSTEM | {"nccl": "9.9"}, fabrics, algorithms, [2], sizes)
    assert unknown.nccl_model_s.isna().all() and (unknown.nccl_choice == "").all()
