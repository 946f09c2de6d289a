"""RCCL's model against tuning.cc's formulas worked by hand for an MI300X node and pair."""

from __future__ import annotations

import pytest

from collectives.model import libraries, rccl
from collectives.model.nccl import System

RELEASE = libraries.libraries()["rccl"].releases["2.21.5"]
NODE = System(8, 1, 942, 7, 8, 50.0, cpu="amd")  # 8 x MI300X, 7 xGMI links each
PAIR = System(16, 2, 942, 7, 8, 50.0, cpu="amd")


def test_an_mi300x_node_reads_tuning_model_5_and_runs_neither_ll128_nor_tree_simple():
    tuned = rccl.tuning(NODE, RELEASE)
    assert set(tuned) == {("ring", "LL"), ("ring", "Simple"), ("tree", "LL")}
    # ring/LL: baseLat 12 + 2(8-1) steps x xGMI's 0.8 µs; 7 links x 48 GB/s x bwRatio 0.08,
    # times 8/14 for the ring
    latency, bandwidth = tuned["ring", "LL"]
    assert latency == pytest.approx(12 + 14 * 0.8)
    assert bandwidth == pytest.approx(7 * 48 * 0.08 * 8 / 14)
    # ring/Simple: 17 + 14 x 2.1 µs; the whole 336 GB/s
    assert tuned["ring", "Simple"] == pytest.approx((17 + 14 * 2.1, 336 * 8 / 14))
    # tree/LL: 12 + 2 x 7 levels x 0.9 µs; 336 x 0.06 x 1/2
    assert tuned["tree", "LL"] == pytest.approx((12 + 2 * 7 * 0.9, 336 * 0.06 / 2))


def test_a_node_of_another_shape_reads_the_default_model():
    four = System(4, 1, 942, 3, 4, 50.0, cpu="amd")
    latency, _ = rccl.tuning(four, RELEASE)["ring", "LL"]
    assert latency == pytest.approx(12 + 6 * 0.8)  # model 0's xGMI ring/LL step


def test_across_nodes_the_ring_pays_the_cpu_s_overhead_and_the_network_s_steps():
    tuned = rccl.tuning(PAIR, RELEASE)
    assert ("tree", "Simple") in tuned  # off only when every rank is in one node
    # 30 steps, 4 of them across the network (320 µs each for Simple in model 5); the others
    # at least an AMD CPU's 2 µs network overhead, three times it for Simple
    assert tuned["ring", "Simple"][0] == pytest.approx(17 + 26 * 6.0 + 4 * 320.0)
    intel = System(16, 2, 942, 7, 8, 50.0, cpu="intel")
    assert rccl.tuning(intel, RELEASE)["ring", "Simple"][0] == pytest.approx(
        17 + 26 * 3.0 + 4 * 320.0
    )
    # the tree: 2 x (7 xGMI levels x 0.9 + 1 network level x 10.5) for LL
    assert tuned["tree", "LL"][0] == pytest.approx(12 + 2 * (7 * 0.9 + 10.5))


def test_the_choice_corrects_the_tree_always_and_the_ring_only_across_nodes():
    ((algorithm, protocol, seconds),) = libraries.choice(NODE, RELEASE, [8 << 30])
    assert (algorithm, protocol) == ("ring", "Simple")  # no correction inside one node
    assert seconds == pytest.approx((17 + 14 * 2.1 + (8 << 30) / (1000 * 336 * 8 / 14)) * 1e-6)
    # across nodes, 1 MiB (log2(1 MiB / 64) = 14) gets model 5's factors
    tuned = rccl.tuning(PAIR, RELEASE)
    latency, bandwidth = tuned["ring", "Simple"]
    ring = rccl.algorithm_time(PAIR, RELEASE, tuned, "ring", "Simple", 1 << 20)
    assert ring == pytest.approx((latency + (1 << 20) / (1000 * bandwidth * 0.1)) * 1e-6)
    latency, bandwidth = tuned["tree", "LL"]
    tree = rccl.algorithm_time(PAIR, RELEASE, tuned, "tree", "LL", 1 << 20)
    assert tree == pytest.approx((latency + (1 << 20) / (1000 * bandwidth * 1.0)) * 1e-6)


def test_a_new_rccl_release_is_one_table_and_a_bad_one_is_refused(tmp_path):
    text = libraries.RELEASES_DIR.joinpath("rccl.toml").read_text()
    added = text[text.index('[releases."2.21.5"]') :].replace('"2.21.5"', '"2.22.3"')
    added = added.replace("tree = [12.0, 12.0, 17.0], ring = [12.0, 12.0, 17.0]",
                          "tree = [12.0, 12.0, 17.0], ring = [10.0, 12.0, 17.0]")  # fmt: skip
    (tmp_path / "rccl.toml").write_text(text + "\n" + added)
    library = libraries.libraries(tmp_path)["rccl"]
    assert library.nearest("2.22.3").version == "2.22.3"
    newer = rccl.tuning(NODE, library.releases["2.22.3"])["ring", "LL"][0]
    assert newer == rccl.tuning(NODE, RELEASE)["ring", "LL"][0] - 2.0
    (tmp_path / "rccl.toml").write_text(text.replace("ll128_generations", "ll128_gens", 1))
    with pytest.raises(ValueError, match=r"rccl 2.21.5: unknown ll128_gens"):
        libraries.load_library(tmp_path / "rccl.toml")
    (tmp_path / "rccl.toml").write_text(text.replace('library = "rccl"', 'library = "hccl"'))
    with pytest.raises(ValueError, match=r"no cost model of 'hccl'"):
        libraries.load_library(tmp_path / "rccl.toml")
