"""Cost tables on 1, 4 and 18 synthetic fabrics: every figure must read well at each."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.support.grid import tables_on

FABRIC_COUNTS = (1, 4, 18)


@pytest.fixture(scope="module", params=FABRIC_COUNTS, ids=lambda n: f"{n}-fabrics")
def fabric_tables(request) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(costs, crossover) over the grid's algorithms on 1, 4 or 18 fabrics."""
    return tables_on(request.param)
