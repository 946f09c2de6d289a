"""Message traces: what every rank did, in program order, independent of any fabric.

A trace holds, per rank, its sends (destination, bytes), receives (source, bytes) and local
reductions (elements combined), as flat columns with per-rank offsets: compact enough for a
ring at N = 256 (130k messages). The k-th send from s to d is the k-th receive at d from s
(messages between two ranks are delivered in order), which is all a replay needs. An
EXCHANGE mark (amount: k) opens k send-receive pairs whose sends need none of the pairs'
receives, so a fabric that carries several messages of a rank at once may overlap them.

A schedule that shifting every rank label by P maps onto itself (a ring's, whose rank r
does what rank 0 does with its peers r further on) is held by its classes: the events of
ranks 0..P-1 alone (ClassTrace), N/P times smaller than the whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

SEND, RECV, REDUCE, EXCHANGE = 0, 1, 2, 3
NO_PEER = -1


@dataclass(frozen=True)
class Trace:
    """Events of all ranks: rank r's are kind/peer/amount[offsets[r]:offsets[r + 1]]."""

    offsets: np.ndarray  # int64, ranks + 1
    kind: np.ndarray  # int8: SEND, RECV, REDUCE or EXCHANGE
    peer: np.ndarray  # int32: destination, source, or NO_PEER
    amount: np.ndarray  # int64: payload bytes, elements reduced, or an exchange's pairs

    @property
    def ranks(self) -> int:
        """How many ranks the trace covers."""
        return len(self.offsets) - 1

    @classmethod
    def from_ranks(cls, events: list[np.ndarray]) -> Trace:
        """Join per-rank (E_r, 3) arrays of (kind, peer, amount) rows."""
        joined = np.concatenate([e.reshape(-1, 3) for e in events]) if events else np.zeros((0, 3))
        offsets = np.concatenate([[0], np.cumsum([len(e) for e in events])]).astype(np.int64)
        return cls(
            offsets=offsets,
            kind=joined[:, 0].astype(np.int8),
            peer=joined[:, 1].astype(np.int32),
            amount=joined[:, 2].astype(np.int64),
        )


@dataclass(frozen=True)
class ClassTrace:
    """The events of ranks 0..period-1 of a `ranks`-rank schedule that the shift of every
    rank label by `period` maps onto itself: rank r does what rank r mod period does, its
    peers shifted by r - r mod period (the k-th message from p to r is then the k-th from
    p mod period to r - (p - p mod period))."""

    classes: Trace
    ranks: int

    @property
    def period(self) -> int:
        """How many ranks one class's representatives span."""
        return self.classes.ranks

    def __post_init__(self) -> None:
        if self.period < 1 or self.ranks % self.period:
            raise ValueError(f"a period of {self.period} ranks does not divide {self.ranks}")

    def sender(self, source: int, rank: int) -> tuple[int, int]:
        """The representative whose message stands for `source`'s to `rank`, and the rank
        it sends that message to."""
        offset = source - source % self.period
        return source % self.period, (rank - offset) % self.ranks

    @cached_property
    def expanded(self) -> Trace:
        """The whole trace: every rank's events, its representative's with peers shifted
        (made once: each rung of a fabric whose ports are shared replays it)."""
        return self.widened(self.ranks).classes

    def widened(self, period: int) -> ClassTrace:
        """The same schedule held by the classes of `period` ranks, a multiple of this
        period dividing the ranks: each new representative its old one's events, peers
        shifted (a fabric's nodes may span more ranks than the schedule's symmetry)."""
        if period % self.period or self.ranks % period:
            raise ValueError(
                f"a period of {period} ranks is no multiple of {self.period} dividing {self.ranks}"
            )
        per_class = np.diff(self.classes.offsets)
        shifts = np.arange(period // self.period) * self.period
        lengths = np.tile(per_class, len(shifts))
        shift = np.repeat(shifts, len(self.classes.kind))
        peer = np.tile(self.classes.peer.astype(np.int64), len(shifts))
        has_peer = peer != NO_PEER
        peer = np.where(has_peer, (peer + shift) % self.ranks, NO_PEER)
        events = Trace(
            offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            kind=np.tile(self.classes.kind, len(shifts)),
            peer=peer.astype(np.int32),
            amount=np.tile(self.classes.amount, len(shifts)),
        )
        return ClassTrace(events, self.ranks)
