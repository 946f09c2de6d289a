"""A GPU system's entry as the model reads it: every vendor, every domain, each guess said."""

# ruff: noqa: E501  (nccl-tests lines are as wide as the tool prints them)

from __future__ import annotations

import pytest

from collectives.model import libraries
from collectives.study import gpu
from collectives.study.systems import SystemEntryError, domain_gpus, nccl_system, resolve

COSTS = {"call_floor": {"sm_90": 6.0}, "network_latency": {"infiniband": 1.5, "efa": 21.5, "roce": 1.7},
         "reference": "infiniband"}  # fmt: skip
# GB200 NVL72: 18 trays of 4 Blackwell GPUs and 2 Grace CPUs, one NVLink domain of 72
NVL72 = {"log": "", "nodes": 18, "gpus_per_node": 4,
         "accelerator": {"vendor": "nvidia", "model": "NVIDIA GB200", "generation": "sm_100"},
         "library": {"name": "nccl", "release": "2.26.6"},
         "scale_up": {"kind": "nvswitch", "gpus": 72, "links": 18, "GBps": 900},
         "scale_out": {"kind": "infiniband", "nics": 4, "Gbps": 400, "gpus_per_nic": 1},
         "cpu": {"arch": "arm64", "vendor": "nvidia"}, "intra_fabric": "", "inter_fabric": ""}  # fmt: skip
MI300X = NVL72 | {"nodes": 2, "gpus_per_node": 8,
                  "accelerator": {"vendor": "amd", "model": "AMD Instinct MI300X", "generation": "gfx942"},
                  "library": {"name": "rccl", "release": "2.22.3"},
                  "scale_up": {"kind": "xgmi", "links": 7, "GBps": 448},
                  "scale_out": {"kind": "roce", "nics": 8, "Gbps": 400, "gpus_per_nic": 1},
                  "cpu": {"arch": "x86_64", "vendor": "amd"}}  # fmt: skip


def test_an_nvlink_domain_across_trays_is_one_node_of_the_tables():
    entry, warnings = resolve("nvl72", NVL72, None, COSTS)
    assert domain_gpus(entry) == 72
    system = nccl_system(entry)
    assert (system.ranks, system.nodes, system.nics_per_node) == (72, 1, 72)  # 18 trays' NICs
    assert (system.compute_capability, system.cpu) == (100, "other")  # Grace: arm64
    assert entry["resolved"]["net_latency_us"] == 0.0  # one domain: no network step
    assert entry["resolved"]["call_floor_from"] == "sm_90"  # Hopper's floor stands in
    assert warnings == []
    two = resolve("nvl72x2", NVL72 | {"nodes": 36}, None, COSTS)[0]
    assert (nccl_system(two).nodes, nccl_system(two).ranks) == (2, 144)  # two domains
    release = libraries.libraries()["nccl"].releases["2.26.6"]
    assert libraries.choice(nccl_system(two), release, [8])[0][:2] == ("nvls_tree", "Simple")


def test_a_partial_domain_of_a_few_trays_is_one_node_of_the_run_s_gpus():
    entry = resolve("two-trays", NVL72 | {"nodes": 2}, None, COSTS)[0]
    assert domain_gpus(entry) == 8 and nccl_system(entry).nodes == 1


def test_an_amd_system_is_priced_with_rccl_s_model_and_never_nvidia_s():
    entry, warnings = resolve("mi300x", MI300X, None, COSTS)
    assert entry["resolved"]["release_modelled"] == "2.21.5"  # the newest RCCL before 2.22.3
    assert entry["resolved"]["compute_capability"] == 942
    assert warnings == [
        "gpu_systems.mi300x: RCCL 2.22.3 is not modelled; priced with 2.21.5, the nearest "
        "modelled release",
        "gpu_systems.mi300x: no per-call floor measured for any rccl GPU; priced without one",
    ]
    release = gpu.modelled_release(entry)
    assert release.library == "rccl" and libraries.cost_model(release).__name__.endswith("rccl")
    with pytest.raises(SystemEntryError, match=r"generation: gfx1100 is not a generation rccl"):
        resolve("rdna", MI300X | {"accelerator": MI300X["accelerator"] | {"generation": "gfx1100"}},
                None, COSTS)  # fmt: skip
    as_nccl = MI300X | {"library": {"name": "nccl", "release": "2.21.5"}}
    with pytest.raises(
        SystemEntryError, match=r"nccl runs on nvidia GPUs, the accelerator is amd's"
    ):
        resolve("mi300x", as_nccl, None, COSTS)
    on_switch = NVL72 | {"scale_up": MI300X["scale_up"]}
    with pytest.raises(SystemEntryError, match=r"scale_up.kind: xgmi joins amd GPUs"):
        resolve("odd", on_switch, None, COSTS)


