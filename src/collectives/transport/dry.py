"""A transport that moves no bytes: an algorithm's trace at any N and M, in one process.

All-reduce schedules are data-oblivious: who sends how much to whom depends on N and M
only. The dry transport runs the real algorithm code, its ranks one after another (a swap
that names no buffer for what it receives taken to receive as much as it sends, checked
once the sender has run), or every rank a thread where a receive must wait to learn its
size, on vectors of a zero-byte dtype
(M elements cost no memory), and counts each message as the bytes it would carry at the
given itemsize, through the same Ledger as the real transports. Its
trace is the one they record for the same (N, M), which the tests check on the grid; the
model replays it where no process run reaches (a cluster's 192 ranks at 32 MiB).

Where shifting every rank label by P maps the schedule onto itself, class_trace runs only
ranks 0..P-1: a receive from rank p takes the message that p's representative sent to the
correspondingly shifted rank, so a schedule that is not so symmetric fails its size checks.

Where ranks of one role run the same code with their peers in the same places (the ranks
at one place in a tree: a leaf, an interior node, a link of a node's chain), role_trace
runs one rank of each role alone and gives every other rank its representative's events
with its own peers put in; the whole trace's sends and receives must then still match.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

import numpy as np

from .accounting import Ledger
from .base import CountingComm, check_same_size
from .trace import NO_PEER, RECV, SEND, ClassTrace, Trace

NOTHING = np.dtype([])  # a dtype of itemsize 0: M elements hold no bytes
WAIT_SECONDS = 60.0  # a receive no send matches within this is a broken schedule


class Hollow(np.ndarray):
    """A vector of zero-byte elements that reports the itemsize it stands for (an algorithm
    that sizes its messages in bytes decides as it would on real data)."""

    stands_for: int = 0

    @property
    def itemsize(self) -> int:  # type: ignore[override]
        """The bytes per element of the data this vector stands for."""
        return self.stands_for

    @property
    def nbytes(self) -> int:  # type: ignore[override]
        """The bytes of the data this vector stands for."""
        return self.size * self.stands_for

    def __array_finalize__(self, parent: Any) -> None:
        self.stands_for = getattr(parent, "stands_for", 0)


def hollow(elements: int, itemsize: int) -> Hollow:
    """`elements` zero-byte elements standing for `itemsize`-byte ones."""
    vector = np.empty(elements, NOTHING).view(Hollow)
    vector.stands_for = itemsize
    return vector


class DryComm(CountingComm):
    """A rank's endpoint whose messages carry only their element count and clock stamps."""

    def __init__(
        self,
        rank: int,
        size: int,
        itemsize: int,
        channels: dict[tuple[int, int], queue.SimpleQueue],
        owed: dict[tuple[int, int], list[int]] | None = None,
        period: int | None = None,
        guesses: bool = False,
    ) -> None:
        self.rank, self.size, self.itemsize = rank, size, itemsize
        self.ledger = Ledger()
        self._channels = channels
        self._owed = owed  # ranks run one after another: receives not yet sent, by size
        self._period = period or size  # only ranks below it run (ClassTrace.sender)
        self._guesses = guesses  # whether a swap's unknown size may be guessed
        self.guessed = False  # whether one was

    def _from(self, source: int) -> tuple[int, int]:
        """The channel a message from `source` arrives on: its representative's to the
        rank that stands for this one (source's own when every rank runs)."""
        offset = source - source % self._period
        return source % self._period, (self.rank - offset) % self.size

    def _start_send(self, buf: np.ndarray, dest: int) -> None:
        self._check_peer(dest, "dest")
        stamps = self.ledger.on_send(dest, buf.size * self.itemsize)
        self._channel((self.rank, dest)).put((buf.size, stamps))

    def _channel(self, key: tuple[int, int]) -> queue.SimpleQueue:
        """The queue of messages from key[0] to key[1], made by whichever end comes first
        (setdefault is one atomic step: both ends get the same queue)."""
        found = self._channels.get(key)
        return found if found is not None else self._channels.setdefault(key, queue.SimpleQueue())

    def _finish_send(self, _sending: Any) -> None:
        """Sends are buffered: nothing to wait for."""

    def _receive(self, source: int, buf: np.ndarray | None, add: bool) -> np.ndarray:
        self._check_peer(source, "source")
        key = self._from(source)
        channel = self._channel(key)
        if self._owed is not None and channel.empty():  # its sender runs later
            if buf is None:
                raise _SizeUnknown  # only the message can say how long it is
            self._owed.setdefault(key, []).append(buf.size)
            self.ledger.on_recv(source, buf.size * self.itemsize, 0, 0)  # no clocks: a trace
            if add:
                self.ledger.on_reduce(buf.size)
            return buf
        try:
            size, (round_stamp, byte_stamp) = channel.get(timeout=WAIT_SECONDS)
        except queue.Empty:
            raise RuntimeError(f"rank {self.rank}: no message from rank {source}") from None
        self.ledger.on_recv(source, size * self.itemsize, round_stamp, byte_stamp)
        if buf is None:
            return hollow(size, self.itemsize)
        check_same_size(size, buf, f"message from rank {source}")
        if add:
            self.ledger.on_reduce(size)
        return buf

    def sendrecv(
        self, sendbuf: np.ndarray, dest: int, source: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """As every transport's, but where the message is not sent yet and its size is
        unknown (no `out`), guess that it is as long as the one sent in exchange (as in
        recursive doubling's swaps), so that the ranks still run one after another; a wrong
        guess shows when the sender has run, and the trace is then made again by threads."""
        if out is None and self._guesses and self._channel(self._from(source)).empty():
            self.guessed = True
            out = hollow(sendbuf.size, self.itemsize)
        return super().sendrecv(sendbuf, dest, source, out)

    def _combine(self, inbuf: np.ndarray, inoutbuf: np.ndarray) -> None:
        """Nothing to add: the vectors hold no bytes."""

    def copy(self, x: np.ndarray) -> np.ndarray:
        """A fresh hollow vector of x's length: nothing to copy (numpy would still walk
        every zero-byte element)."""
        return hollow(x.size, self.itemsize)


def dry_trace(
    allreduce: Callable[[CountingComm, np.ndarray], np.ndarray],
    ranks: int,
    elements: int,
    itemsize: int,
) -> Trace:
    """The trace of `allreduce` on `ranks` ranks of `elements` elements of `itemsize` bytes:
    the ranks one after another where every receive names its buffer (no thread to wake
    per message), else every rank a thread."""
    return _run(allreduce, ranks, elements, itemsize, ranks)


def class_trace(
    allreduce: Callable[[CountingComm, np.ndarray], np.ndarray],
    ranks: int,
    elements: int,
    itemsize: int,
    period: int,
) -> ClassTrace:
    """The trace of a schedule that the shift of rank labels by `period` (dividing `ranks`)
    maps onto itself, by its representatives 0..period-1 alone; ValueError where a message
    size shows it is not so symmetric."""
    if period < 1 or ranks % period:
        raise ValueError(f"a period of {period} ranks does not divide {ranks}")
    return ClassTrace(_run(allreduce, ranks, elements, itemsize, period), ranks)


Roles = Sequence[tuple[Hashable, tuple[int, ...]]]  # per rank: its role and its peers


def role_trace(
    allreduce: Callable[[CountingComm, np.ndarray], np.ndarray],
    ranks: int,
    elements: int,
    itemsize: int,
    roles: Roles,
) -> Trace:
    """The whole trace of `allreduce`, one rank per role run (alone: every receive names
    its buffer, else the whole dry trace runs), each other rank given its representative's
    events with the peer in each place its own; ValueError where the roles do not hold (a
    representative messages a peer not among its declared ones, or sends and receives of
    the whole trace then fail to match)."""
    if len(roles) != ranks:
        raise ValueError(f"{len(roles)} roles declared for {ranks} ranks")
    peers = [list(dict.fromkeys(declared)) for _, declared in roles]  # distinct, in order
    # ranks that name one peer in several places must do so alike to share a role
    keys = [
        (role, tuple(p.index(q) for q in declared))
        for (role, declared), p in zip(roles, peers, strict=True)
    ]
    first: dict[Hashable, int] = {}
    for rank, key in enumerate(keys):
        first.setdefault(key, rank)
    try:
        templates = {
            key: _template(allreduce, rank, ranks, elements, itemsize, peers[rank])
            for key, rank in first.items()
        }
    except _SizeUnknown:
        return dry_trace(allreduce, ranks, elements, itemsize)
    lengths = np.array([len(templates[key][0]) for key in keys], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    kind = np.empty(offsets[-1], np.int8)
    peer = np.empty(offsets[-1], np.int32)
    amount = np.empty(offsets[-1], np.int64)
    for rank, key in enumerate(keys):
        events, place = templates[key]
        where = slice(offsets[rank], offsets[rank + 1])
        kind[where], amount[where] = events[:, 0], events[:, 2]
        own = np.append(np.array(peers[rank], dtype=np.int64), NO_PEER)
        peer[where] = own[place]  # place -1: no peer, the appended NO_PEER
    _check_matched(keys, peers, templates)
    return Trace(offsets, kind, peer, amount)


def _template(
    allreduce: Callable[[CountingComm, np.ndarray], np.ndarray],
    rank: int,
    ranks: int,
    elements: int,
    itemsize: int,
    peers: list[int],
) -> tuple[np.ndarray, np.ndarray]:
    """One rank's events run alone, and for each its peer's place among `peers` (-1 for
    none); ValueError where it messages a rank that is not among them."""
    comm = DryComm(rank, ranks, itemsize, {}, owed={})
    allreduce(comm, hollow(elements, itemsize))
    events = comm.ledger.event_array()
    place = np.full(len(events), -1, dtype=np.int64)
    named = events[:, 1] != NO_PEER
    known = np.array(peers, dtype=np.int64)
    order = np.argsort(known)
    found = np.searchsorted(known[order], events[named, 1]).clip(max=max(len(known) - 1, 0))
    if named.any() and (not len(known) or (known[order][found] != events[named, 1]).any()):
        raise ValueError(f"rank {rank} messages a rank that is not among its declared peers")
    place[named] = order[found]
    return events, place


def _check_matched(
    keys: list[Hashable],
    peers: list[list[int]],
    templates: dict[Hashable, tuple[np.ndarray, np.ndarray]],
) -> None:
    """ValueError unless the bytes each rank sends each other, in order, are those the other
    receives from it: checked once per pair of (role, place of the other) at both ends,
    since ranks of one role message the peer in one place alike."""
    flows: dict[tuple[Hashable, int, int], bytes] = {}

    def flow(key: Hashable, place: int | None, kind: int) -> bytes:
        """The amounts a role's rank sends to (or receives from) its peer in `place`."""
        if place is None:
            return b""
        if (key, place, kind) not in flows:
            events, places = templates[key]
            chosen = (events[:, 0] == kind) & (places == place)
            flows[(key, place, kind)] = events[chosen, 2].tobytes()
        return flows[(key, place, kind)]

    where = [{peer: place for place, peer in enumerate(listed)} for listed in peers]
    checked = set()
    for rank, listed in enumerate(peers):
        for other in listed:
            for source, dest in ((rank, other), (other, rank)):
                to, back = where[source].get(dest), where[dest].get(source)
                pair = (keys[source], to, keys[dest], back)
                if pair in checked:
                    continue
                checked.add(pair)
                if flow(keys[source], to, SEND) != flow(keys[dest], back, RECV):
                    raise ValueError(
                        f"the declared roles do not hold: rank {source} sends rank {dest} "
                        "other messages than it receives"
                    )


def _run(
    allreduce: Callable[[CountingComm, np.ndarray], np.ndarray],
    ranks: int,
    elements: int,
    itemsize: int,
    period: int,
) -> Trace:
    """The events of ranks 0..period-1 of a `ranks`-rank run, one after another where they
    can, else each a thread."""
    try:
        return _one_after_another(allreduce, ranks, elements, itemsize, period)
    except _SizeUnknown:
        return _all_at_once(allreduce, ranks, elements, itemsize, period)


class _SizeUnknown(Exception):
    """A receive without a buffer, before its sender has run."""


def _one_after_another(
    allreduce: Callable[[CountingComm, np.ndarray], np.ndarray],
    ranks: int,
    elements: int,
    itemsize: int,
    period: int,
) -> Trace:
    """Each rank run to its end in turn; a receive from a rank yet to run records the size
    of its buffer (or of the guess DryComm.sendrecv makes), checked at the end against what
    that rank then sent; _SizeUnknown where a guess may be what failed."""
    channels: dict[tuple[int, int], queue.SimpleQueue] = {}
    owed: dict[tuple[int, int], list[int]] = {}
    comms = [DryComm(r, ranks, itemsize, channels, owed, period, True) for r in range(period)]
    try:
        for comm in comms:
            allreduce(comm, hollow(elements, itemsize))
        for (source, dest), sizes in owed.items():
            channel = channels[(source, dest)]
            sent = [channel.get()[0] for _ in range(channel.qsize())]
            if sent != sizes:
                raise ValueError(
                    f"rank {dest} received {sizes[:4]} elements from rank {source}, "
                    f"which sent {sent[:4]}"
                )
        _check_all_received(channels)
    except ValueError:
        if any(comm.guessed for comm in comms):  # a guess, not the schedule, may be wrong
            raise _SizeUnknown from None
        raise
    return Trace.from_ranks([comm.ledger.event_array() for comm in comms])


def _all_at_once(
    allreduce: Callable[[CountingComm, np.ndarray], np.ndarray],
    ranks: int,
    elements: int,
    itemsize: int,
    period: int,
) -> Trace:
    """Every rank a thread, each receive waiting for its message."""
    channels: dict[tuple[int, int], queue.SimpleQueue] = {}  # made on first use: N^2 is many
    comms = [DryComm(r, ranks, itemsize, channels, period=period) for r in range(period)]
    workers = _workers(period)
    runs = [workers.submit(allreduce, comm, hollow(elements, itemsize)) for comm in comms]
    done, _ = wait(runs, return_when=FIRST_EXCEPTION)
    failed = [run.exception() for run in done if run.exception() is not None]
    if failed:  # ranks may still wait for the failed one's messages: keep them out of reuse
        _pool.clear()
        workers.shutdown(wait=False)
        raise failed[0]
    _check_all_received(channels)
    return Trace.from_ranks([comm.ledger.event_array() for comm in comms])


def _check_all_received(channels: dict[tuple[int, int], queue.SimpleQueue]) -> None:
    """ValueError where a message was sent that no rank received (a schedule, or a
    declared symmetry, that does not hold)."""
    for (source, dest), channel in channels.items():
        if not channel.empty():
            raise ValueError(f"rank {source} sent rank {dest} a message it never received")


_pool: dict[int, ThreadPoolExecutor] = {}


def _workers(ranks: int) -> ThreadPoolExecutor:
    """Threads enough for `ranks` ranks at once (every rank may block), kept for reuse."""
    size = max(ranks, 64)
    if not _pool or max(_pool) < size:
        for old in _pool.values():
            old.shutdown(wait=False)
        _pool.clear()
        _pool[size] = ThreadPoolExecutor(max_workers=size, thread_name_prefix="dry")
    return _pool[max(_pool)]
