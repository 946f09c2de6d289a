"""The queue transport: rank processes, inbox links, fault detection and all accounting."""

from .accounting import PortClock, RunCounts
from .faults import FAULT_KINDS, Fault
from .launcher import RankFailure, RankRun, launch
from .links import shared_array

__all__ = [
    "FAULT_KINDS",
    "Fault",
    "PortClock",
    "RankFailure",
    "RankRun",
    "RunCounts",
    "launch",
    "shared_array",
]
