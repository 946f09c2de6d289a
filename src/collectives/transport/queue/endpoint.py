"""One rank's endpoint on the queue transport: send, recv, sendrecv, with all accounting.

A small progress engine, as in MPI libraries: whatever call a rank is blocked in, every
header arriving in its inbox is handled. A send completes once its last segment is in a
staging slot; ACKs free slots for the next segments. Segments are copied out of the
sender's slot at once (straight into the user's
buffer when it is the message being waited for, else into a private buffer, MPI's
unexpected queue) and acknowledged. So a send never waits on the receiver's program
order, and matching follows MPI's rules for one tag: messages from one source arrive in
the order they were sent. Clocks advance when the program consumes a message.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..accounting import Ledger
from ..base import INLINE_MAX_BYTES, CountingComm, check_same_size, dtype_of
from .links import (
    ACK,
    INLINE,
    SEGMENT,
    SLOTS_PER_RANK,
    Doorbells,
    InboxReader,
    Links,
    Message,
    encode,
    post,
)

RUNNING = -1  # status of a rank that is computing, not waiting on a message
DONE = -2  # status of a rank that has finished


@dataclass(slots=True)
class _Arrived:
    """A complete message waiting to be consumed by the program."""

    data: np.ndarray
    round_stamp: int
    byte_stamp: int
    applied: bool = False  # already copied or added into the buffer the program gave


@dataclass(slots=True)
class _Incoming:
    """A staged message being assembled from its segments."""

    target: np.ndarray  # where the segments go
    add: bool  # add into target (a fused receive-reduce) instead of copying
    applied: bool  # target is the program's own buffer
    received: int
    round_stamp: int
    byte_stamp: int


@dataclass(slots=True)
class _Outgoing:
    """Our staged message whose segments are not all in slots yet."""

    dest: int
    data: np.ndarray  # uint8 view of the send buffer
    header: tuple[bytes, int, tuple[int, int]]  # dtype char, nbytes, stamps
    posted_bytes: int = 0


class QueueComm(CountingComm):
    """A rank's Communicator over the queue transport (see collectives.comm)."""

    def __init__(
        self,
        rank: int,
        links: Links,
        status: np.ndarray,
        barrier: Callable[[], object],
        on_first_use: Callable[[], None] | None = None,
    ) -> None:
        self.rank = rank
        self.size = links.size
        self.ledger = Ledger()
        self._links = links
        self._slot_bytes = links.slot_bytes
        self._my_slots = links.slots[rank]
        self._inbox = InboxReader(links, rank)
        self._doorbells = Doorbells(links)
        self._status = status
        self._on_first_use = on_first_use
        self._arrived: dict[int, deque[_Arrived]] = defaultdict(deque)
        self._incoming: dict[int, _Incoming] = {}
        self._backlog: list[Message] = []
        self._acks_due: dict[int, list[bytes]] = defaultdict(list)
        self._outgoing: _Outgoing | None = None
        self._slot_free = [True] * SLOTS_PER_RANK
        self._next_slot = 0
        self._wanted: tuple[int, np.ndarray | None, bool] = (-1, None, False)
        self._barrier = barrier

    # -- beyond the interface: for harnesses, never for algorithms ------------------------------

    def barrier(self) -> None:
        """Wait until every rank is here (uncounted: a semaphore, not a message)."""
        self._barrier()

    def _receive(self, source: int, buf: np.ndarray | None, add: bool) -> np.ndarray:
        """Wait for the next message from `source`; copy or add it into `buf` if given."""
        self._touch()
        self._check_peer(source, "source")
        queue = self._arrived[source]
        self._wanted = (source, buf, add)
        while not queue:
            self._progress(waiting_on=source)
        self._wanted = (-1, None, False)
        message = queue.popleft()
        data = message.data
        self.ledger.on_recv(source, data.nbytes, message.round_stamp, message.byte_stamp)
        if add:
            if not message.applied:
                check_same_size(data, buf, f"message from rank {source}")
                np.add(buf, data, out=buf)
            self.ledger.on_reduce(data.size)
            return buf
        if message.applied:
            return buf
        if buf is None:
            return data if data.flags.writeable else data.copy()
        check_same_size(data, buf, f"message from rank {source}")
        np.copyto(buf, data, casting="no")
        return buf

    # -- sending ----------------------------------------------------------------------------

    def _start_send(self, buf: np.ndarray, dest: int) -> None:
        """Stamp a message and send it inline, or start staging it segment by segment."""
        self._touch()
        self._check_peer(dest, "dest")
        buf = np.ascontiguousarray(buf)
        if buf.ndim != 1:
            raise ValueError(f"messages are 1-D arrays, got shape {buf.shape}")
        char, nbytes = buf.dtype.char.encode(), buf.nbytes
        stamps = self.ledger.on_send(dest, nbytes)
        if nbytes <= INLINE_MAX_BYTES:
            self._write(dest, encode(INLINE, self.rank, nbytes, stamps, char, 0, buf.tobytes()))
            return
        self._outgoing = _Outgoing(dest, buf.view(np.uint8), (char, nbytes, stamps))
        self._post_segments()

    def _post_segments(self) -> None:
        """Copy the next segments of the outgoing message into free slots, in turn."""
        out = self._outgoing
        char, nbytes, stamps = out.header
        headers = []
        while out.posted_bytes < nbytes and self._slot_free[self._next_slot]:
            slot = self._next_slot
            segment = out.data[out.posted_bytes : out.posted_bytes + self._slot_bytes]
            self._my_slots[slot, : segment.size] = segment
            self._slot_free[slot] = False
            self._next_slot = (slot + 1) % SLOTS_PER_RANK
            headers.append(encode(SEGMENT, self.rank, nbytes, stamps, char, slot))
            out.posted_bytes += segment.size
        if headers:  # one write, one wake-up, for every segment just staged
            self._write(out.dest, b"".join(headers))
        if out.posted_bytes == nbytes:
            self._outgoing = None  # all in slots: the send buffer may be reused

    def _finish_send(self, _sending: None = None) -> None:
        """Progress until the whole outgoing message sits in slots (freed by ACKs)."""
        while self._outgoing is not None:
            self._progress(waiting_on=self._outgoing.dest)

    def _write(self, dest: int, data: bytes) -> None:
        post(self._links.write_fds[dest], data, self._inbox.fd, self._drain)
        self._doorbells.ring(dest)

    # -- progress -----------------------------------------------------------------------------

    def _progress(self, waiting_on: int) -> None:
        """Handle the next batch of inbox messages, blocking until there is one."""
        if self._backlog:
            messages, self._backlog = self._backlog, []
        else:
            self._status[self.rank] = waiting_on
            messages = self._inbox.read()
            self._status[self.rank] = RUNNING
        for message in messages:
            self._handle(message)
        for source, acks in self._acks_due.items():  # one write per sender per batch
            self._write(source, b"".join(acks))
        self._acks_due.clear()

    def _drain(self) -> None:
        """Empty our inbox while our own write is blocked; handled later, in order."""
        self._backlog.extend(self._inbox.read_ready())

    def _handle(self, message: Message) -> None:
        source = message.source
        if message.kind == ACK:
            self._slot_free[message.slot] = True
            if self._outgoing is not None:
                self._post_segments()
        elif message.kind == INLINE:
            data = np.frombuffer(message.payload, dtype=dtype_of(message.dtype_char))
            self._arrived[source].append(_Arrived(data, message.round_stamp, message.byte_stamp))
        else:
            self._receive_segment(message)

    def _receive_segment(self, message: Message) -> None:
        """Take one segment out of the sender's slot, acknowledge it, complete messages."""
        source = message.source
        incoming = self._incoming.get(source)
        if incoming is None:
            incoming = self._start_incoming(message)
            self._incoming[source] = incoming
        start = incoming.received
        size = min(self._slot_bytes, message.nbytes - start)
        itemsize = incoming.target.itemsize
        segment = self._links.slots[source, message.slot, :size].view(incoming.target.dtype)
        target = incoming.target[start // itemsize : (start + size) // itemsize]
        if incoming.add:
            np.add(target, segment, out=target)
        else:
            target[...] = segment
        incoming.received += size
        self._acks_due[source].append(encode(ACK, self.rank, slot=message.slot))
        if incoming.received == message.nbytes:
            del self._incoming[source]
            self._arrived[source].append(
                _Arrived(
                    incoming.target, incoming.round_stamp, incoming.byte_stamp, incoming.applied
                )
            )

    def _start_incoming(self, message: Message) -> _Incoming:
        """Segments go straight into the program's buffer if it waits for exactly this
        message (the common case: no extra copy), else into a private buffer."""
        dtype = dtype_of(message.dtype_char)
        source, buf, add = self._wanted
        direct = (
            buf is not None
            and source == message.source
            and not self._arrived[source]
            and buf.dtype == dtype
            and buf.nbytes == message.nbytes
            and buf.flags.c_contiguous
        )
        if direct:
            target = buf
        else:
            target, add = np.empty(message.nbytes // dtype.itemsize, dtype=dtype), False
        return _Incoming(target, add, direct, 0, message.round_stamp, message.byte_stamp)

    # -- checks -----------------------------------------------------------------------------

    def _touch(self) -> None:
        if self._on_first_use is not None:
            hook, self._on_first_use = self._on_first_use, None
            hook()
