"""Transports: how ranks are started and linked, and where all accounting happens.

`queue` forks one OS process per rank on this host (links are pipes and shared memory);
`mpi` runs each rank as an MPI process started by mpiexec, possibly across hosts. Both
give ranks the same Communicator and count the same bytes, messages, clocks and traces.
They share base (the Communicator calls over three moves), accounting, launch (the outcome
and the failure of a launch) and trace; importing this package starts neither.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    from .launch import Launch

TRANSPORTS = ("queue", "mpi")
# The queue transport's fault injection, a testing aid (`collectives measure --inject-fault`)
FAULT_KINDS = {
    "crash": "the rank raises an exception",
    "kill": "the rank is killed by SIGKILL",
    "hang": "the rank stops making progress (until --timeout)",
    "corrupt": "the rank's result is off by one in its first element",
    "extra": "the rank sends one extra message (to itself) after the algorithm",
}
Value = TypeVar("Value")


def _here(make: Callable[[], Value]) -> Value:
    """Ranks forked from this process inherit what it makes before the launch."""
    return make()


@dataclass(frozen=True)
class Transport:
    """A transport's launcher, the allocator of the (ranks, elements) result array, the
    number of ranks it was started with, if it decides that (mpiexec -n does), its fault
    injection, if it has one (the queue's testing aid: faulty(spec, ranks) is its launcher
    with a fault bound; ValueError for a bad spec), and from_root(make): make() called once,
    by the root, and its value in every process that will be a rank."""

    name: str
    launch: Launch
    result_array: Callable[[tuple[int, int], Any], np.ndarray]
    started_ranks: Callable[[], int | None] = lambda: None
    faulty: Callable[[str, int], Launch] | None = None
    from_root: Callable[[Callable[[], Any]], Any] = _here


def get_transport(name: str) -> Transport:
    """The transport called `name`; ValueError if unknown or not installed."""
    if name == "queue":
        from . import queue

        queue.wait_mode()  # a bad $COLLECTIVES_WAIT is bad input, reported before any launch
        return Transport("queue", queue.launch, queue.shared_array, faulty=queue.faulty)
    if name == "mpi":
        try:
            from . import mpi
        except ImportError as exc:
            raise ValueError(
                f"the mpi transport needs mpi4py and an MPI library ({exc}); "
                "pip install 'collectives[mpi]'"
            ) from None
        return Transport(
            "mpi", mpi.launch, mpi.result_array, mpi.world_size, from_root=mpi.from_root
        )
    raise ValueError(f"unknown transport {name!r}; valid transports: {', '.join(TRANSPORTS)}")
