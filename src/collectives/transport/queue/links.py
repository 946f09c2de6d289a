"""Links between rank processes: one inbox queue per rank, payloads in shared memory.

Each rank owns an inbox, an OS pipe that every rank may write to. A message is a fixed
32-byte header (kind, dtype, slot, source, payload bytes, the two clock stamps) written
with one atomic write (at most PIPE_BUF bytes), so concurrent senders never interleave.
Small payloads travel inline after the header. Larger ones in the sender's arena (see
arena.py) are read by the receiver in place (DIRECT, then RELEASE); others go through the
sender's staging slots in anonymous shared memory, segment by segment: the sender copies a
segment into its next free slot and posts its header, the receiver copies it out and
sends an ACK that frees the slot. Several slots per rank let a sender go on without
waiting for the receiver, and both copies overlap (pickling arrays
through a pipe would be ~20x slower). Anonymous shared mappings vanish with the last
process that maps them, so nothing can be left behind in /dev/shm.

Waiting, as MPI libraries wait: after each write a sender rings the receiver's doorbell (a
counter in shared memory). A rank that waits polls its doorbell for a while, then yields
its core between polls, and only then sleeps in the kernel on its inbox, so a message costs
microseconds while ranks have cores of their own. When ranks outnumber cores a waiting rank
sleeps at once, giving its core to a rank that has work.
"""

from __future__ import annotations

import mmap
import os
import select
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import libc
from ..base import HEADER_BYTES, INLINE_MAX_BYTES

HEADER = struct.Struct("<BcBxIQQQ")  # kind, dtype char, slot, pad, source, nbytes, stamps
INLINE = 1  # the payload follows the header in the pipe
SEGMENT = 2  # the next segment of a staged payload is in the sender's slot
ACK = 3  # the receiver has copied a segment out of the slot
DIRECT = 4  # the payload is in the sender's arena, at the offset that follows the header
RELEASE = 5  # the receiver has read a direct payload: the sender may reuse its buffer
OFFSET = struct.Struct("<Q")
assert HEADER.size == HEADER_BYTES and HEADER_BYTES + INLINE_MAX_BYTES <= select.PIPE_BUF
SEGMENT_BYTES = 256 * 1024
SLOTS_PER_RANK = 4
DIRECT_MIN_BYTES = 64 * 1024  # smaller payloads go eagerly through the slots: a send then
# completes without waiting for the receiver (MPI libraries switch to rendezvous near here)
ARENA_VECTORS = 3  # working buffers of the largest message per rank that peers read in place
WAIT_VARIABLE = "COLLECTIVES_WAIT"  # auto, poll or sleep (as I_MPI_WAIT_MODE or Open MPI's
# mpi_yield_when_idle choose how an MPI library's waiting ranks wait)
WAIT_MODES = ("auto", "poll", "sleep")
SPIN_SECONDS = 50e-6  # poll the doorbell this long (a wake-up from sleep costs ~10-100 us)
YIELD_SECONDS = 2e-3  # then poll between sched_yield calls this long, then sleep


def shared_array(shape: int | tuple[int, ...], dtype: np.dtype | str) -> np.ndarray:
    """A zero-filled array in anonymous shared memory, visible to processes forked later."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    buffer = mmap.mmap(-1, max(count * dtype.itemsize, 1))
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)


_PAGE = mmap.PAGESIZE


def prefault(array: np.ndarray) -> None:
    """Fault in the pages of a shared array now (first touch costs ~0.5-1 ms per MiB)."""
    start = array.ctypes.data & ~(_PAGE - 1)
    if not libc.populate(start, array.ctypes.data + array.nbytes - start):
        array.view(np.uint8)[::_PAGE] = array.view(np.uint8)[::_PAGE]  # touch every page


@dataclass(slots=True)
class Message:
    """One parsed header, with its inline payload if it has one."""

    kind: int
    dtype_char: bytes
    slot: int
    source: int
    nbytes: int
    round_stamp: int
    byte_stamp: int
    payload: bytes = b""


def encode(
    kind: int,
    source: int,
    nbytes: int = 0,
    stamps: tuple[int, int] = (0, 0),
    dtype_char: bytes = b"B",
    slot: int = 0,
    inline: bytes = b"",
) -> bytes:
    """Serialize one message; the result is small enough to be written atomically."""
    return HEADER.pack(kind, dtype_char, slot, source, nbytes, *stamps) + inline


class Links:
    """The inboxes and staging slots of a group of `size` ranks, made before forking."""

    def __init__(self, size: int, largest_message: int) -> None:
        self.size = size
        mode = wait_mode()
        self.spin = mode == "poll" or (mode == "auto" and size <= len(os.sched_getaffinity(0)))
        self.doorbells = shared_array(size, np.int64)
        self.slot_bytes = max(1, min(SEGMENT_BYTES, largest_message))
        pipes = [os.pipe() for _ in range(size)]
        self.read_fds = [r for r, _ in pipes]
        self.write_fds = [w for _, w in pipes]
        for fd in self.write_fds:
            # Writers never block forever: on a full inbox they drain their own (see post).
            os.set_blocking(fd, False)
        self.slots = shared_array((size, SLOTS_PER_RANK, self.slot_bytes), np.uint8)
        self.arenas = _arenas(size, largest_message)

    def close(self) -> None:
        """Close this process's ends of every inbox."""
        for fd in self.read_fds + self.write_fds:
            os.close(fd)
        self.read_fds, self.write_fds = [], []


