"""NCCL's own model, by hand from tuning.cc's and search.cc's rules: on ABCI's A100 nodes,
and NVLS on H100 nodes."""

from __future__ import annotations

import pytest

from collectives.model import libraries, nccl

RELEASE = libraries.libraries()["nccl"].releases["2.8.4"]
NEWER = libraries.libraries()["nccl"].releases["2.20.3"]
LIBRARY = libraries.libraries()["nccl"]

ONE_NODE = nccl.System(8, 1, 80, 12, 4, 25.0, cpu="amd")
TWO_NODES = nccl.System(16, 2, 80, 12, 4, 25.0, cpu="amd")


def test_the_search_finds_nvlink_channels_in_a_node_and_one_per_nic_across():
    # 12 NVLinks of 21 GB/s: 6 channels of 42, doubled at half speed (ncclTopoDupChannels)
    assert nccl.search(ONE_NODE, RELEASE) == nccl.Graph(12, 21.0)
    # a 25 GB/s NIC carries one channel of 24 (the first speed below it): one per NIC
    assert nccl.search(TWO_NODES, RELEASE) == nccl.Graph(4, 24.0)


def test_the_tuning_by_hand():
    one, two = nccl.tuning(ONE_NODE, RELEASE), nccl.tuning(TWO_NODES, RELEASE)
    # ring LL in a node: 3.6 + 14 x 0.47 us; bus min(87.7, 252 capped at 235 / 4), x 8/14
    assert one["ring", "LL"] == pytest.approx((3.6 + 14 * 0.47, 235 / 4 * 8 / 14))
    # tree LL on 2 nodes: 4.4 + 2 (7 x 0.52 x 1.8 + 1 x 5.0); bus 96 x 0.92 / 3.8 > 22.5, x 1/2
    assert two["tree", "LL"] == pytest.approx((4.4 + 2 * (7 * 0.52 * 1.8 + 5.0), 22.5 / 2))
    # ring Simple: 8.4 + 14 x 3.4 in a node; 28 NVLink and 2 network steps on two
    assert one["ring", "Simple"][0] == pytest.approx(8.4 + 14 * 3.4)
    assert two["ring", "Simple"] == pytest.approx((8.4 + 28 * 3.4 + 2 * 9.6, 96 * 16 / 30))


def test_the_choice_follows_the_size():
    sizes = [8, 65536, 32 * 2**20]
    assert [c[:2] for c in libraries.choice(ONE_NODE, RELEASE, sizes)] == [
        ("ring", "LL"), ("ring", "LL"), ("ring", "Simple"),
    ]  # fmt: skip
    (algorithm, protocol, seconds), *_ = libraries.choice(TWO_NODES, RELEASE, sizes)
    assert (algorithm, protocol) == ("tree", "LL")
    assert seconds == pytest.approx((27.504 + 8 / (1000 * 11.25)) * 1e-6)


def test_the_tree_correction_and_the_ring_plateau():
    tuned = nccl.tuning(TWO_NODES, RELEASE)
    latency, bandwidth = tuned["tree", "Simple"]
    size = 64 * 2**11  # log2(size / 64) = 11: Simple's factor 0.5
    expected = (latency + size / (1000 * bandwidth * 0.5)) * 1e-6
    assert nccl.algorithm_time(TWO_NODES, RELEASE, tuned, "tree", "Simple", size) == expected
    latency, bandwidth = tuned["ring", "Simple"]
    for size, factor in ((65535, 1.0), (65536, 1.9)):  # from N/16 x 64 KiB on: x 1.9
        seconds = nccl.algorithm_time(TWO_NODES, RELEASE, tuned, "ring", "Simple", size)
        assert seconds == pytest.approx((latency * factor + size / (1000 * bandwidth)) * 1e-6)


