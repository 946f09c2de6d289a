"""The closed loop's tables: the clock's selection from forced runs, the files' names for a
size, and the tuned-vs-default rows with their noise."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from collectives.study import tuning

SIZES = [1, 64, 4096, 262144]


def forced_times() -> dict:
    """Recursive doubling fastest up to 64 elements, the ring from 4096 (and a slow
    Rabenseifner), for one library at N = 4."""
    rd = {1: 1e-6, 64: 2e-6, 4096: 5e-5, 262144: 8e-3}
    ring = {1: 3e-6, 64: 4e-6, 4096: 3e-5, 262144: 4e-3}
    rab = {m: 2 * t for m, t in ring.items()}
    return {("openmpi", 4, "recursive_doubling"): rd, ("openmpi", 4, "ring"): ring,
            ("openmpi", 4, "rabenseifner"): rab}  # fmt: skip


def test_the_clock_switches_at_the_geometric_middle():
    table = tuning.clock_selection(forced_times(), itemsize=8)
    assert list(table.algorithm) == ["recursive_doubling", "ring"]
    assert table.min_bytes.iloc[0] == 0 and pd.isna(table.max_bytes.iloc[-1])
    assert table.max_bytes.iloc[0] == int(math.sqrt(64 * 4096)) * 8  # 512 elements
    assert table.min_bytes.iloc[1] == table.max_bytes.iloc[0] + 1


def test_a_selection_names_the_rules_of_the_largest_n_below():
    table = tuning.clock_selection(forced_times(), itemsize=8)
    assert tuning.named(table, 4, 8) == "recursive_doubling"
    assert tuning.named(table, 6, 10**6) == "ring"  # N = 6 follows N = 4's rules
    assert tuning.named(table, 2, 8) is None  # no rules at or below N = 2


def test_tuned_rows_carry_speedups_names_and_noise():
    forced = forced_times()
    runs = {("openmpi", f"force-{a}", 4): t for (_, _, a), t in forced.items()}
    best = {m: min(t[m] for t in forced.values()) for m in SIZES}
    runs[("openmpi", "default", 4)] = {m: 2 * t for m, t in best.items()}
    runs[("openmpi", "clock", 4)] = {m: 1.1 * t for m, t in best.items()}  # 10% off forced
    runs[("openmpi", "model", 4)] = forced[("openmpi", 4, "recursive_doubling")]
    observed = {("openmpi", "clock", 4): {64: ["recursive_doubling"], 4096: ["ring"]}}
    clock = tuning.clock_selection(forced, itemsize=8)
    model = clock.drop(columns="library").assign(algorithm="recursive_doubling")
    table = tuning.tuned_vs_default(runs, observed, {"model": model, "clock": clock},
                                    {"openmpi": "Open MPI v5.0.11"}, itemsize=8)  # fmt: skip
    assert len(table) == len(SIZES)
    assert table.clock_speedup.to_numpy() == pytest.approx(2 / 1.1)
    assert list(table.clock_algorithm) == ["recursive_doubling"] * 2 + ["ring"] * 2
    assert list(table.clock_observed) == ["", "recursive_doubling", "ring", ""]
    assert table.noise.to_numpy() == pytest.approx(abs(1 / 1.1 - 1))
    assert not table.clock_slower_than_noise.any()
    assert list(table.clock_obeyed) == [None, True, True, None]
    summary = tuning.summary(table)
    assert (summary.library.item(), summary.ranks.item()) == ("Open MPI", 4)
    assert summary.clock_median_speedup.item() == pytest.approx(2 / 1.1)
    assert (summary.checked.item(), summary.obeyed.item()) == (2, 2)
