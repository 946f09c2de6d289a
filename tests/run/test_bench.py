"""Wall-clock mode on the queue transport: timed iterations, verified sums, exact counts."""

from __future__ import annotations

import pytest

from collectives import registry
from collectives.model import theory
from collectives.run.bench import MAX_BLOCK, bench, switched_algorithm, switched_entry
from collectives.run.measure import UsageError


@pytest.fixture(scope="module")
def document():
    return bench(["ring", "recursive_doubling"], 3, [1, 1000], warmup=2, iterations=4)


def test_one_record_per_algorithm_and_size_in_the_record_format(document):
    records = document["records"]
    assert [(r["algorithm"], r["elements"]) for r in records] == [
        ("ring", 1), ("recursive_doubling", 1), ("ring", 1000), ("recursive_doubling", 1000)
    ]  # fmt: skip
    for record in records:
        assert record["transport"] == "queue" and record["ranks"] == 3
        assert record["verified"] and not record["library"]
        assert record["message_bytes"] == record["elements"] * 8


def test_counts_are_those_of_one_collective_not_of_every_iteration(document):
    for record in document["records"]:
        predicted = registry.get(record["algorithm"]).predict(3, record["elements"], 8).as_dict()
        assert {f: record[f] for f in theory.COUNT_FIELDS} == predicted
        assert record["matches_theory"]


def test_timing_fields_follow_nccl_tests(document):
    for record in document["records"]:
        record = {**record, **record["timing"]}
        times = record["times_s"]
        # at least 4, in 3 interleaved rounds of equal blocks
        assert record["blocks"] == [2, 2, 2] and len(times) == record["iterations"] == 6
        assert min(times) == record["time_min_s"] > 0
        assert sorted(times)[2] <= record["time_median_s"] <= sorted(times)[3]
        assert record["low_s"] <= record["time_median_s"] <= record["high_s"]
        algbw = record["message_bytes"] / record["time_median_s"] / 1e9
        assert record["algbw_GBps"] == pytest.approx(algbw)
        assert record["busbw_GBps"] == pytest.approx(algbw * 2 * 2 / 3)  # 2(N-1)/N
    assert (document["warmup"], document["iterations"]) == (2, 4)


def test_a_minimum_time_fills_each_point_with_iterations_every_rank_agrees_on():
    document = bench(["ring", "recursive_doubling"], 3, [1], warmup=3, iterations=3,
                     rounds=2, min_time=0.05)  # fmt: skip
    for record in document["records"]:
        timing = record["timing"]
        assert len(timing["blocks"]) == 2 and len(set(timing["blocks"])) == 1
        # the warm-up estimates the count: within a factor of the machine's noise, unless
        # a block is full (an entry faster than the warm-up made it look)
        assert timing["iterations"] > 3
        full = timing["iterations"] == 2 * MAX_BLOCK
        assert full or sum(timing["times_s"]) >= 0.25 * 0.05
        assert record["verified"] and record["matches_theory"]


def test_gloo_runs_on_the_same_forked_ranks():
    pytest.importorskip("torch", reason="Gloo is opt-in: pip install -e '.[gloo]'")
    document = bench(["ring"], 2, [5], warmup=1, iterations=2, peers=["gloo"])
    gloo = document["records"][1]
    assert (gloo["algorithm"], gloo["library"], gloo["verified"]) == ("gloo", True, True)
    assert gloo["rounds"] is None  # a library's internals are not ours to count
    assert document["libraries"]["gloo"].startswith("torch")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"peers": ["mpi"]}, "needs --transport mpi"),
        ({"switch": ["ring"]}, "needs --transport mpi"),
        ({"peers": ["nccl"]}, "unknown peer 'nccl'"),
        ({"iterations": 0}, "iterations >= 1"),
        ({"warmup": -1}, "warmup >= 0"),
        ({"rounds": 0}, "rounds >= 1"),
        ({"min_time": -1.0}, "min-time >= 0"),
        ({"dtype": "float16", "peers": ["mpi"]}, "no float16 sum"),
        ({"transport": "carrier-pigeon"}, "unknown transport"),
    ],
)
def test_bad_requests_fail_before_any_rank_starts(kwargs, message):
    with pytest.raises(UsageError, match=message):
        bench(["ring"], 2, [8], **kwargs)


def test_a_switched_entry_names_its_algorithm():
    assert switched_entry("ring") == "MPI_Allreduce[ring]"
    assert switched_algorithm(switched_entry("default")) == "default"
    assert switched_algorithm("MPI_Allreduce") is None and switched_algorithm("ring") is None


def test_an_unknown_algorithm_is_named():
    with pytest.raises(UsageError, match="unknown algorithm 'butterfly'"):
        bench(["butterfly"], 2, [8])
    with pytest.raises(UsageError, match="nothing to time"):
        bench([], 2, [8])