def test_from_2_22_3_the_trees_correction_starts_at_64_bytes():
    release = LIBRARY.releases["2.22.3"]  # tuning.cc: `if (nBytes >= 64)` around treeCorrection
    tuned = nccl.tuning(TWO_NODES, release)
    latency, bandwidth = tuned["tree", "Simple"]
    for size, factor in ((63, 1.0), (64, 0.9)):  # 64 B: log2(64 / 64) = 0, Simple's 0.9
        seconds = nccl.algorithm_time(TWO_NODES, release, tuned, "tree", "Simple", size)
        assert seconds == (latency + size / (1000 * (bandwidth * factor))) * 1e-6  # exactly


def test_ll128_is_on_by_default_for_volta_and_ampere_only():
    hopper = nccl.System(8, 1, 90, 18, 8, 25.0, cpu="intel")
    assert nccl.nvlink_width(RELEASE, 90) == 21.0  # rated as the newest it knows, sm_80
    assert nccl.nvlink_width(RELEASE, 86) == 12.0 and nccl.nvlink_width(RELEASE, 60) == 18.0
    assert ("ring", "LL128") not in nccl.tuning(hopper, RELEASE)
    assert ("ring", "LL128") in nccl.tuning(ONE_NODE, RELEASE)


P4DE = nccl.System(16, 2, 80, 12, 4, 12.5, cpu="intel")  # AWS p4de: 4 x 100 Gb/s EFA
P5 = nccl.System(16, 2, 90, 18, 32, 12.5, cpu="amd")  # AWS p5: 32 x 100 Gb/s EFA


def test_2_20_3_searches_by_generation_and_raises_the_trees_nvlink_speed_on_two_nodes():
    newer = NEWER
    # one 12.5 GB/s NIC carries a channel of 12 (search.cc's speeds across nodes), 4 NICs
    assert nccl.search(P4DE, newer) == nccl.Graph(4, 12.0)
    # the tree runs NVLink at twice that: 24, which 12 x 20 GB/s NVLinks carry on 4 channels
    assert nccl.tree_search(P4DE, newer) == nccl.Graph(4, 24.0)
    # sm_90: 16 channels (the search's most); 16 x 24 exceeds 18 x 20.6, so 22 (sm_90's list)
    assert nccl.search(P5, newer) == nccl.Graph(16, 12.0)
    assert nccl.tree_search(P5, newer) == nccl.Graph(16, 22.0)
    # a ring doubled to 14 GB/s, off the list: the tree searches at 12 and raises to 24
    doubled = nccl.System(16, 2, 80, 12, 4, 28.0, cpu="intel")
    assert nccl.search(doubled, newer) == nccl.Graph(8, 14.0)
    assert nccl.tree_search(doubled, newer) == nccl.Graph(8, 24.0)


def test_2_20_3_tuning_by_hand():
    newer = NEWER
    tuned = nccl.tuning(P4DE, newer)
    # ring Simple: 8.4 + 26 NVLink steps at max(3.4, 3 x Intel's 1.0) + 2 x 2 network steps
    latency, bandwidth = tuned["ring", "Simple"]
    assert latency == pytest.approx(8.4 + 26 * 3.4 + 4 * 14.0)
    assert bandwidth == pytest.approx(48 * 16 / 30)
    # ring LL on an AMD host: each NVLink step costs at least the 2 µs network overhead
    assert nccl.step_latency(P5, newer, "ring", "LL", "nvlink") == 2.0
    assert nccl.step_latency(P5, newer, "tree", "LL", "nvlink") == 0.6  # no 1.8 in 2.20.3
    # tree Simple: min(96 x 0.92, 4 x 23.6) / 2
    assert tuned["tree", "Simple"][1] == pytest.approx(96 * 0.92 / 2)
    assert ("ring", "LL128") in nccl.tuning(P5, newer)  # LL128 is on for Hopper too
    # the ring's plateau from 64 bytes per rank and launched channel (the graph's 4, doubled)
    assert nccl.launched_channels(P4DE, newer) == 8
    for size, factor in ((8191, 1.0), (8192, 1.4)):
        seconds = nccl.algorithm_time(P4DE, newer, tuned, "ring", "Simple", size)
        assert seconds == pytest.approx((latency * factor + size / (1000 * bandwidth)) * 1e-6)