def test_the_log_s_release_is_taken_and_a_conflict_refused():
    unnamed = NVL72 | {"library": {"name": "nccl"}}
    entry, warnings = resolve("nvl72", unnamed, ("nccl", "2.27.7"), COSTS)
    assert entry["resolved"]["release"] == "2.27.7" and warnings == []
    entry, warnings = resolve("nvl72", unnamed, ("nccl", "2.29.1"), COSTS)
    assert entry["resolved"]["release_modelled"] == "2.28.9"
    assert warnings == ["gpu_systems.nvl72: NCCL 2.29.1 is not modelled; priced with 2.28.9, "
                        "the nearest modelled release"]  # fmt: skip
    with pytest.raises(SystemEntryError, match=r"library.release: the log ran 2.27.7, the entry "
                                               r"says 2.26.6"):  # fmt: skip
        resolve("nvl72", NVL72, ("nccl", "2.27.7"), COSTS)
    with pytest.raises(SystemEntryError, match=r"library.name: the log ran rccl"):
        resolve("nvl72", NVL72, ("rccl", "2.22.3"), COSTS)


def test_no_release_anywhere_takes_the_first_of_the_generation_and_says_so():
    entry, warnings = resolve("b200", NVL72 | {"library": {"name": "nccl"}}, None, COSTS)
    assert entry["resolved"]["release_modelled"] == "2.25.1"
    assert (
        entry["resolved"]["release_note"]
        == "no release named: 2.25.1, the first modelled for sm_100"
    )
    assert warnings == ["gpu_systems.b200: no NCCL release named (entry or log); priced with "
                        "2.25.1, the first modelled for sm_100"]  # fmt: skip


def test_a_network_without_a_measured_latency_is_priced_at_the_reference_s_and_said():
    entry = MI300X | {"accelerator": NVL72["accelerator"], "library": NVL72["library"],
                      "scale_up": NVL72["scale_up"] | {"gpus": 8}, "cpu": NVL72["cpu"],
                      "scale_out": MI300X["scale_out"] | {"kind": "tcpxo"}}  # fmt: skip
    resolved, warnings = resolve("a3", entry, None, COSTS)
    assert resolved["resolved"]["net_latency_us"] == 0.0
    assert warnings == ["gpu_systems.a3.scale_out.kind: no latency measured for tcpxo; its "
                        "network steps are priced at infiniband's, as the tables are"]  # fmt: skip
    efa = resolve("p5", entry | {"scale_out": entry["scale_out"] | {"kind": "efa"}}, None, COSTS)
    assert efa[0]["resolved"]["net_latency_us"] == 20.0


LOG = """\
#       size         count    type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
           8             2   float     sum      -1    20.00    0.00    0.00      0    20.00    0.00    0.00      0
   268435456      67108864   float     sum      -1  1000.00  268.44  528.61      0  1000.00  268.44  528.61      0
"""


def test_a_gb200_system_is_predicted_against_its_log(tmp_path):
    from collectives.model.fabric import Fabric, LinkClass

    (tmp_path / "log.txt").write_text("# nccl-tests version 2.17.1 nccl-headers=22606 "
                                      "nccl-library=22606\n" + LOG)  # fmt: skip
    fabrics = {"nvl": Fabric("nvl", "given", LinkClass(1e-6, 1 / 900e9)),
               "ib": Fabric("ib", "given", LinkClass(2e-6, 1 / 50e9))}  # fmt: skip
    entry = resolve("nvl72", NVL72 | {"intra_fabric": "nvl", "inter_fabric": "ib",
                                      "log": "log.txt"}, ("nccl", "2.26.6"), COSTS)[0]  # fmt: skip
    table = gpu.gpu_against_clock({"nvl72": entry}, fabrics, ["ring", "two_shot"], tmp_path)
    assert list(table.release_modelled) == ["2.26.6", "2.26.6"]
    assert table.nccl_model_s.notna().all() and table.nccl_replay_s.notna().all()
    assert table.nccl_model_s.iloc[0] >= 6e-6  # the floor at least
