"""Grid axes: lists and geometric ranges."""

from __future__ import annotations

import pytest

from collectives.study.grid import expand_axis


def test_geometric_range_includes_both_ends():
    assert expand_axis({"start": 1, "stop": 1048576, "factor": 4}) == [4**k for k in range(11)]
    assert expand_axis({"start": 3, "stop": 20, "factor": 2}) == [3, 6, 12]


def test_lists_are_sorted_and_deduplicated():
    assert expand_axis([8, 2, 8, 3]) == [2, 3, 8]


@pytest.mark.parametrize(
    "axis",
    [{"start": 0, "stop": 4, "factor": 2}, {"start": 4, "stop": 2, "factor": 2},
     {"start": 1, "stop": 4, "factor": 1}],
)  # fmt: skip
def test_bad_ranges(axis):
    with pytest.raises(ValueError, match="factor >= 2"):
        expand_axis(axis)
