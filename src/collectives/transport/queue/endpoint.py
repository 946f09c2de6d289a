"""One rank's endpoint on the queue transport: send, recv, sendrecv, with all accounting.

A small progress engine, as in MPI libraries: whatever call a rank is blocked in, every
header arriving in its inbox is handled. An eager send completes once its last segment is
in a staging slot; ACKs free slots for the next segments. Segments are copied out of the
sender's slot at once (straight into the user's buffer when it is the message being waited
for, else into a private buffer, MPI's unexpected queue) and acknowledged. A direct send
(from the sender's arena) completes when the receiver releases it: the receiver reads it
in place when the program asks for it, or copies it out before it waits for anything
else, so no rank waits on another's program order for long, and never in a cycle.
Matching follows MPI's rules for one tag: messages from one source arrive in the order
they were sent. Clocks advance when the program consumes a message.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..accounting import Ledger
from ..base import INLINE_MAX_BYTES, CountingComm, check_same_size, dtype_of
from .arena import Arena
from .links import (
    ACK,
    DIRECT,
    DIRECT_MIN_BYTES,
    INLINE,
    OFFSET,
    RELEASE,
    SEGMENT,
    SLOTS_PER_RANK,
    Doorbells,
    InboxReader,
    Links,
    Message,
    encode,
    int64_cells,
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
    unread: bool = False  # data is still the sender's, in its arena: read it, then release


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
        self._status = int64_cells(status)
        self._on_first_use = on_first_use
        self._arrived: dict[int, deque[_Arrived]] = defaultdict(deque)
        self._incoming: dict[int, _Incoming] = {}
        self._backlog: list[Message] = []
        self._acks_due: dict[int, list[bytes]] = defaultdict(list)
        self._outgoing: _Outgoing | None = None
        self._unread_direct = -1  # the peer still reading our direct send, if any
        self._unread = 0  # direct payloads held in their senders' arenas
        self._arena = Arena(links.arenas[rank])
        self._slot_free = [True] * SLOTS_PER_RANK
        self._next_slot = 0
        self._wanted: tuple[int, np.ndarray | None, bool] = (-1, None, False)
        self._barrier = barrier

    def copy(self, x: np.ndarray) -> np.ndarray:
        """A working copy of x in this rank's arena, which peers read in place (see arena)."""
        if x.ndim != 1:
            return x.copy()
        buffer = self._empty(x.size, x.dtype)
        np.copyto(buffer, x, casting="no")
        return buffer

    def _empty(self, count: int, dtype: np.dtype) -> np.ndarray:
        """A buffer from the arena for anything large enough to travel as a direct send."""
        buffer = None
        if count * dtype.itemsize >= DIRECT_MIN_BYTES:
            buffer = self._arena.empty(count, dtype)
        return np.empty(count, dtype=dtype) if buffer is None else buffer

    # -- beyond the interface: for harnesses, never for algorithms ------------------------------

    def barrier(self) -> None:
        """Wait until every rank is here (uncounted: a semaphore, not a message)."""
        self._barrier()

    def _receive(self, source: int, buf: np.ndarray | None, add: bool) -> np.ndarray:
        """Wait for the next message from `source`; copy or add it into `buf` if given."""
        if self._on_first_use is not None:
            self._touch()
        if not 0 <= source < self.size:
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
                check_same_size(data.size, buf, f"message from rank {source}")
                np.add(buf, data, out=buf)
            self.ledger.on_reduce(data.size)
            result = buf
        elif message.applied:
            result = buf
        elif buf is None:
            keep = message.unread or not data.flags.writeable
            result = self.copy(data) if keep else data
        else:
            check_same_size(data.size, buf, f"message from rank {source}")
            np.copyto(buf, data, casting="no")
            result = buf
        if message.unread:  # read straight out of the sender's arena: one copy in all
            self._release(source)
        return result

    # -- sending ----------------------------------------------------------------------------

    def _start_send(self, buf: np.ndarray, dest: int) -> None:
        """Stamp a message and send it inline, in place, or segment by segment."""
        if self._on_first_use is not None:
            self._touch()
        if not 0 <= dest < self.size:
            self._check_peer(dest, "dest")
        buf = np.ascontiguousarray(buf)
        if buf.ndim != 1:
            raise ValueError(f"messages are 1-D arrays, got shape {buf.shape}")
        char, nbytes = buf.dtype.char.encode(), buf.nbytes
        stamps = self.ledger.on_send(dest, nbytes)
        if nbytes <= INLINE_MAX_BYTES:
            self._write(dest, encode(INLINE, self.rank, nbytes, stamps, char, 0, buf.tobytes()))
            return
        offset = self._arena.offset_of(buf) if nbytes >= DIRECT_MIN_BYTES else None
        if offset is not None:  # one copy: the receiver reads it in place, then releases it
            self._unread_direct = dest
            where = OFFSET.pack(offset)
            self._write(dest, encode(DIRECT, self.rank, nbytes, stamps, char, 0, where))
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
        """Progress until the whole outgoing message sits in slots (freed by ACKs), or
        until the receiver of a direct send has read it."""
        while self._outgoing is not None:
            self._progress(waiting_on=self._outgoing.dest)
        while self._unread_direct >= 0:
            self._progress(waiting_on=self._unread_direct)

    def _write(self, dest: int, data: bytes) -> None:
        post(self._links.write_fds[dest], data, self._inbox.fd, self._drain)
        self._doorbells.ring(dest)

    # -- progress -----------------------------------------------------------------------------

    def _progress(self, waiting_on: int) -> None:
        """Handle the next batch of inbox messages, blocking until there is one."""
        if self._unread:  # about to wait: free every sender we still hold (no deadlock)
            self._read_unread()
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
        elif message.kind == SEGMENT:
            self._receive_segment(message)
        elif message.kind == DIRECT:
            self._hold_direct(message)
        else:  # RELEASE
            self._unread_direct = -1

    def _hold_direct(self, message: Message) -> None:
        """Keep a direct payload where it is, in the sender's arena, until the program asks
        for it (then it goes straight into the program's buffer) or until we must wait."""
        (offset,) = OFFSET.unpack(message.payload)
        region = self._links.arenas[message.source, offset : offset + message.nbytes]
        data = region.view(dtype_of(message.dtype_char))
        self._arrived[message.source].append(
            _Arrived(data, message.round_stamp, message.byte_stamp, unread=True)
        )
        self._unread += 1

    def _read_unread(self) -> None:
        """Copy every held direct payload into our own memory and release its sender."""
        for source, queue in self._arrived.items():
            for message in queue:
                if message.unread:
                    message.data, message.unread = self.copy(message.data), False
                    self._release(source)

    def _release(self, source: int) -> None:
        """Tell `source` we have read its direct payload: its send completes."""
        self._unread -= 1
        self._write(source, encode(RELEASE, self.rank))

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
        _, buf, add = self._wanted
        if self._wants(message, dtype):
            target = buf
        else:
            target, add = self._empty(message.nbytes // dtype.itemsize, dtype), False
        return _Incoming(target, add, target is buf, 0, message.round_stamp, message.byte_stamp)

    def _wants(self, message: Message, dtype: np.dtype) -> bool:
        """Whether the program waits for exactly this message with a buffer it fits (then
        the payload goes straight into it: no extra copy)."""
        source, buf, _ = self._wanted
        return (
            buf is not None
            and source == message.source
            and not self._arrived[source]
            and buf.dtype == dtype
            and buf.nbytes == message.nbytes
            and buf.flags.c_contiguous
        )

    # -- checks -----------------------------------------------------------------------------

    def _touch(self) -> None:
        """Run the first-use hook (fault injection) once."""
        hook, self._on_first_use = self._on_first_use, None
        hook()
