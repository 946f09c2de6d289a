"""The MPI transport: the same Communicator over mpi4py, with the same accounting.

Ranks are MPI processes started by `mpiexec` (on one host or several), not forked by us.
Every logical message is what the queue transport sends: a header (the two clock stamps,
the payload size and dtype) with the payload inline up to INLINE_MAX_BYTES, else the header
followed by the payload as a second MPI message straight into the receiver's buffer. Both
go out with nonblocking sends, so sendrecv never deadlocks and a send returns once its
buffer may be reused, as MPI_Send does. The Ledger counts one message per logical send,
exactly as on the queue transport, so the counts, clocks and traces of a run are identical.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from mpi4py import MPI

from .accounting import Ledger, RunCounts
from .base import HEADER_BYTES, INLINE_MAX_BYTES, CountingComm, check_same_size, dtype_of
from .launch import Prepare, Program, RankFailure, RankRun, warm_heap
from .trace import Trace

HEADER_TAG, PAYLOAD_TAG = 1, 2
HEADER_WORDS = 4  # round stamp, byte stamp, payload bytes, dtype character
assert HEADER_WORDS * 8 == HEADER_BYTES
EXIT_ABORTED = 1


class MpiComm(CountingComm):
    """A rank's Communicator over MPI point-to-point messages (see collectives.comm)."""

    def __init__(self, world: MPI.Intracomm) -> None:
        self.world = world
        self.rank = world.Get_rank()
        self.size = world.Get_size()
        self.ledger = Ledger()
        self._header = np.empty(HEADER_BYTES + INLINE_MAX_BYTES, dtype=np.uint8)
        self._header_words = self._header[:HEADER_BYTES].view(np.int64)
        # a rank has one send in flight at most (each completes before the next starts), so
        # one outgoing header (+ inline payload) buffer serves every message
        self._outgoing = np.empty(HEADER_BYTES + INLINE_MAX_BYTES, dtype=np.uint8)
        self._outgoing_words = self._outgoing[:HEADER_BYTES].view(np.int64)
        self._scratch: dict[tuple[np.dtype, int], np.ndarray] = {}

    # -- beyond the interface: for harnesses, never for algorithms ------------------------------

    def barrier(self) -> None:
        """Wait until every rank is here (MPI_Barrier: uncounted, outside the ledger)."""
        self.world.Barrier()

    # -- messages --------------------------------------------------------------------------------

    def _start_send(self, buf: np.ndarray, dest: int) -> list[MPI.Request]:
        """Stamp a message and start sending it: header (+ inline payload), then payload."""
        self._check_peer(dest, "dest")
        buf = np.ascontiguousarray(buf)
        if buf.ndim != 1:
            raise ValueError(f"messages are 1-D arrays, got shape {buf.shape}")
        nbytes = buf.nbytes
        round_stamp, byte_stamp = self.ledger.on_send(dest, nbytes)
        self._outgoing_words[:] = (round_stamp, byte_stamp, nbytes, ord(buf.dtype.char))
        payload = buf.view(np.uint8)
        if nbytes <= INLINE_MAX_BYTES:
            end = HEADER_BYTES + nbytes
            self._outgoing[HEADER_BYTES:end] = payload
            return [self.world.Isend([self._outgoing[:end], MPI.BYTE], dest, HEADER_TAG)]
        return [
            self.world.Isend([self._outgoing[:HEADER_BYTES], MPI.BYTE], dest, HEADER_TAG),
            self.world.Isend([payload, MPI.BYTE], dest, PAYLOAD_TAG),
        ]

    def _finish_send(self, sending: list[MPI.Request]) -> None:
        MPI.Request.Waitall(sending)

    def _receive(self, source: int, buf: np.ndarray | None, add: bool) -> np.ndarray:
        """Receive the next message from `source`; copy or add it into `buf` if given."""
        self._check_peer(source, "source")
        self.world.Recv([self._header, MPI.BYTE], source, HEADER_TAG)
        round_stamp, byte_stamp, nbytes, char = self._header_words.tolist()
        dtype = dtype_of(chr(char).encode())
        direct = (
            not add and buf is not None and buf.dtype == dtype and buf.nbytes == nbytes
            and buf.flags.c_contiguous
        )  # fmt: skip
        if nbytes <= INLINE_MAX_BYTES:
            data = self._header[HEADER_BYTES : HEADER_BYTES + nbytes].view(dtype)
        else:
            data = buf if direct else self._target(dtype, nbytes, scratch=add or buf is not None)
            self.world.Recv([data.view(np.uint8), MPI.BYTE], source, PAYLOAD_TAG)
        self.ledger.on_recv(source, nbytes, round_stamp, byte_stamp)
        if add:
            check_same_size(data.size, buf, f"message from rank {source}")
            np.add(buf, data, out=buf)
            self.ledger.on_reduce(data.size)
            return buf
        if buf is None:
            return data.copy() if nbytes <= INLINE_MAX_BYTES else data
        if data is not buf:
            check_same_size(data.size, buf, f"message from rank {source}")
            np.copyto(buf, data, casting="no")
        return buf

    def _target(self, dtype: np.dtype, nbytes: int, scratch: bool) -> np.ndarray:
        """A buffer for an incoming payload: a reused scratch one when its contents are
        consumed at once (added or copied into the program's buffer), else a new one."""
        count = nbytes // dtype.itemsize
        if not scratch:
            return np.empty(count, dtype=dtype)
        key = (dtype, count)
        if key not in self._scratch:
            self._scratch[key] = np.empty(count, dtype=dtype)
        return self._scratch[key]


