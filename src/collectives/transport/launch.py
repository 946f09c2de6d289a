"""What every transport's launcher shares: the program types, the outcome, the failure.

A launch runs `program(comm, prepare(rank))` on every rank and returns, at the root, every
rank's result array, the counts, the trace and the clocks read (RankRun); any failure on any
rank ends the whole run with RankFailure naming the rank and the cause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..comm import Communicator
from . import libc
from .accounting import RunCounts
from .trace import Trace

Prepare = Callable[[int], Any]
Program = Callable[[Communicator, Any], np.ndarray]


class RankFailure(RuntimeError):
    """A rank failed: raised, was killed, or did not finish in time."""


@dataclass
class RankRun:
    """What a launch returns: every rank's result, the counts, the trace, the clocks read.

    collective_seconds is the slowest rank's time from its start to its return, each rank
    timed on its own clock (so it means the same on one host and across hosts);
    wall_seconds is the whole launch, process start-up included.
    """

    results: np.ndarray
    counts: RunCounts
    trace: Trace
    collective_seconds: float
    wall_seconds: float


class Launch(Protocol):
    """How every transport starts a program on its ranks (queue.launch, mpi.launch): each
    rank runs program(comm, prepare(rank)), its result lands in results[rank], and the root
    returns the RankRun (other MPI ranks None). A transport's own options (the queue's
    fault injection) are bound before the call."""

    def __call__(
        self,
        size: int,
        prepare: Prepare,
        program: Program,
        *,
        results: np.ndarray,
        largest_message: int,
        timeout: float,
        on_ready: Callable[[], None] | None = None,
    ) -> RankRun | None: ...


def warm_heap(nbytes: int) -> None:
    """Fault in `nbytes` of heap and keep it, so the timed run allocates warm memory.

    A fresh process pays a page fault per 4 KiB the first time it touches memory (here
    ~0.4 ms per MiB, as much as the copies themselves); a long-running program pays it
    once. glibc returns large blocks to the kernel on free unless told otherwise.
    """
    libc.keep_freed_heap()
    np.ones(nbytes // 8 + 1)
