"""All accounting of a run: per-rank counters and the single-port logical clocks.

The clock rules model a single-port, full-duplex rank: it sends at most one and receives at
most one message at a time. Each rank keeps a clock c, a send port s and a receive port q.
A send stamps its message t = max(c, s) and sets s = t + w; receiving a message stamped t
sets a = max(t, q) + w, q = a, c = max(c, a). With w = 1 the final max c over ranks is the
number of message rounds on the critical path; with w = payload bytes it is the
bandwidth-bound critical path in bytes.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

import numpy as np

from .trace import EXCHANGE, NO_PEER, RECV, REDUCE, SEND


@dataclass(slots=True)
class PortClock:
    """A rank's logical clock with one send port and one receive port."""

    clock: int = 0
    send_port: int = 0
    recv_port: int = 0

    # Conditional expressions rather than max(): these run once per message per clock.

    def stamp_send(self, weight: int) -> int:
        """Stamp an outgoing message and occupy the send port for `weight`."""
        clock, port = self.clock, self.send_port
        stamp = clock if clock > port else port
        self.send_port = stamp + weight
        return stamp

    def receive(self, stamp: int, weight: int) -> None:
        """Absorb a message stamped `stamp` that occupies the receive port for `weight`."""
        port = self.recv_port
        arrival = (stamp if stamp > port else port) + weight
        self.recv_port = arrival
        if arrival > self.clock:
            self.clock = arrival


# Column order of the per-rank statistics a rank hands back to the launcher.
LEDGER_FIELDS = (
    "messages_sent",
    "bytes_sent",
    "bytes_recv",
    "elements_reduced",
    "round_clock",
    "byte_clock",
)


@dataclass
class Ledger:
    """Everything one rank's endpoint counts: traffic, reductions, both clocks, the trace."""

    messages_sent: int = 0
    bytes_sent: int = 0
    bytes_recv: int = 0
    elements_reduced: int = 0
    rounds: PortClock = field(default_factory=PortClock)
    bytes: PortClock = field(default_factory=PortClock)
    events: array = field(default_factory=lambda: array("q"))  # (kind, peer, amount) triples,
    # flat: appending three ints costs what a tuple would, and the trace needs no conversion

    def on_send(self, dest: int, nbytes: int) -> tuple[int, int]:
        """Count an outgoing message and return its (round, byte) stamps."""
        self.messages_sent += 1
        self.bytes_sent += nbytes
        self.events.extend((SEND, dest, nbytes))
        return self.rounds.stamp_send(1), self.bytes.stamp_send(nbytes)

    def on_recv(self, source: int, nbytes: int, round_stamp: int, byte_stamp: int) -> None:
        """Count a consumed message and advance both clocks."""
        self.bytes_recv += nbytes
        self.events.extend((RECV, source, nbytes))
        self.rounds.receive(round_stamp, 1)
        self.bytes.receive(byte_stamp, nbytes)

    def on_exchange(self, pairs: int) -> None:
        """Mark the start of `pairs` send-receive pairs whose sends need none of their
        receives (the trace's EXCHANGE; the clocks take the pairs one after another)."""
        self.events.extend((EXCHANGE, NO_PEER, pairs))

    def on_reduce(self, elements: int) -> None:
        """Count a local reduction of `elements` element pairs."""
        self.elements_reduced += elements
        self.events.extend((REDUCE, NO_PEER, elements))

    def event_array(self) -> np.ndarray:
        """The trace of this rank as an (E, 3) int64 array of (kind, peer, amount)."""
        return np.frombuffer(self.events, dtype=np.int64).reshape(-1, 3).copy()

    def as_row(self) -> list[int]:
        """The ledger as one row in LEDGER_FIELDS order."""
        return [
            self.messages_sent,
            self.bytes_sent,
            self.bytes_recv,
            self.elements_reduced,
            self.rounds.clock,
            self.bytes.clock,
        ]


# The counts of a run, measured here and predicted by collectives.model.theory in the same
# terms: message rounds and messages on the critical path and in all, bytes in all, on the
# critical path and through the busiest rank.
COUNT_FIELDS = ("rounds", "messages", "bytes_total", "bytes_critical", "hotspot_bytes")


@dataclass(frozen=True)
class Counts:
    """A run's COUNT_FIELDS: measured (RunCounts) or predicted (the closed forms)."""

    rounds: int
    messages: int
    bytes_total: int
    bytes_critical: int
    hotspot_bytes: int

    def as_dict(self) -> dict[str, int]:
        """The counts by field name, in COUNT_FIELDS order."""
        return {field: getattr(self, field) for field in COUNT_FIELDS}


@dataclass(frozen=True)
class RunCounts(Counts):
    """The measured counts of one run, aggregated over its ranks, with its per-rank bytes
    and the elements it reduced."""

    elements_reduced: int
    bytes_sent: list[int]
    bytes_recv: list[int]

    @classmethod
    def from_ledgers(cls, rows: np.ndarray) -> RunCounts:
        """Aggregate an (N, len(LEDGER_FIELDS)) array of per-rank ledgers."""
        col = {name: rows[:, i].astype(np.int64) for i, name in enumerate(LEDGER_FIELDS)}
        sent, recv = col["bytes_sent"], col["bytes_recv"]
        return cls(
            rounds=int(col["round_clock"].max(initial=0)),
            messages=int(col["messages_sent"].sum()),
            bytes_total=int(sent.sum()),
            bytes_critical=int(col["byte_clock"].max(initial=0)),
            hotspot_bytes=int((sent + recv).max(initial=0)),
            elements_reduced=int(col["elements_reduced"].sum()),
            bytes_sent=[int(v) for v in sent],
            bytes_recv=[int(v) for v in recv],
        )
