"""Fault injection, a testing aid: make one rank fail in a chosen way (`--inject-fault`).

crash, kill and hang strike when the rank first sends or receives (mid-collective, with its
peers blocked on it), or when it finishes if it never communicates (N = 1).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field

import numpy as np

from ...comm import Communicator
from .. import FAULT_KINDS


@dataclass
class Fault:
    """One injected fault: what happens, and to which rank."""

    kind: str
    rank: int
    _struck: bool = field(default=False, repr=False)

    @classmethod
    def parse(cls, spec: str, ranks: int) -> Fault:
        """Parse KIND:RANK, e.g. 'kill:3'; ValueError names what is wrong."""
        kind, _, rank_text = spec.partition(":")
        if kind not in FAULT_KINDS or not rank_text.lstrip("-").isdigit():
            kinds = ", ".join(FAULT_KINDS)
            raise ValueError(f"--inject-fault must be KIND:RANK with KIND one of {kinds}")
        rank = int(rank_text)
        if not 0 <= rank < ranks:
            raise ValueError(f"--inject-fault rank {rank} is outside 0..{ranks - 1}")
        return cls(kind, rank)

    def on_first_use(self) -> None:
        """Called by the rank's endpoint at its first send or receive."""
        if self.kind == "crash":
            self._struck = True
            raise RuntimeError("injected crash")
        if self.kind == "kill":
            self._struck = True
            os.kill(os.getpid(), signal.SIGKILL)
        if self.kind == "hang":
            self._struck = True
            while True:
                time.sleep(3600)

    def after_program(self, comm: Communicator, result: np.ndarray) -> None:
        """Called with the rank's result before it is handed back."""
        if self.kind == "corrupt":
            result[:1] += 1
        elif self.kind == "extra":
            comm.sendrecv(result, comm.rank, comm.rank)
        elif not self._struck:
            self.on_first_use()