def test_one_gpu_a_node_steps_over_pci_and_its_tree_is_nccl_s_tree_pattern():
    newer = NEWER
    spread = nccl.System(4, 4, 80, 12, 4, 12.5, cpu="intel")  # a DP group: one GPU a node
    assert nccl.step_latency(spread, newer, "tree", "LL128", "nvlink") == 1.9  # PCI's
    assert nccl.step_latency(spread, newer, "ring", "LL", "nvlink") == 1.0  # Intel's overhead
    together = nccl.System(8, 4, 80, 12, 4, 12.5, cpu="intel")
    alone = nccl.bus_bandwidth(spread, newer, "tree", "Simple")
    assert alone == pytest.approx(0.85 * min(48 * 0.92, 4 * 17.8))
    assert nccl.bus_bandwidth(together, newer, "tree", "Simple") == pytest.approx(48 * 0.92)
    # 2.8.4 has no such factor
    assert nccl.bus_bandwidth(spread, RELEASE, "tree", "Simple") == pytest.approx(48 * 0.92)


def test_every_release_is_data_and_a_new_one_is_one_entry(tmp_path):
    library = libraries.libraries()["nccl"]
    assert {"2.8.4", "2.20.3", "2.21.5", "2.28.9", "2.30.7"} <= set(library.releases)
    text = libraries.RELEASES_DIR.joinpath("nccl.toml").read_text()
    # a release after the newest, as a user adds it: one table, the newest's with one change
    newest = text[text.index('[releases."2.30.7"]') :]
    added = newest.replace('"2.30.7"', '"2.31.1"').replace(
        "base_latency = { tree = [6.8, 14.0, 8.4], ring = [6.6, 14.0, 8.4] }",
        "base_latency = { tree = [6.8, 14.0, 8.4], ring = [9.6, 14.0, 8.4] }",
    )
    (tmp_path / "nccl.toml").write_text(text + "\n" + added)
    extended = libraries.libraries(tmp_path)["nccl"]
    assert extended.nearest("2.31.4").version == "2.31.1"  # its patch releases take it
    system = nccl.System(8, 1, 90, 18, 8, 50.0, cpu="intel")
    ring_ll = nccl.tuning(system, extended.releases["2.31.1"])["ring", "LL"][0]
    assert ring_ll == nccl.tuning(system, library.releases["2.30.7"])["ring", "LL"][0] + 3.0


def test_a_release_table_with_a_missing_or_unknown_fact_is_refused(tmp_path):
    text = libraries.RELEASES_DIR.joinpath("nccl.toml").read_text()
    (tmp_path / "nccl.toml").write_text(text.replace("ring_ll_bus_factor = 0.25\n", "", 1))
    with pytest.raises(ValueError, match=r"nccl 2.8.4: missing ring_ll_bus_factor"):
        libraries.load_library(tmp_path / "nccl.toml")
    (tmp_path / "nccl.toml").write_text(text.replace("ring_ll_bus_factor = 0.25\n",
                                                     "ring_ll_bus_factr = 0.25\n", 1))  # fmt: skip
    with pytest.raises(ValueError, match=r"nccl 2.8.4: unknown ring_ll_bus_factr"):
        libraries.load_library(tmp_path / "nccl.toml")


def test_the_nearest_release_is_the_newest_before_else_the_oldest():
    library = libraries.libraries()["nccl"]
    assert library.nearest("2.20.3").version == "2.20.3"
    assert library.nearest("2.29.2").version == "2.28.9"  # 2.29 is not modelled
    assert library.nearest("2.19.3").version == "2.8.4"
    assert library.nearest("2.7.8").version == "2.8.4"  # none before: the oldest
    assert library.first_for(80).version == "2.8.4" and library.first_for(90).version == "2.20.3"
    assert library.first_for(100).version == "2.25.1"  # Blackwell's rows


