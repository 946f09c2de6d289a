"""What every transport's endpoint shares: the Communicator calls, built on three moves.

A transport supplies _start_send (stamp the message in the Ledger and start it on its
way; returns a handle), _finish_send (wait until the send buffer may be reused) and
_receive (the next message from a source, copied or added into a buffer, counted). The
calls an algorithm makes, and the counting around them, are then the same on every
transport.
"""

from __future__ import annotations

import functools
import select
from collections.abc import Sequence
from typing import Any

import numpy as np

from .accounting import Ledger

HEADER_BYTES = 32  # every message's header: sizes, dtype, clock stamps
INLINE_MAX_BYTES = select.PIPE_BUF - HEADER_BYTES  # payloads up to this travel in the header's
# write (one atomic pipe write on the queue transport; one MPI message on mpi)


class CountingComm:
    """A rank's Communicator (see collectives.comm) over a transport's three moves."""

    rank: int
    size: int
    ledger: Ledger

    # -- the Communicator interface -------------------------------------------------------

    def send(self, buf: np.ndarray, dest: int) -> None:
        """Send `buf` to `dest`; returns once `buf` may be reused (blocking send)."""
        self._finish_send(self._start_send(buf, dest))

    def recv(self, source: int, out: np.ndarray | None = None) -> np.ndarray:
        """Receive the next message from `source`, into `out` if given."""
        return self._receive(source, out, add=False)

    def recv_reduce(self, source: int, inoutbuf: np.ndarray) -> None:
        """Receive the next message from `source` and add it into `inoutbuf`."""
        self._receive(source, inoutbuf, add=True)

    def sendrecv(
        self, sendbuf: np.ndarray, dest: int, source: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Send to `dest` and receive from `source`, progressing both at once."""
        sending = self._start_send(sendbuf, dest)
        received = self._receive(source, out, add=False)
        self._finish_send(sending)
        return received

    def sendrecv_reduce(
        self, sendbuf: np.ndarray, dest: int, source: int, inoutbuf: np.ndarray
    ) -> None:
        """Send to `dest` while receiving from `source` and adding into `inoutbuf`."""
        if np.may_share_memory(sendbuf, inoutbuf):
            raise ValueError("sendrecv_reduce: sendbuf and inoutbuf must not overlap")
        sending = self._start_send(sendbuf, dest)
        self._receive(source, inoutbuf, add=True)
        self._finish_send(sending)

    def exchange(
        self,
        sendbufs: Sequence[np.ndarray],
        dests: Sequence[int],
        sources: Sequence[int],
        outs: Sequence[np.ndarray | None] | None = None,
    ) -> list[np.ndarray]:
        """The sendrecv pairs one after another, marked in the trace as needing none of
        their receives (see collectives.comm)."""
        outs = [None] * len(sources) if outs is None else outs
        if not len(sendbufs) == len(dests) == len(sources) == len(outs):
            raise ValueError("exchange: as many send buffers, destinations, sources and outs")
        self.ledger.on_exchange(len(sendbufs))
        return [
            self.sendrecv(buf, dest, source, out)
            for buf, dest, source, out in zip(sendbufs, dests, sources, outs, strict=True)
        ]

    def reduce_local(self, inbuf: np.ndarray, inoutbuf: np.ndarray) -> None:
        """inoutbuf += inbuf, counted as a reduction of inbuf.size elements."""
        check_same_size(inbuf.size, inoutbuf, "reduce_local: inbuf")
        self._combine(inbuf, inoutbuf)
        self.ledger.on_reduce(inbuf.size)

    def copy(self, x: np.ndarray) -> np.ndarray:
        """A working copy of x (plain memory, unless the transport has memory to share)."""
        return x.copy()

    # -- beyond the interface: for harnesses, never for algorithms ------------------------------

    def barrier(self) -> None:
        """Wait until every rank is here (uncounted, outside the ledger)."""
        raise NotImplementedError

    def restart_counts(self) -> None:
        """Start a fresh ledger: the next collective's counts alone."""
        self.ledger = Ledger()

    # -- the transport's moves ----------------------------------------------------------------

    def _start_send(self, buf: np.ndarray, dest: int) -> Any:
        raise NotImplementedError

    def _finish_send(self, sending: Any) -> None:
        raise NotImplementedError

    def _receive(self, source: int, buf: np.ndarray | None, add: bool) -> np.ndarray:
        raise NotImplementedError

    def _combine(self, inbuf: np.ndarray, inoutbuf: np.ndarray) -> None:
        """The reduction itself: inoutbuf += inbuf."""
        np.add(inoutbuf, inbuf, out=inoutbuf)

    def _check_peer(self, peer: int, role: str) -> None:
        if not 0 <= peer < self.size:
            raise ValueError(f"{role} rank {peer} is outside 0..{self.size - 1}")


def check_same_size(elements: int, buf: np.ndarray, what: str) -> None:
    """A message of `elements` elements and the buffer it goes into hold as many."""
    if elements != buf.size:
        raise ValueError(f"{what} holds {elements} elements, the buffer {buf.size}")


@functools.cache
def dtype_of(char: bytes) -> np.dtype:
    """The numpy dtype of a message header's dtype character."""
    return np.dtype(char.decode())