def world_size() -> int:
    """How many ranks mpiexec started."""
    return MPI.COMM_WORLD.Get_size()


def from_root(make: Callable[[], Any]) -> Any:
    """make() called by rank 0 alone, and its value on every rank of the job."""
    world = MPI.COMM_WORLD
    return world.bcast(make() if world.Get_rank() == 0 else None)


def result_array(shape: tuple[int, int], dtype: np.dtype | str) -> np.ndarray:
    """Room for every rank's vector; a rank touches only its own row, so on every rank
    but the root the rest stays untouched address space."""
    return np.zeros(shape, dtype=dtype)


def launch(
    size: int,
    prepare: Prepare,
    program: Program,
    *,
    results: np.ndarray,
    largest_message: int,
    timeout: float,
    on_ready: Any = None,
) -> RankRun | None:
    """Run `program` on this MPI process's rank; the root returns every rank's outcome.

    The contract of the queue transport's launch: prepare(rank) untimed (its writes into
    results[rank] are gathered at the root before on_ready() runs there), then all ranks
    start together, and results[rank] receives each rank's returned array at the root.
    Other ranks return None. A failure on any rank, or the timeout, aborts the whole job
    (MPI_Abort) with the rank and the cause on stderr.
    """
    world = MPI.COMM_WORLD
    rank = world.Get_rank()
    if world.Get_size() != size:
        raise RankFailure(f"asked for {size} ranks, but mpiexec started {world.Get_size()}")
    started = time.perf_counter()
    watchdog = threading.Timer(timeout, _abort, (world, rank, f"timed out after {timeout:g} s"))
    watchdog.daemon = True
    watchdog.start()
    try:
        comm = MpiComm(world)
        warm_heap(largest_message)
        mine = results[rank]
        mine.fill(0)  # touch our row now, untimed
        prepared = prepare(rank)
        own = MPI.IN_PLACE if rank == 0 else [mine.view(np.uint8), MPI.BYTE]
        world.Gather(own, [results.view(np.uint8), MPI.BYTE])
        if rank == 0 and on_ready is not None:
            on_ready()
        world.Barrier()
        begin = time.perf_counter()
        result = np.ascontiguousarray(program(comm, prepared), dtype=results.dtype)
        seconds = time.perf_counter() - begin
        world.Gather([result.view(np.uint8), MPI.BYTE], [results.view(np.uint8), MPI.BYTE])
        rows = world.gather(comm.ledger.as_row())
        events = world.gather(comm.ledger.event_array())
        durations = world.gather(seconds)
    except BaseException as exc:  # anything, on any rank, ends the whole job
        _abort(world, rank, f"{type(exc).__name__}: {exc}")
        raise
    finally:
        watchdog.cancel()
    if rank != 0:
        return None
    return RankRun(
        results=results,
        counts=RunCounts.from_ledgers(np.array(rows, dtype=np.int64)),
        trace=Trace.from_ranks(events),
        collective_seconds=float(max(durations)),
        wall_seconds=time.perf_counter() - started,
    )


def _abort(world: MPI.Intracomm, rank: int, cause: str) -> None:
    """Report why this rank gives up, then end every rank of the job."""
    print(f"collectives: rank {rank} failed: {cause}", file=sys.stderr, flush=True)
    sys.stderr.flush()
    world.Abort(EXIT_ABORTED)
    os._exit(EXIT_ABORTED)  # pragma: no cover - Abort does not return
