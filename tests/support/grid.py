"""The model tests' grid: the closed forms' counts as a measurements table, over the
parameter-free algorithms, and fabrics to price it on (two given ones, or any number of
synthetic ones from a slow LAN to an NVLink-like link)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from collectives import registry
from collectives.model import cost
from collectives.study.question import SEED_PAIR

GRID_ALGORITHMS = ["naive", "ring", "recursive_doubling", "rabenseifner", "binomial_tree"]


def theory_measurements(ranks, elements, itemsize=8) -> pd.DataFrame:
    """A measurements table whose counts are the closed forms (tests the model, not runs)."""
    rows = []
    for algorithm in GRID_ALGORITHMS:
        for n in ranks:
            for m in elements:
                counts = registry.get(algorithm).predict(n, m, itemsize).as_dict()
                rows.append({"algorithm": algorithm, "ranks": n, "elements": m, "dtype": "float64",
                             "message_bytes": m * itemsize, **counts})  # fmt: skip
    return pd.DataFrame(rows)


GIVEN_FABRICS = pd.DataFrame(
    {
        "fabric": ["slow-latency", "fast-latency"],
        "alpha_s": [1e-5, 1e-7],
        "beta_s_per_byte": [1e-9, 1e-9],
    }
)
THEORY_GRID = theory_measurements([2, 4, 8, 16, 64], [4**k for k in range(12)])


def synthetic_fabrics(count: int) -> pd.DataFrame:
    """`count` fabrics from a slow-latency LAN to a fast-latency NVLink-like link."""
    return pd.DataFrame(
        {
            "fabric": [f"fabric-{index:02d}" for index in range(count)],
            "alpha_s": np.geomspace(5e-5, 5e-7, count),
            "beta_s_per_byte": np.geomspace(1e-9, 2e-11, count),
        }
    )


def tables_on(count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(costs, crossover) over the grid's algorithms on `count` synthetic fabrics."""
    fabrics = synthetic_fabrics(count)
    costs = cost.modeled_costs(THEORY_GRID, fabrics, GRID_ALGORITHMS)
    return costs, cost.crossover_table(THEORY_GRID, fabrics, costs, SEED_PAIR)
