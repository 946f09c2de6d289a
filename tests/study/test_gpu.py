"""GPU systems: their topology, and the link-level rung against a log."""

# ruff: noqa: E501  (nccl-tests lines are as wide as the tool prints them)
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from collectives import registry
from collectives.model import libraries, nccl
from collectives.model.fabric import Fabric, LinkClass
from collectives.model.replay import replay
from collectives.study import gpu
from collectives.study.systems import resolve
from collectives.transport.dry import dry_trace

NVLINK = Fabric("fast", "given", LinkClass(1e-6, 1e-11))
NET = Fabric("slow", "given", LinkClass(5e-6, 1e-10))
ENTRY = {"log": "log.txt", "nodes": 2, "gpus_per_node": 4,
         "accelerator": {"vendor": "nvidia", "model": "G", "generation": "sm_80"},
         "library": {"name": "nccl", "release": "2.8.4"},
         "scale_up": {"kind": "nvswitch", "links": 12, "GBps": 300},
         "scale_out": {"kind": "infiniband", "nics": 2, "Gbps": 200, "gpus_per_nic": 2},
         "cpu": {"arch": "x86_64", "vendor": "amd"},
         "intra_fabric": "fast", "inter_fabric": "slow"}  # fmt: skip
SYSTEM = resolve("s", ENTRY, None, {})[0]  # no floor, no network latency: NCCL's tables alone
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
    many = SYSTEM | {"scale_out": SYSTEM["scale_out"] | {"nics": 16, "gpus_per_nic": 0.25}}
    pooled = gpu.gpu_fabric("s", many, {"fast": NVLINK, "slow": NET})
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
    chosen = libraries.choice(system, libraries.libraries()["nccl"].releases["2.8.4"], [8, 1048576])
    assert list(table.nccl_choice) == [f"{a}/{p}" for a, p, _ in chosen]
    assert list(table.nccl_model_s) == [seconds for *_, seconds in chosen]
    for row, (algorithm, protocol, _) in zip(table.itertuples(), chosen, strict=True):
        name = {"ring": "nccl_ring", "tree": "double_binary_tree"}[algorithm]
        entry = registry.get(name)
        given = {"channels": 1} if name == "nccl_ring" else {"ranks_per_node": 4}
        fabric = gpu.nccl_fabric(
            system, libraries.libraries()["nccl"].releases["2.8.4"], 4, algorithm, protocol
        )
        trace = dry_trace(entry.bind(**entry.resolve(given, 8)), 8, row.message_bytes // 4, 4)
        base = (
            libraries.libraries()["nccl"]
            .releases["2.8.4"]
            .base_latency[algorithm][nccl.PROTOCOLS.index(protocol)]
        )
        # a step's latency is NCCL's synchronisation: it overlaps other chunks' bytes, so a
        # message holds its ports for its bytes at the protocol's bandwidth only
        for link in (fabric.link, fabric.intra):
            assert link.holds(np.array([1e6]))[0] == pytest.approx(1e6 * link.beta)
        expected = base * 1e-6 + replay(trace, fabric, pipelined=True)
        assert row.nccl_replay_s == pytest.approx(expected)
    summary = gpu.gpu_summary(table)
    assert list(summary.model) == list(gpu.RUNGS) and (summary.points == 2).all()


def test_a_release_not_modelled_is_priced_with_the_nearest_and_says_so(tmp_path, capsys):
    (tmp_path / "log.txt").write_text(LOG)
    entry = ENTRY | {"library": {"name": "nccl", "release": "2.19.1"}}
    newer, warnings = resolve("s", entry, None, {})
    assert warnings[0] == ("gpu_systems.s: NCCL 2.19.1 is not modelled; priced with 2.8.4, the "
                           "nearest modelled release")  # fmt: skip
    table = gpu.gpu_against_clock({"s": newer}, {"fast": NVLINK, "slow": NET}, ["ring"],
                                  tmp_path)  # fmt: skip
    assert set(table.release) == {"2.19.1"} and set(table.release_modelled) == {"2.8.4"}
    assert set(table.release_note) == {"2.19.1 not modelled: 2.8.4, the nearest"}
    assert "s: NCCL 2.8.4 (2.19.1 not modelled: 2.8.4, the nearest)" in capsys.readouterr().err
    same = gpu.gpu_against_clock({"s": SYSTEM}, {"fast": NVLINK, "slow": NET}, ["ring"], tmp_path)
    assert table.nccl_model_s.tolist() == same.nccl_model_s.tolist()
    summary = gpu.gpu_summary(table).set_index("model")
    assert (summary.release_modelled == "2.8.4").all() and summary.points.min() == 2


def test_the_floor_is_paid_once_and_the_network_latency_per_network_step(tmp_path):
    (tmp_path / "log.txt").write_text(LOG)
    costs = {"call_floor": {"sm_90": 6.0}, "network_latency": {"infiniband": 1.5, "efa": 21.5},
             "reference": "infiniband"}  # fmt: skip
    efa = ENTRY | {"scale_out": ENTRY["scale_out"] | {"kind": "efa"}}
    resolved = resolve("s", efa, None, costs)[0]["resolved"]
    assert resolved["call_floor_us"] == 6.0 and resolved["call_floor_from"] == "sm_90"
    assert resolved["net_latency_us"] == 20.0  # EFA's one-way latency beyond InfiniBand's
    plain, paying = gpu.nccl_system(SYSTEM), gpu.nccl_system(resolve("s", efa, None, costs)[0])
    release = libraries.libraries()["nccl"].releases["2.8.4"]
    sizes = [8, 2**20, 2**26]
    bare, priced = libraries.choice(plain, release, sizes), libraries.choice(paying, release, sizes)
    assert [c[:2] for c in bare] == [c[:2] for c in priced]  # NCCL picks by its own tables
    (algorithm, protocol, small), (*_, small_priced) = bare[0], priced[0]
    assert (algorithm, protocol) == ("ring", "LL")  # 2.8.4's ring crosses 2(2 - 1) times
    assert small_priced - small == pytest.approx(6e-6 + 2 * 20e-6)
    # the replay rung pays the floor once beside NCCL's base latency, and each message
    # across nodes the network's latency: a whole number of crossings on the critical path,
    # at least one each way between the two nodes
    free = gpu.nccl_replayed(plain, release, 4, "tree", "LL", 2, 4)
    paid = gpu.nccl_replayed(paying, release, 4, "tree", "LL", 2, 4)
    crossings = (paid - free - 6e-6) / 20e-6
    assert crossings == pytest.approx(round(crossings)) and crossings >= 2


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
        chosen = libraries.choice(system, libraries.libraries()["nccl"].releases["2.8.4"], sizes)
        assert list(rows.nccl_choice) == [f"{a}/{p}" for a, p, _ in chosen]
        assert list(rows.nccl_model_s) == [seconds for *_, seconds in chosen]
        ours = gpu.cheapest_on_links("s", scaled, fabrics, algorithms, [(m, 4) for m in sizes])
        assert list(zip(rows.cheapest_algorithm, rows.cheapest_s, strict=True)) == ours
    assert set(table.ranks) == {4, 8, 16}
