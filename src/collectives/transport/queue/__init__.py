"""The queue transport: ranks forked on this host, linked by pipes and shared memory."""

import functools

from ..launch import Launch
from .faults import FAULT_KINDS, Fault
from .forking import launch
from .links import shared_array, wait_mode

__all__ = ["FAULT_KINDS", "Fault", "faulty", "launch", "shared_array", "wait_mode"]


def faulty(spec: str, ranks: int) -> Launch:
    """launch with the fault `spec` (KIND:RANK) injected; ValueError naming what is wrong."""
    return functools.partial(launch, fault=Fault.parse(spec, ranks))