def int64_cells(array: np.ndarray) -> memoryview:
    """An int64 array's elements as a memoryview: the fastest element reads and writes
    from Python, for counters polled in a loop."""
    return memoryview(array).cast("B").cast("q")


def wait_mode() -> str:
    """How waiting ranks wait, from $COLLECTIVES_WAIT: `auto` (the default) polls while every
    rank has a core of its own, `poll` always does, `sleep` never; ValueError otherwise."""
    mode = os.environ.get(WAIT_VARIABLE, "auto")
    if mode not in WAIT_MODES:
        raise ValueError(f"{WAIT_VARIABLE}={mode!r} is not one of: {', '.join(WAIT_MODES)}")
    return mode


def _arenas(size: int, largest_message: int) -> np.ndarray:
    """Every rank's arena (see arena.py): address space only until a rank touches it, and
    none at all where the machine could not back every rank's share."""
    per_rank = -(-ARENA_VECTORS * largest_message // _PAGE) * _PAGE
    physical = _PAGE * os.sysconf("SC_PHYS_PAGES")
    if per_rank * size > physical // 2:
        per_rank = 0
    try:
        return shared_array((size, per_rank), np.uint8)
    except OSError:  # no room for the mapping: messages go through the slots
        return shared_array((size, 0), np.uint8)


class Doorbells:
    """Every rank's doorbell: rung by a sender after each write to the rank's inbox."""

    def __init__(self, links: Links) -> None:
        self._bells = int64_cells(links.doorbells)

    def ring(self, rank: int) -> None:
        """Tell `rank` its inbox has data (racing senders may merge rings: any change will do)."""
        self._bells[rank] += 1


class SpinBarrier:
    """A barrier for ranks that have cores of their own: each rank publishes how many
    barriers it has entered, and polls until every rank has entered as many (then yields its
    core between polls, as a waiting receive does)."""

    def __init__(self, size: int) -> None:
        self._entered = shared_array(size, np.int64)

    def wait(self, rank: int) -> None:
        """Return once every rank has called wait as often as `rank` has."""
        entered = self._entered
        entered[rank] += 1
        mine = entered[rank]
        clock = time.perf_counter
        spin_until = clock() + SPIN_SECONDS
        while entered.min() < mine:
            if clock() >= spin_until:
                os.sched_yield()


class InboxReader:
    """Reads one rank's inbox and splits the byte stream back into messages."""

    def __init__(self, links: Links, rank: int) -> None:
        self.fd = links.read_fds[rank]
        self._rank = rank
        self._spin = links.spin
        self._bells = int64_cells(links.doorbells)
        self._buffer = bytearray()
        if self._spin:
            os.set_blocking(self.fd, False)  # our inbox alone: only we read this end
            self._sleep = select.poll()  # poll, not select: descriptors may exceed 1024
            self._sleep.register(self.fd, select.POLLIN)

    def read(self) -> list[Message]:
        """Wait until data arrives (polling first if ranks have cores of their own), then
        return every complete message received."""
        if self._spin:
            return self._poll_then_read()
        return self.read_ready()

    def _poll_then_read(self) -> list[Message]:
        """Read whenever our doorbell has rung; after the polling time, sleep in the kernel."""
        bells, rank = self._bells, self._rank
        clock = time.perf_counter
        spin_until = clock() + SPIN_SECONDS
        yield_until = spin_until + YIELD_SECONDS
        seen = None  # a first read before any ring: data may be waiting already
        while True:
            if bells[rank] != seen:
                seen = bells[rank]
                try:
                    return self.read_ready()
                except BlockingIOError:
                    pass  # a ring for data we read earlier
            now = clock()
            if now >= yield_until:
                self._sleep.poll()
                return self.read_ready()
            if now >= spin_until:
                os.sched_yield()

    def read_ready(self) -> list[Message]:
        """Read what the inbox holds and return the complete messages."""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            raise ConnectionError("inbox closed")
        self._buffer += chunk
        messages, offset, end = [], 0, len(self._buffer)
        while end - offset >= HEADER.size:
            fields = HEADER.unpack_from(self._buffer, offset)
            kind = fields[0]
            payload_bytes = fields[4] if kind == INLINE else OFFSET.size if kind == DIRECT else 0
            size = HEADER.size + payload_bytes
            if end - offset < size:
                break
            payload = bytes(self._buffer[offset + HEADER.size : offset + size])
            messages.append(Message(*fields, payload))
            offset += size
        del self._buffer[:offset]
        return messages


def post(fd: int, data: bytes, inbox_fd: int, drain: Callable[[], None]) -> None:
    """Write one message to an inbox; while it is full, keep draining our own inbox.

    Draining while blocked is what keeps two ranks that write to each other's full inboxes
    from deadlocking.
    """
    while True:
        try:
            os.write(fd, data)
            return
        except BlockingIOError:
            poller = select.poll()
            poller.register(fd, select.POLLOUT)
            poller.register(inbox_fd, select.POLLIN)
            for ready_fd, _ in poller.poll():
                if ready_fd == inbox_fd:
                    drain()