def test_2_21_5_halves_ring_ll_and_2_23_4_prices_one_gpu_a_node_at_the_tree_s_network_step():
    library = libraries.libraries()["nccl"]
    one_node = nccl.System(8, 1, 80, 12, 4, 25.0, cpu="amd")
    old, new = (nccl.bus_bandwidth(one_node, library.releases[v], "ring", "LL")
                for v in ("2.20.3", "2.21.5"))  # fmt: skip
    graph = nccl.search(one_node, library.releases["2.21.5"]).bandwidth
    assert (old, new) == (min(87.7, graph / 4), min(87.7, graph / 2))
    spread = nccl.System(4, 4, 80, 12, 4, 12.5, cpu="intel")
    for version, ring_net in (("2.22.3", 2.7), ("2.23.4", 5.0)):  # ring LL, then tree LL's
        release = library.releases[version]
        assert nccl.step_latency(spread, release, "ring", "LL", "net") == ring_net


def _hopper(nodes: int, per_node: int = 8, **given) -> nccl.System:
    """H100 domains of `per_node` GPUs, 18 NVLinks each, an NVSwitch, 8 NICs of 50 GB/s."""
    facts = dict(ranks=nodes * per_node, nodes=nodes, compute_capability=90, nvlinks=18,
                 nics_per_node=8, nic_GBps=50.0, nvswitch=True)  # fmt: skip
    return nccl.System(**(facts | given))


def test_nvls_by_hand_inside_an_h100_node():
    # 18 x 20.6 = 370.8 GB/s a GPU; 9 x 40 fits, 9 x 50 does not: 8 channels of 40 GB/s;
    # one node, so the second pass raises bwInter up the intra list to its top, 60
    release = LIBRARY.releases["2.21.5"]
    assert nccl.nvls_search(_hopper(1), release) == nccl.NvlsGraph(8, 40.0, 60.0)
    latency, algbw = nccl.tuning(_hopper(1), release)["nvls", "Simple"]
    assert (latency, algbw) == (25.0, pytest.approx(8 * 40 * 5 / 6))
    # 2.28.9: a channel at 40 x 0.85 x 7/8 x 2 = 59.5, under bwInter's 60; the ring's ratio
    latency, algbw = nccl.tuning(_hopper(1), LIBRARY.releases["2.28.9"])["nvls", "Simple"]
    assert algbw == pytest.approx(8 * 59.5 * 8 / 14)
    assert ("nvls_tree", "Simple") not in nccl.tuning(_hopper(1), release)  # one domain


def test_nvls_tree_by_hand_across_two_h100_nodes():
    # a head's NICs carry 50 GB/s: the inter list's 40 (9 x 42 > 370.8), raised to 48
    release = LIBRARY.releases["2.20.3"]
    two = _hopper(2)
    assert nccl.nvls_search(two, release) == nccl.NvlsGraph(8, 40.0, 48.0)
    tuned = nccl.tuning(two, release)
    assert ("nvls", "Simple") not in tuned  # NVLS across domains needs CollNet
    latency, algbw = tuned["nvls_tree", "Simple"]
    assert latency == 23.0 + 2 * 1 * 14.0  # NVLink's step, 2 log2(2) network steps
    assert algbw == pytest.approx(min(40.0, 48.0) * 8 * 5 / 6)
    assert libraries.choice(two, release, [1 << 30])[0][:2] == ("nvls_tree", "Simple")


def test_nvls_needs_hopper_an_nvswitch_and_enough_gpus():
    release = LIBRARY.releases["2.21.5"]
    assert nccl.nvls_search(_hopper(1, compute_capability=80), release) is None
    assert nccl.nvls_search(_hopper(1, nvswitch=False), release) is None
    assert nccl.nvls_search(_hopper(1, per_node=2), release) is None  # more than two, until 2.28
    assert nccl.nvls_search(_hopper(1, per_node=2), LIBRARY.releases["2.28.9"]) is not None
    assert nccl.nvls_search(_hopper(1), LIBRARY.releases["2.8.4"]) is None  # before NVLS
