"""Every algorithm at every N up to 9 and at 12, 16 and 17, every kind of M: verified against
numpy and theory (hypothesis draws other N)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from collectives import registry
from collectives.algorithms.partition import chunk_start, split_evenly
from collectives.registry import ALGORITHMS, get
from collectives.run.record import DTYPES
from tests.support.runs import run_record

PRIME = 97


def sizes_for(n: int) -> list[int]:
    """M in {1, N-1, N+1, a prime, 1024, 1024 N} (deduplicated, all >= 1)."""
    return sorted({1, max(1, n - 1), n + 1, PRIME, 1024, 1024 * n})


PLAIN = [a for a in ALGORITHMS if not ALGORITHMS[a].required]  # runs at its defaults
# Every N to 9 (powers of two, their neighbours, odd and even non-powers), then 12 (a power
# of two plus a remainder of 4), 16 and 17: where the algorithms' special cases start.
RANKS = [*range(1, 10), 12, 16, 17]
GRID = [(a, n, m) for a in PLAIN for n in RANKS for m in sizes_for(n)]


@pytest.mark.parametrize(("algorithm", "n", "m"), GRID)
def test_verifies_and_matches_theory(algorithm, n, m):
    record = run_record(algorithm, n, m)  # raises unless verified and equal to theory
    assert record["verified"] and record["matches_theory"] and record["ranks_agree"]
    assert record["max_abs_error"] == 0
    entry = registry.get(algorithm)
    predicted = entry.predict(n, m, 8, **entry.resolve({}, n))
    assert record["theory"] == predicted.as_dict()
    assert record["rounds"] == predicted.rounds
    assert record["bytes_total"] == predicted.bytes_total
    assert sum(record["bytes_sent"]) == sum(record["bytes_recv"]) == record["bytes_total"]


CHANNELS, CHUNK_ELEMENTS = 3, 2  # small chunks: many loops, uneven channel blocks


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("loops", [0, 1, 3])  # M below one loop, at one, past three
@pytest.mark.parametrize("extra", [1, 5])
def test_nccl_ring_in_chunks_verifies_and_matches_theory(n, loops, extra):
    m = loops * CHANNELS * n * CHUNK_ELEMENTS + extra
    parameters = {"channels": CHANNELS, "chunk_bytes": 8 * CHUNK_ELEMENTS}
    record = run_record("nccl_ring", n, m, parameters=parameters)
    assert record["verified"] and record["matches_theory"] and record["ranks_agree"]
    ring = registry.get("ring").predict(n, m, 8)
    assert record["bytes_total"] == ring.bytes_total  # the ring's bytes, in more messages
    assert record["messages"] == ring.messages * CHANNELS * (loops + 1)


@pytest.mark.parametrize(("n", "m"), [(3, 7), (5, 23)])
def test_nccl_ring_chunks_are_at_least_one_element(n, m):
    record = run_record("nccl_ring", n, m, parameters={"channels": 2, "chunk_bytes": 1})
    assert record["matches_theory"] and record["messages"] == 2 * n * (n - 1) * 2 * -(-m // (2 * n))


@pytest.mark.parametrize(
    ("n", "g"), [(1, 1), (2, 1), (2, 2), (4, 2), (6, 3), (8, 4), (9, 3), (12, 4), (16, 8), (10, 5)]
)
@pytest.mark.parametrize("m", [1, 3, 97, 1024, 70000])
def test_hierarchical_verifies_and_matches_theory_per_link_class(n, g, m):
    record = run_record("hierarchical", n, m, parameters={"ranks_per_node": g})
    assert record["verified"] and record["matches_theory"] and record["ranks_agree"]
    classes = record["link_classes"]
    assert classes["measured"] == classes["theory"]
    assert classes["measured"]["inter"]["messages"] == (
        0 if n == g else classes["theory"]["inter"]["messages"]
    )


TREE_CHUNK_ELEMENTS = 2  # small chunks: long pipelines


@pytest.mark.parametrize("n", range(2, 18))
@pytest.mark.parametrize("chunks", [0, 1, 3])  # per tree: below one chunk, one, past N·3
def test_double_binary_tree_flat_in_chunks_verifies_and_matches_theory(n, chunks):
    m = 2 * TREE_CHUNK_ELEMENTS * chunks * n + 1  # odd: the trees' halves differ by one
    parameters = {"ranks_per_node": 1, "chunk_bytes": 8 * TREE_CHUNK_ELEMENTS}
    record = run_record("double_binary_tree", n, m, parameters=parameters)
    assert record["verified"] and record["matches_theory"] and record["ranks_agree"]
    per_tree = [-(-half // TREE_CHUNK_ELEMENTS) for half in (m - m // 2, m // 2)]
    assert record["messages"] == 2 * (n - 1) * sum(per_tree)
    assert record["bytes_total"] == registry.get("ring").predict(n, m, 8).bytes_total


@pytest.mark.parametrize(
    ("n", "g"), [(2, 2), (4, 2), (6, 3), (8, 4), (9, 3), (12, 4), (16, 8), (10, 5), (16, 2)]
)
@pytest.mark.parametrize(("m", "chunk_bytes"), [(1, 8), (97, 16), (70000, 524288)])
def test_double_binary_tree_on_nodes_verifies_and_matches_theory(n, g, m, chunk_bytes):
    parameters = {"ranks_per_node": g, "chunk_bytes": chunk_bytes}
    record = run_record("double_binary_tree", n, m, parameters=parameters)
    assert record["verified"] and record["matches_theory"] and record["ranks_agree"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_per_node=st.tuples(st.integers(1, 6), st.integers(1, 6)),
    m=st.integers(1, 20000),
    dtype=st.sampled_from(DTYPES),
)
def test_property_hierarchical_any_layout(n_per_node, m, dtype):
    nodes, g = n_per_node
    record = run_record("hierarchical", nodes * g, m, dtype=dtype, parameters={"ranks_per_node": g})
    assert record["verified"] and record["matches_theory"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    algorithm=st.sampled_from(PLAIN),
    n=st.integers(1, 24),
    m=st.integers(1, 3000),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_any_algorithm_any_shape_any_dtype(algorithm, n, m, dtype, seed):
    record = run_record(algorithm, n, m, dtype=dtype, seed=seed)
    assert record["verified"] and record["matches_theory"] and record["ranks_agree"]
    assert record["itemsize"] == np.dtype(dtype).itemsize


@settings(max_examples=15, deadline=None)
@given(
    algorithm=st.sampled_from(PLAIN),
    n=st.integers(2, 12),
    m=st.integers(1, 2000),
    dtype=st.sampled_from(["float64", "float32", "float16"]),
)
def test_property_real_valued_inputs_within_tolerance(algorithm, n, m, dtype):
    record = run_record(algorithm, n, m, dtype=dtype, data="normal")
    assert record["verified"] and record["ranks_agree"]


def test_registry_lookup_and_descriptions():
    assert get("ring") is ALGORITHMS["ring"]
    with pytest.raises(KeyError, match="valid: naive, ring, recursive_doubling, rabenseifner"):
        get("butterfly")
    assert all(algorithm.description for algorithm in ALGORITHMS.values())


@pytest.mark.parametrize(("length", "parts"), [(10, 3), (2, 5), (0, 1), (16, 4), (1000, 7)])
def test_split_evenly(length, parts):
    chunks = split_evenly(length, parts)
    sizes = [s.stop - s.start for s in chunks]
    assert len(chunks) == parts and sum(sizes) == length
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    starts = [chunk_start(length, parts, index) for index in range(parts + 1)]
    assert starts == [s.start for s in chunks] + [length]  # each chunk's start, alone
