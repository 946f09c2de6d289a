"""Grid axes as written in the config: a list of values, or a geometric range."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def expand_axis(axis: Sequence[int] | Mapping[str, int]) -> list[int]:
    """The sorted, distinct values of an axis.

    A list is taken as is; {start, stop, factor} means start, start*factor, ... up to and
    including stop, e.g. {start: 1, stop: 1048576, factor: 4} is 4^0 .. 4^10.
    """
    if isinstance(axis, Mapping):
        start, stop, factor = int(axis["start"]), int(axis["stop"]), int(axis["factor"])
        if start < 1 or factor < 2 or stop < start:
            raise ValueError(f"a range needs 1 <= start <= stop and factor >= 2, got {dict(axis)}")
        values, value = [], start
        while value <= stop:
            values.append(value)
            value *= factor
        return values
    return sorted({int(value) for value in axis})
