"""Runs for the tests, in the shapes they check: the record as `collectives measure` writes
it (a JSON dict), with or without its trace."""

from __future__ import annotations

from collectives.run.measure import measure
from collectives.transport.trace import Trace


def run_record(*args, **kwargs) -> dict:
    """The record of one verified run, as JSON data."""
    return measure(*args, **kwargs).record.to_dict()


def run_with_trace(*args, **kwargs) -> tuple[dict, Trace]:
    """The record of one verified run, as JSON data, and its trace."""
    measured = measure(*args, **kwargs)
    return measured.record.to_dict(), measured.trace
