"""The point-to-point interface an algorithm may use, and nothing more.

Algorithms see only this protocol (modelled on mpi4py's buffer methods, plus the fused
receive-and-add that NCCL's ring primitives use), so they cannot count anything
themselves: every byte, message and reduction goes through a transport that does the
accounting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class Communicator(Protocol):
    """One rank's endpoint: its place in the group and blocking point-to-point calls."""

    rank: int
    size: int

    def send(self, buf: np.ndarray, dest: int) -> None:
        """Send a 1-D array to `dest`; returns once `buf` may be reused."""

    def recv(self, source: int, out: np.ndarray | None = None) -> np.ndarray:
        """Receive the next message from `source` (into `out` if given) and return it."""

    def sendrecv(
        self, sendbuf: np.ndarray, dest: int, source: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Send to `dest` and receive from `source` concurrently (MPI_Sendrecv)."""

    def recv_reduce(self, source: int, inoutbuf: np.ndarray) -> None:
        """Receive from `source` and add it into `inoutbuf` (NCCL's fused recvReduce)."""

    def sendrecv_reduce(
        self, sendbuf: np.ndarray, dest: int, source: int, inoutbuf: np.ndarray
    ) -> None:
        """sendrecv whose incoming vector is added into `inoutbuf` (must not overlap)."""

    def exchange(
        self,
        sendbufs: Sequence[np.ndarray],
        dests: Sequence[int],
        sources: Sequence[int],
        outs: Sequence[np.ndarray | None] | None = None,
    ) -> list[np.ndarray]:
        """Every sendrecv(sendbufs[k], dests[k], sources[k], outs[k]) where no send needs
        what the receives bring (MPI_Isend and MPI_Irecv of them all, one MPI_Waitall): a
        fabric that carries a rank's messages at once (a crossbar) may overlap them. The
        pairs run in order, so each rank's k-th pair must meet its peers' (as shifts do)."""

    def reduce_local(self, inbuf: np.ndarray, inoutbuf: np.ndarray) -> None:
        """inoutbuf += inbuf elementwise (MPI_Reduce_local with MPI_SUM)."""

    def copy(self, x: np.ndarray) -> np.ndarray:
        """A working copy of x in memory the transport can share with peers (the role of
        MPI_Alloc_mem): sends from it may travel with one copy instead of two."""


class Nodes(Protocol):
    """Where the ranks of a communicator sit, for an algorithm that follows the nodes
    (collectives.model.topology.Topology is one): the groups it builds sub-communicators
    from, as MPICH's smp all-reduce asks its communicator for node_comm and node_roots_comm."""

    def node_ranks(self, rank: int, ranks: int) -> list[int]:
        """The ranks of `rank`'s node, in order."""

    def peers_across(self, rank: int, ranks: int) -> list[int]:
        """The ranks at `rank`'s position on every node, in node order."""
