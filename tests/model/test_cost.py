"""Modeled costs, winners, crossovers and the fitted cost shape."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest

from collectives.model import cost
from collectives.study import markdown
from collectives.study.question import SEED_PAIR
from tests.support.grid import GIVEN_FABRICS, GRID_ALGORITHMS, THEORY_GRID, theory_measurements


def test_modeled_time_is_rounds_alpha_plus_critical_bytes_beta():
    costs = cost.modeled_costs(THEORY_GRID, GIVEN_FABRICS, GRID_ALGORITHMS)
    assert len(costs) == len(THEORY_GRID) * len(GIVEN_FABRICS)
    expected = costs.rounds * costs.alpha_s + costs.bytes_critical * costs.beta_s_per_byte
    assert np.allclose(costs.time_s, expected)
    assert list(dict.fromkeys(costs.fabric)) == ["slow-latency", "fast-latency"]  # config order
    for _, point in costs.groupby(["fabric", "ranks", "elements"]):
        winner = point.loc[point.time_s.idxmin()]
        assert (point.winner == winner.algorithm).all()
        assert point.is_winner.sum() == 1


def test_ties_go_to_the_first_listed_algorithm():
    one_rank = theory_measurements([1], [1, 8])
    costs = cost.modeled_costs(one_rank, GIVEN_FABRICS, ["ring", "naive", "recursive_doubling"])
    assert set(costs.winner) == {"ring"}


def test_crossover_of_ring_and_recursive_doubling_at_eight_ranks():
    """T_rd = 3a + 3Bb and T_ring = 14a + 1.75Bb meet at B = 8.8 a/b."""
    costs = cost.modeled_costs(THEORY_GRID, GIVEN_FABRICS, GRID_ALGORITHMS)
    table = cost.crossover_table(THEORY_GRID, GIVEN_FABRICS, costs, SEED_PAIR).set_index(
        ["fabric", "ranks"]
    )
    for fabric in GIVEN_FABRICS.itertuples():
        at8 = table.loc[(fabric.fabric, 8)]
        assert at8.analytic_bytes == pytest.approx(8.8 * fabric.alpha_s / fabric.beta_s_per_byte)
        # On the grid: the smallest size from which ring is cheaper at every larger size.
        sizes = sorted(THEORY_GRID.message_bytes.unique())
        cheaper = [14 * fabric.alpha_s + 1.75 * b * 1e-9 < 3 * fabric.alpha_s + 3 * b * 1e-9
                   for b in sizes]  # fmt: skip
        first = next(i for i in range(len(sizes)) if all(cheaper[i:]))
        assert at8.grid_bytes == sizes[first]
    assert math.isnan(table.loc[("slow-latency", 2)].analytic_bytes)  # ring never wins at N=2
    assert (
        table.loc[("slow-latency", 64)].analytic_bytes
        > table.loc[("slow-latency", 8)].analytic_bytes
    )


def test_winner_ranges_tile_the_sizes_with_the_cheapest_algorithm():
    costs = cost.modeled_costs(THEORY_GRID, GIVEN_FABRICS, GRID_ALGORITHMS)
    for _, group in costs.groupby(["fabric", "ranks"]):
        ranges = cost.ranges(group)
        assert ranges[0][0] == 0 and np.isinf(ranges[-1][1])
        assert all(a[1] == b[0] for a, b in pairwise(ranges))  # contiguous
        for row in group[group.is_winner].itertuples():  # every grid size in its winner's range
            (inside,) = [name for low, high, name in ranges if low <= row.message_bytes < high]
            assert inside == row.algorithm


def test_thresholds_are_exact_where_the_counts_are_affine():
    """N = 8: T_rd = 3a + 3Bb and T_rabenseifner = 6a + 1.75Bb cross at B = 2.4 a/b."""
    costs = cost.modeled_costs(THEORY_GRID, GIVEN_FABRICS, GRID_ALGORITHMS)
    for fabric in GIVEN_FABRICS.itertuples():
        group = costs[(costs.fabric == fabric.fabric) & (costs.ranks == 8)]
        ranges = cost.ranges(group)
        (rd_end,) = [high for _, high, name in ranges if name == "recursive_doubling"]
        assert rd_end == pytest.approx(2.4 * fabric.alpha_s / fabric.beta_s_per_byte)


def test_rabenseifner_beats_ring_and_recursive_doubling_in_the_middle():
    """Its rounds are log2 N-like and its bytes ring-like: at N=64 it wins mid-size messages."""
    costs = cost.modeled_costs(THEORY_GRID, GIVEN_FABRICS, GRID_ALGORITHMS)
    row = cost.crossover_table(THEORY_GRID, GIVEN_FABRICS, costs, SEED_PAIR).set_index(
        ["fabric", "ranks"]
    )
    at64 = row.loc[("slow-latency", 64)]
    assert at64.recursive_doubling_from_bytes == 0
    assert at64.rabenseifner_from_bytes == at64.recursive_doubling_to_bytes
    assert np.isinf(at64.rabenseifner_to_bytes)  # ring never wins in the flat model
    assert np.isnan(at64.naive_from_bytes)


def test_cost_shape_recovers_the_textbook_forms():
    shape = cost.cost_shape(THEORY_GRID).set_index(["algorithm", "quantity"])

    def coefficients(algorithm, quantity):
        row = shape.loc[(algorithm, quantity)]
        return [row[f"c[{name}]"] for name in cost.BASIS]

    assert np.allclose(coefficients("ring", "rounds"), [-2, 2, 0, 0], atol=1e-9)
    assert np.allclose(coefficients("ring", "bandwidth"), [2, 0, -2, 0], atol=1e-9)
    assert np.allclose(coefficients("recursive_doubling", "rounds"), [0, 0, 0, 1], atol=1e-9)
    assert np.allclose(coefficients("naive", "bandwidth"), [-2, 2, 0, 0], atol=1e-9)
    assert np.allclose(coefficients("rabenseifner", "rounds"), [0, 0, 0, 2], atol=1e-9)
    assert np.allclose(coefficients("rabenseifner", "bandwidth"), [2, 0, -2, 0], atol=1e-9)
    assert np.allclose(coefficients("binomial_tree", "bandwidth"), [0, 0, 0, 2], atol=1e-9)
    assert markdown.formula(shape.loc[("ring", "bandwidth")]) == "2.000 - 2.000/N"
    assert markdown.formula(shape.loc[("recursive_doubling", "rounds")]) == "1.000 log2 N"
    text = markdown.cost_model_markdown(cost.cost_shape(THEORY_GRID))
    assert "| ring | float64 | bandwidth | 2(N-1)/N | 2.000 - 2.000/N |" in text


def test_cost_shape_says_when_the_grid_is_too_small():
    shape = cost.cost_shape(theory_measurements([2, 4], [64]))
    assert "underdetermined" in markdown.formula(shape.iloc[0])
