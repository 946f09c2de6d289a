"""MPICH's folding of a non-power-of-two group, shared by the power-of-two algorithms.

With p' = 2^floor(log2 N) and rem = N - p': among the first 2*rem ranks each even rank
sends its vector to the next odd rank and sits out; the p' survivors, renumbered 0..p'-1,
run a power-of-two algorithm; each odd rank then sends the result back to its even partner.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..comm import Communicator

InPlace = Callable[[Communicator, np.ndarray], None]


class Survivors:
    """The p' ranks left after folding, renumbered 0..p'-1: a Communicator over them."""

    def __init__(self, comm: Communicator, rem: int) -> None:
        self._comm, self._rem = comm, rem
        self.size = comm.size - rem
        self.rank = comm.rank // 2 if comm.rank < 2 * rem else comm.rank - rem

    def real(self, rank: int) -> int:
        """The real rank of survivor `rank`."""
        return 2 * rank + 1 if rank < self._rem else rank + self._rem

    def send(self, buf: np.ndarray, dest: int) -> None:
        self._comm.send(buf, self.real(dest))

    def recv(self, source: int, out: np.ndarray | None = None) -> np.ndarray:
        return self._comm.recv(self.real(source), out)

    def sendrecv(
        self, sendbuf: np.ndarray, dest: int, source: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        return self._comm.sendrecv(sendbuf, self.real(dest), self.real(source), out)

    def recv_reduce(self, source: int, inoutbuf: np.ndarray) -> None:
        self._comm.recv_reduce(self.real(source), inoutbuf)

    def sendrecv_reduce(
        self, sendbuf: np.ndarray, dest: int, source: int, inoutbuf: np.ndarray
    ) -> None:
        self._comm.sendrecv_reduce(sendbuf, self.real(dest), self.real(source), inoutbuf)

    def reduce_local(self, inbuf: np.ndarray, inoutbuf: np.ndarray) -> None:
        self._comm.reduce_local(inbuf, inoutbuf)


def folded(comm: Communicator, x: np.ndarray, allreduce_in_place: InPlace) -> np.ndarray:
    """All-reduce `x` with a power-of-two algorithm on any N, by folding."""
    rank = comm.rank
    rem = comm.size - (1 << (comm.size.bit_length() - 1))
    result = x.copy()
    if rank < 2 * rem and rank % 2 == 0:  # folded out: hand over, wait for the result
        comm.send(result, rank + 1)
        return comm.recv(rank + 1, out=result)
    if rank < 2 * rem:
        comm.recv_reduce(rank - 1, result)
    allreduce_in_place(Survivors(comm, rem), result)
    if rank < 2 * rem:  # unfold: return the result to the even partner
        comm.send(result, rank - 1)
    return result
