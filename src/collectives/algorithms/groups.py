"""Sub-groups of ranks as Communicators, so an algorithm can run on part of the ranks.

Folding (the p' survivors of a non-power-of-two group) and the hierarchical all-reduce
(the ranks of one node; the ranks holding the same shard on every node) both need one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..comm import Communicator


class SubComm:
    """The ranks `members` of `comm`, renumbered 0..len(members)-1 in that order."""

    def __init__(self, comm: Communicator, members: Sequence[int]) -> None:
        self._comm, self._members = comm, members
        self.size = len(members)
        self.rank = members.index(comm.rank)

    def send(self, buf: np.ndarray, dest: int) -> None:
        self._comm.send(buf, self._members[dest])

    def recv(self, source: int, out: np.ndarray | None = None) -> np.ndarray:
        return self._comm.recv(self._members[source], out)

    def sendrecv(
        self, sendbuf: np.ndarray, dest: int, source: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        return self._comm.sendrecv(sendbuf, self._members[dest], self._members[source], out)

    def recv_reduce(self, source: int, inoutbuf: np.ndarray) -> None:
        self._comm.recv_reduce(self._members[source], inoutbuf)

    def sendrecv_reduce(
        self, sendbuf: np.ndarray, dest: int, source: int, inoutbuf: np.ndarray
    ) -> None:
        self._comm.sendrecv_reduce(sendbuf, self._members[dest], self._members[source], inoutbuf)

    def exchange(
        self,
        sendbufs: Sequence[np.ndarray],
        dests: Sequence[int],
        sources: Sequence[int],
        outs: Sequence[np.ndarray | None] | None = None,
    ) -> list[np.ndarray]:
        return self._comm.exchange(
            sendbufs, [self._members[d] for d in dests], [self._members[s] for s in sources], outs
        )

    def reduce_local(self, inbuf: np.ndarray, inoutbuf: np.ndarray) -> None:
        self._comm.reduce_local(inbuf, inoutbuf)

    def copy(self, x: np.ndarray) -> np.ndarray:
        return self._comm.copy(x)
