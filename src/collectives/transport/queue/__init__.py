"""The queue transport: ranks forked on this host, linked by pipes and shared memory."""

from .faults import FAULT_KINDS, Fault
from .launcher import launch
from .links import shared_array, wait_mode

__all__ = ["FAULT_KINDS", "Fault", "launch", "shared_array", "wait_mode"]
