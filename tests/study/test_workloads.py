"""Training workloads: Megatron's TP and DP all-reduce messages, priced on the grid."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from collectives import registry
from collectives.model import cost, libraries
from collectives.study.systems import resolve
from collectives.study.workloads import (
    COLUMNS,
    DDP_BUCKET_BYTES,
    Workload,
    time_at,
    workloads_table,
)
from tests.support.grid import GIVEN_FABRICS, GRID_ALGORITHMS, THEORY_GRID

GPT3 = {
    "hidden": 12288, "sequence": 2048, "micro_batch": 1, "layers": 96, "parameters": 175e9,
    "dtype_bytes": 2, "tp": 8, "dp": 64, "tp_fabric": "fast-latency", "dp_fabric": "slow-latency",
}  # fmt: skip


def test_gpt3_messages_follow_megatron():
    """TP: 2 forward + 2 backward all-reduces of b*s*h per layer; DP: 25 MiB buckets."""
    tp, full, last = Workload.from_config("gpt3", GPT3).messages()
    assert (tp["group"], tp["ranks"], tp["fabric"]) == ("TP", 8, "fast-latency")
    assert tp["message_bytes"] == 1 * 2048 * 12288 * 2 == 48 * 2**20
    assert tp["count_per_step"] == 4 * 96
    gradient = 175e9 / 8 * 2
    assert (full["ranks"], full["message_bytes"], last["count_per_step"]) == (
        64,
        DDP_BUCKET_BYTES,
        1,
    )
    assert full["count_per_step"] == gradient // DDP_BUCKET_BYTES == 1668
    assert full["message_bytes"] * full["count_per_step"] + last["message_bytes"] == gradient


def test_megatron_buckets_hold_max_of_40m_and_1m_per_dp_rank_parameters():
    small = Workload.from_config("w", {**GPT3, "dp": 32, "bucket": "megatron"})
    large = Workload.from_config("w", {**GPT3, "dp": 64, "bucket": "megatron"})
    assert small.bucket_bytes() == 40_000_000 * 2
    assert large.bucket_bytes() == 64_000_000 * 2
    assert small.messages()[1]["message_bytes"] == 80_000_000


def test_inference_has_forward_all_reduces_only():
    decode = Workload.from_config(
        "decode", {**GPT3, "sequence": 1, "micro_batch": 4, "backward": False}
    )
    (tp,) = decode.messages()
    assert (tp["message_bytes"], tp["count_per_step"]) == (4 * 12288 * 2, 2 * 96)


def test_gradient_accumulation_multiplies_the_tp_all_reduces_only():
    rows = Workload.from_config("w", {**GPT3, "micro_batches": 8}).messages()
    assert rows[0]["count_per_step"] == 8 * 4 * 96
    assert rows[1]["count_per_step"] == 1668


def test_a_group_of_one_rank_has_no_all_reduce():
    alone = Workload.from_config("w", {**GPT3, "tp": 1, "dp": 1, "tp_fabric": "", "dp_fabric": ""})
    assert alone.messages() == []
    (dp_only,) = {m["group"] for m in Workload.from_config("w", {**GPT3, "tp": 1}).messages()}
    assert dp_only == "DP"


@given(
    parameters=st.integers(1, 10**12),
    tp=st.sampled_from([1, 2, 4, 8]),
    bucket=st.integers(1, 2**30),
    dtype_bytes=st.sampled_from([1, 2, 4]),
)
def test_the_buckets_carry_the_whole_gradient(parameters, tp, bucket, dtype_bytes):
    workload = Workload.from_config(
        "w",
        {**GPT3, "parameters": parameters, "tp": tp, "bucket": bucket, "dtype_bytes": dtype_bytes},
    )
    dp = [m for m in workload.messages() if m["group"] == "DP"]
    carried = sum(m["message_bytes"] * m["count_per_step"] for m in dp)
    assert carried == math.ceil(parameters / tp) * dtype_bytes
    assert all(m["message_bytes"] <= bucket for m in dp)


@pytest.fixture(scope="module")
def costs():
    return cost.modeled_costs(THEORY_GRID, GIVEN_FABRICS, GRID_ALGORITHMS)


def closed_form_time(fabric, algorithm: str, ranks: int, elements: int) -> float:
    counts = registry.get(algorithm).predict(ranks, elements, 8)
    return counts.rounds * fabric.alpha_s + counts.bytes_critical * fabric.beta_s_per_byte


@pytest.mark.parametrize("algorithm", ["ring", "recursive_doubling", "rabenseifner"])
def test_time_at_is_exact_between_grid_sizes_where_the_counts_are_affine(costs, algorithm):
    """Between M = 4096 and 16384 (both divisible by N = 8) the counts are affine in M."""
    fabric = next(GIVEN_FABRICS.itertuples())
    for elements in (4096, 6000, 9992, 16384):
        modeled = time_at(costs, fabric.fabric, algorithm, 8, elements * 8)
        assert modeled == pytest.approx(closed_form_time(fabric, algorithm, 8, elements), rel=1e-12)


def test_time_at_extends_the_last_segment_beyond_the_grid(costs):
    fabric = next(GIVEN_FABRICS.itertuples())
    beyond = 4**11 * 8 * 16  # 16 times the largest grid size
    modeled = time_at(costs, fabric.fabric, "ring", 8, beyond)
    assert modeled == pytest.approx(closed_form_time(fabric, "ring", 8, beyond // 8), rel=1e-12)
    assert math.isnan(time_at(costs, "nowhere", "ring", 8, 1024))


def test_the_table_ranks_the_algorithms_and_totals_the_step(costs):
    decode = Workload.from_config(  # 8 KiB messages, below 2.4 alpha/beta = 24 kB at N = 8
        "decode",
        {**GPT3, "hidden": 4096, "sequence": 1, "dp": 1, "backward": False,
         "tp_fabric": "slow-latency"},
    )  # fmt: skip
    table = workloads_table(
        [Workload.from_config("gpt3", GPT3), decode], costs, "float64", GRID_ALGORITHMS
    )
    assert list(table.columns) == COLUMNS
    assert list(table.workload) == ["gpt3", "gpt3", "gpt3", "decode"]
    for row in table.itertuples():
        times = {
            a: time_at(costs, row.fabric, a, row.ranks, row.message_bytes) for a in GRID_ALGORITHMS
        }
        ordered = sorted(times, key=times.get)
        assert [row.winner, row.runner_up] == ordered[:2]
        assert (row.winner_s, row.runner_up_s) == (times[ordered[0]], times[ordered[1]])
        assert row.ring_s == times["ring"]
        assert row.per_step_s == row.winner_s * row.count_per_step
    gpt3 = table[table.workload == "gpt3"]
    assert np.allclose(gpt3.workload_per_step_s, gpt3.per_step_s.sum())
    # the seed's point: a decode step's small TP message wants recursive doubling, the
    # training step's gradient buckets do not
    assert table.winner.iloc[-1] == "recursive_doubling"
    assert (gpt3[gpt3.group == "DP"].recursive_doubling_s > gpt3[gpt3.group == "DP"].ring_s).all()


def test_no_workloads_give_an_empty_table_with_its_columns(costs):
    table = workloads_table([], costs, "float64", GRID_ALGORITHMS)
    assert table.empty and list(table.columns) == COLUMNS


A100_NODES = resolve("a100", {
    "log": "", "nodes": 64, "gpus_per_node": 8,
    "accelerator": {"vendor": "nvidia", "model": "A100", "generation": "sm_80"},
    "library": {"name": "nccl", "release": "2.8.4"},
    "scale_up": {"kind": "nvswitch", "links": 12, "GBps": 300},
    "scale_out": {"kind": "infiniband", "nics": 4, "Gbps": 200, "gpus_per_nic": 2},
    "cpu": {"arch": "x86_64", "vendor": "amd"}, "intra_fabric": "", "inter_fabric": "",
}, None, {})[0]  # fmt: skip


def test_a_workload_on_a_gpu_system_is_priced_by_nccl_s_model_there(costs):
    on_gpus = Workload.from_config("gpt3", {**GPT3, "gpu_system": "a100"})
    table = workloads_table([on_gpus], costs, "float64", GRID_ALGORITHMS, {"a100": A100_NODES})
    tp, dp = on_gpus.nccl_group("TP", A100_NODES), on_gpus.nccl_group("DP", A100_NODES)
    assert (tp.ranks, tp.nodes) == (8, 1)
    # one DP rank a node, 64 nodes; the 8 TP positions share the node's 4 x 25 GB/s NICs
    assert (dp.ranks, dp.nodes, dp.nics_per_node, dp.nic_GBps) == (64, 64, 1, 12.5)
    for row in table.itertuples():
        group = tp if row.group == "TP" else dp
        release = libraries.libraries()["nccl"].releases["2.8.4"]
        ((algorithm, protocol, seconds),) = libraries.choice(group, release, [row.message_bytes])
        assert (row.nccl_choice, row.nccl_s) == (f"{algorithm}/{protocol}", seconds)
        assert row.nccl_per_step_s == seconds * row.count_per_step
    assert table.workload_nccl_per_step_s.iloc[0] == pytest.approx(table.nccl_per_step_s.sum())


def test_a_system_of_no_named_release_is_priced_with_the_first_of_its_generation(costs):
    on_gpus = Workload.from_config("gpt3", {**GPT3, "gpu_system": "h100"})
    hopper = {"vendor": "nvidia", "model": "H100", "generation": "sm_90"}
    entry = A100_NODES | {"library": {"name": "nccl"}, "accelerator": hopper}
    newer, warnings = resolve("h100", entry, None, {})
    assert newer["resolved"]["release_modelled"] == "2.20.3"  # the first with Hopper's rows
    assert "no NCCL release named (entry or log); priced with 2.20.3" in warnings[0]
    table = workloads_table([on_gpus], costs, "float64", GRID_ALGORITHMS, {"h100": newer})
    assert table.nccl_s.notna().all() and (table.gpu_system == "h100").all()
