"""What scale changes: the cheapest all-reduce and the libraries' picks by N, in closed form."""

from __future__ import annotations

import math

import pytest

from collectives.model import libraries
from collectives.model.library_rules import library_choice
from collectives.study import scale
from collectives.study.systems import nccl_system, resolve
from tests.study.test_gpu import ENTRY

ALPHA, BETA = 2e-6, 1 / 25e9
CLUSTER = {"fabric": "ib", "alpha_s": ALPHA, "beta_s_per_byte": BETA, "library": "openmpi-4.0"}
SIZES = {65536: "decode TP", 2**26: "train DP"}  # N | M: the textbook forms are exact
SYSTEM = resolve("s", ENTRY, None, {"network_latency": {"infiniband": 0.0}})[0]


def test_the_cluster_side_prices_the_textbook_forms():
    table = scale.scale_table(CLUSTER, None, ["ring", "recursive_doubling", "rabenseifner"],
                              [8, 1024], SIZES)  # fmt: skip
    assert len(table) == 4 and set(table.side) == {"cluster"}
    for row in table.itertuples():
        n, nbytes = row.ranks, row.message_bytes
        # ring: 2(N-1) rounds, 2(N-1)/N of the message; recursive doubling: log2 N rounds of
        # the whole message; Rabenseifner: 2 log2 N rounds, the ring's bytes
        ring = 2 * (n - 1) * ALPHA + 2 * (n - 1) / n * nbytes * BETA
        doubling = math.log2(n) * ALPHA + math.log2(n) * nbytes * BETA
        halving = 2 * math.log2(n) * ALPHA + 2 * (n - 1) / n * nbytes * BETA
        times = {"ring": ring, "recursive_doubling": doubling, "rabenseifner": halving}
        assert row.cheapest == min(times, key=times.__getitem__)
        assert row.cheapest_s == pytest.approx(min(times.values()), rel=1e-9)
        assert row.ring_latency_s == pytest.approx(2 * (n - 1) * ALPHA)
        assert row.tree_latency_s == pytest.approx(math.log2(n) * ALPHA)
        pick = library_choice("openmpi-4.0", n, nbytes, scale.ITEMSIZE)
        assert row.pick == f"openmpi-4.0: {pick}"
        assert row.pick_s == pytest.approx(times[pick], rel=1e-9)
        assert row.messages == SIZES[nbytes]


def test_algorithms_that_need_nodes_or_one_node_are_left_out_of_the_flat_side():
    found = scale.flat_algorithms(["ring", "hierarchical", "one_shot", "double_binary_tree"], 64)
    assert list(found) == ["ring"]


def test_the_gpu_side_grows_the_system_and_shows_the_library_s_pick():
    table = scale.scale_table(CLUSTER, ("s", SYSTEM), ["ring"], [6, 8, 64, 4096], SIZES)
    gpu = table[table.side == "gpu"]
    assert sorted(set(gpu.ranks)) == [8, 64, 4096]  # 6 GPUs fill no whole node of 4
    release = libraries.libraries()["nccl"].releases["2.8.4"]
    for row in gpu.itertuples():
        grown = nccl_system({**SYSTEM, "nodes": row.ranks // 4})
        algorithm, protocol, seconds = libraries.choice(grown, release, [row.message_bytes])[0]
        assert row.pick == f"nccl: {algorithm}/{protocol}" and row.pick_s == pytest.approx(seconds)
        assert row.cheapest_s <= row.pick_s * (1 + 1e-12)
    # the ring's latency grows with N, the tree's with log N: the ring's overtakes
    ends = gpu.groupby("ranks").first()
    assert ends.ring_latency_s.is_monotonic_increasing
    assert ends.ring_latency_s.iloc[-1] / ends.tree_latency_s.iloc[-1] > 10


def test_the_summary_finds_where_the_ring_s_latency_exceeds_the_whole_cheapest():
    table = scale.scale_table(CLUSTER, None, ["ring", "rabenseifner"], [8, 128, 8192], SIZES)
    summary = scale.scale_summary(table).set_index("message_bytes")
    for nbytes, row in summary.iterrows():
        rows = table[table.message_bytes == nbytes]
        over = rows[rows.ring_latency_s > rows.cheapest_s].ranks
        assert row.ring_latency_over_cheapest_from == (over.min() if len(over) else None)


def test_workload_sizes_name_their_messages():
    workloads = {"w": {"hidden": 1024, "sequence": 1, "micro_batch": 4, "layers": 2,
                       "parameters": 1e6, "dtype_bytes": 2, "tp": 8, "dp": 1,
                       "backward": False, "tp_fabric": "f"}}  # fmt: skip
    assert scale.workload_sizes(workloads) == {4 * 1024 * 2: "w TP"}
