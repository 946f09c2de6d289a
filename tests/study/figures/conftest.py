"""Cost tables on 1, 4 and 18 synthetic fabrics: every figure must read well at each."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from collectives.model import cost
from tests.model.test_cost import ALGORITHMS, GRID

FABRIC_COUNTS = (1, 4, 18)


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
    costs = cost.modeled_costs(GRID, fabrics, ALGORITHMS)
    return costs, cost.crossover_table(GRID, fabrics, costs)


@pytest.fixture(scope="module", params=FABRIC_COUNTS, ids=lambda n: f"{n}-fabrics")
def fabric_tables(request) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(costs, crossover) over the grid's algorithms on 1, 4 or 18 fabrics."""
    return tables_on(request.param)
