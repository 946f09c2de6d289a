"""Aggregation of run records and the seed's table."""

from __future__ import annotations

import pytest

from collectives.run.measure import measure
from collectives.study import aggregate, markdown


@pytest.fixture(scope="module")
def records():
    runs = [measure(a, 8, 1024) for a in ("ring", "recursive_doubling")] + [measure("naive", 3, 5)]
    return [run.record for run in runs]


def test_measurements_table_has_measured_and_theory_columns(records):
    table = aggregate.measurements_table(records)
    assert list(table.columns) == aggregate.COLUMNS
    assert len(table) == 3
    ring = table[table.algorithm == "ring"].iloc[0]
    assert ring.message_bytes == 8192 and ring.theory_bytes_total == ring.bytes_total == 114688
    aggregate.check_runs(table)


def test_seed_check_reproduces_the_seed_rows(records):
    text = markdown.seed_check_markdown(aggregate.measurements_table(records))
    assert "| ring | 8 | 1024 | 14 | 114688 | 114688 | OK |" in text
    assert "| recursive_doubling | 8 | 1024 | 3 | 196608 | 196608 | OK |" in text
    assert "| naive | float64 | 3 | 5 |" in text


def test_seed_rows_outside_the_grid_are_said_so(records):
    text = markdown.seed_check_markdown(aggregate.measurements_table(records[2:]))
    assert "| ring | 8 | 1024 | not in this grid |" in text


def test_a_bad_run_fails_the_check(records):
    table = aggregate.measurements_table(records)
    table.loc[0, "verified"] = False
    with pytest.raises(aggregate.RunCheckError, match=r"1 run\(s\) failed"):
        aggregate.check_runs(table)
