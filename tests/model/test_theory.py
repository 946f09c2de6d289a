"""The closed forms: the seed's table, small cases by hand, and their internal consistency."""

from __future__ import annotations

import pytest

from collectives import registry
from collectives.algorithms.double_binary_tree import tree_links
from collectives.model import theory
from collectives.model.topology import Topology
from collectives.registry import ALGORITHMS
from tests.algorithms.test_double_binary_tree import DRAWN  # trees.cc's drawings


def test_every_algorithm_has_a_theory_and_a_textbook_form():
    for algorithm in ALGORITHMS.values():
        assert algorithm.theory.__module__ == theory.__name__
        assert algorithm.cost.latency and algorithm.cost.bandwidth and algorithm.cost.reduction


def test_the_seed_table():
    ring = registry.get("ring").predict(8, 1024, 8)
    rd = registry.get("recursive_doubling").predict(8, 1024, 8)
    assert (ring.rounds, ring.bytes_total) == (14, 114688)
    assert (rd.rounds, rd.bytes_total) == (3, 196608)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_one_rank_moves_nothing(algorithm):
    entry = ALGORITHMS[algorithm]
    parameters = entry.resolve({p.name: 1 for p in entry.required}, 1)
    assert registry.get(algorithm).predict(1, 100, 8, **parameters) == theory.Counts(0, 0, 0, 0, 0)


def test_naive_and_ring_move_the_same_total_bytes():
    for n in range(2, 20):
        assert theory.naive(n, 1000, 4).bytes_total == theory.ring(n, 1000, 4).bytes_total


def test_recursive_doubling_by_hand():
    # N = 6: p' = 4, rem = 2 -> fold, 2 rounds, unfold.
    assert theory.recursive_doubling(6, 10, 1) == theory.Counts(4, 12, 120, 40, 60)
    assert theory.recursive_doubling(16, 10, 1) == theory.Counts(4, 64, 640, 40, 80)


def _ring_hotspot_by_enumeration(n: int, m: int) -> int:
    """Max over ranks of the elements moved, from the chunk sizes (independent check)."""
    base, extra = divmod(m, n)
    c = [base + (1 if i < extra else 0) for i in range(n)]
    return max(4 * m - (c[r] + 2 * c[(r + 1) % n] + c[(r + 2) % n]) for r in range(n))


@pytest.mark.parametrize("n", range(2, 18))
@pytest.mark.parametrize("m", [1, 2, 3, 5, 7, 16, 17, 100, 1023])
def test_ring_hotspot_closed_form_matches_chunk_enumeration(n, m):
    assert theory.ring(n, m, 1).hotspot_bytes == _ring_hotspot_by_enumeration(n, m)


def test_ring_uneven_chunks_by_hand():
    # N = 3, M = 5: chunks 2, 2, 1; rank 1 moves 4M - (c1 + 2 c2 + c0) = 20 - 6 = 14.
    counts = theory.ring(3, 5, 1)
    assert counts.bytes_critical == 2 * 2 * 2
    assert counts.hotspot_bytes == 14


def test_binomial_tree_by_hand():
    # N = 5: rank 0 receives from 1, 2 (holding 2+3) and 4, then sends to 4, 2, 1; 2 -> 3.
    assert theory.binomial_tree(5, 10, 1) == theory.Counts(6, 8, 80, 60, 60)
    assert theory.binomial_tree(8, 10, 1) == theory.Counts(6, 14, 140, 60, 60)


def test_rabenseifner_matches_the_issue_forms_when_chunks_are_even():
    for n in (2, 4, 8, 16):
        m = 8 * n
        assert theory.rabenseifner(n, m, 2) == theory.Counts(
            rounds=2 * (n.bit_length() - 1),
            messages=2 * n * (n.bit_length() - 1),
            bytes_total=2 * (n - 1) * m * 2,
            bytes_critical=2 * (n - 1) * (m // n) * 2,
            hotspot_bytes=4 * (n - 1) * (m // n) * 2,
        )
    # rem > 0: N = 6, p' = 4, M = 40 -> folding adds a vector each way.
    p, m = 4, 40
    assert theory.rabenseifner(6, m, 1) == theory.Counts(
        2 * 2 + 2, 2 * p * 2 + 2 * 2, (2 * (p - 1) + 4) * m,
        2 * (p - 1) * m // p + 2 * m, 4 * (p - 1) * m // p + 2 * m,
    )  # fmt: skip


def test_rabenseifner_uneven_chunks_by_hand():
    # p' = 4, M = 5: chunks 2,1,1,1. The heaviest kept halves are 3 then 2, so the critical
    # path is 3 + 2 on the way down and 2 + 3 on the way up; rank 0 moves 5 + 3 each way.
    counts = theory.rabenseifner(4, 5, 1)
    assert counts.bytes_critical == 10 and counts.hotspot_bytes == 16
    assert counts.bytes_total == 2 * 3 * 5


def test_theory_states_the_hierarchical_switch_the_implementation_makes():
    """Theory restates the threshold instead of importing it: the two must agree (the
    conformance grid then checks the counts on both sides of it)."""
    from collectives.algorithms import hierarchical

    assert theory.HIERARCHICAL_DOUBLING_BELOW == hierarchical.RECURSIVE_DOUBLING_BELOW


@pytest.mark.parametrize(("count", "tree"), DRAWN)
def test_the_theory_s_trees_are_those_trees_cc_draws(count, tree):
    links = theory.nccl_trees(count, 1)[tree]
    assert [parent for parent, _ in links] == DRAWN[count, tree]


def test_the_in_order_tree_by_hand():
    # 6 nodes: 0 -> 4; 4's range below is 1..3 (root 2, leaves 1 and 3), above it 5.
    assert theory.in_order_tree(6) == ([None, 2, 4, 2, 0, 4], [[4], [], [1, 3], [], [2, 5], []])
    assert theory.in_order_tree(1) == ([None], [[]])


@pytest.mark.parametrize("g", [1, 2, 3])
@pytest.mark.parametrize("count", range(1, 34))
def test_the_theory_s_trees_are_the_implementation_s(count, g):
    """Derived independently, the theory's trees equal the algorithm's, child order too."""
    n = count * g
    for tree, links in enumerate(theory.nccl_trees(n, g)):
        assert links == [tree_links(rank, n, Topology(g), tree) for rank in range(n)]
