"""Replay a message trace on a fabric: the completion time under the single-port model.

The model is the one whose logical clocks the transport measures, with time instead of
counts. Each rank has a clock c, a send port and a receive port. A send starts at
t = max(c, send port) and occupies the send port for w = alpha + bytes * beta of the link
class it crosses; its receive starts at max(t, receive port), ends w later, and advances the
receiver's clock to at least that end. A reduction of n elements adds n * gamma to the clock.
On a two-level fabric ranks r and r' share a node when r // G == r' // G; messages between
nodes use the inter-node class and, with `nic_per_node` k, also one of the node's k shared NIC
send ports and one of the receiving node's k NIC receive ports: a message takes the port free
earliest, and waits for it. The completion time is the largest clock.

With `cores` (the resources layer of collectives.model.ladder), the ranks of a node also
share that many cores: a send holds one of its node's cores for `share` of its duration when
it starts, a receive when it starts, and a reduction for all of its time, each waiting for
the core free earliest (so k busy ranks on one core take k times as long).

Ranks are processed in a dependency-respecting order (each runs until it needs a message not
sent yet), so the replay is linear in the trace, not an event-by-event simulation of time.
"""

from __future__ import annotations

import bisect
from collections import defaultdict, deque
from dataclasses import dataclass

import numpy as np

from ..transport.trace import RECV, SEND, Trace
from .fabric import Fabric, LinkClass


class _Port:
    """A shared NIC port's calendar of busy intervals, filled earliest-gap first."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.ends: list[float] = []

    def earliest(self, ready: float, duration: float) -> float:
        """The earliest start >= ready of a free interval of `duration`."""
        index = bisect.bisect_right(self.ends, ready)
        start = ready
        while index < len(self.starts) and self.starts[index] < start + duration:
            start = max(start, self.ends[index])
            index += 1
        return start

    def book(self, start: float, duration: float) -> None:
        index = bisect.bisect_left(self.starts, start)
        self.starts.insert(index, start)
        self.ends.insert(index, start + duration)


class _Pool:
    """k interchangeable units of one node: its NIC ports in one direction, or its cores."""

    def __init__(self, ports: int) -> None:
        self.ports = [_Port() for _ in range(ports)]

    def acquire(self, ready: float, duration: float) -> float:
        """Book the port that can start earliest; return the start time."""
        starts = [port.earliest(ready, duration) for port in self.ports]
        best = min(range(len(starts)), key=starts.__getitem__)
        self.ports[best].book(starts[best], duration)
        return starts[best]


@dataclass(frozen=True)
class Cores:
    """The cores the ranks of one node share, and the share of a message's time that is
    work on a core (copies, system calls) at each end."""

    per_node: int
    share: float = 0.5


class ReplayError(ValueError):
    """The trace is inconsistent (a receive no send ever matches)."""


def replay(trace: Trace, fabric: Fabric, cores: Cores | None = None) -> float:
    """Completion time in seconds of `trace` on `fabric` (its ranks sharing `cores`)."""
    n = trace.ranks
    kinds, peers, amounts = trace.kind.tolist(), trace.peer.tolist(), trace.amount.tolist()
    offsets = trace.offsets.tolist()
    group = fabric.ranks_per_node if fabric.structured else None
    node = [r // group for r in range(n)] if group else [0] * n
    intra, inter = fabric.intra or fabric.link, fabric.link
    shared = fabric.structured and fabric.nic_per_node
    nic_out = defaultdict(lambda: _Pool(fabric.nic_per_node)) if shared else None
    nic_in = defaultdict(lambda: _Pool(fabric.nic_per_node)) if shared else None
    gamma = fabric.gamma
    pools = defaultdict(lambda: _Pool(cores.per_node)) if cores else None
    share = cores.share if cores else 0.0

    pc = offsets[:-1]  # each rank's next event
    clock, send_port, recv_port = [0.0] * n, [0.0] * n, [0.0] * n
    channels: dict[tuple[int, int], deque[float]] = defaultdict(deque)
    blocked: dict[tuple[int, int], int] = {}
    runnable = deque(range(n))
    while runnable:
        rank = runnable.popleft()
        i, end = pc[rank], offsets[rank + 1]
        c, s, q = clock[rank], send_port[rank], recv_port[rank]
        while i < end:
            kind, peer, amount = kinds[i], peers[i], amounts[i]
            if kind == SEND:
                crosses = node[rank] != node[peer]
                link = inter if crosses else intra
                duration = link.alpha + amount * link.beta  # link.time, inlined: hot loop
                start = c if c > s else s
                if crosses and shared:
                    start = nic_out[node[rank]].acquire(start, duration)
                if pools is not None:
                    start = pools[node[rank]].acquire(start, share * duration)
                s = start + duration
                key = (rank, peer)
                channels[key].append(start)
                if key in blocked:
                    runnable.append(blocked.pop(key))
            elif kind == RECV:
                queue = channels[(peer, rank)]
                if not queue:
                    blocked[(peer, rank)] = rank
                    break
                sent = queue.popleft()
                crosses = node[rank] != node[peer]
                link = inter if crosses else intra
                duration = link.alpha + amount * link.beta  # link.time, inlined: hot loop
                start = sent if sent > q else q
                if crosses and shared:
                    start = nic_in[node[rank]].acquire(start, duration)
                if pools is not None:
                    start = pools[node[rank]].acquire(start, share * duration)
                q = start + duration
                if q > c:
                    c = q
            elif pools is not None:  # a local reduction, on a shared core
                work = amount * gamma
                c = pools[node[rank]].acquire(c, work) + work
            else:  # a local reduction
                c += amount * gamma
            i += 1
        pc[rank], clock[rank], send_port[rank], recv_port[rank] = i, c, s, q
    stuck = [r for r in range(n) if pc[r] < offsets[r + 1]]
    if stuck:
        raise ReplayError(f"ranks {stuck[:8]} wait for messages that are never sent")
    return max(clock, default=0.0)


def by_link_class(trace: Trace, ranks_per_node: int) -> dict[str, dict[str, int]]:
    """Counts on intra- and inter-node links: messages and bytes, and the critical path's
    rounds and bytes on each class (replays with unit cost on one class, zero on the other).
    """
    sends = trace.kind == SEND
    sender = np.repeat(np.arange(trace.ranks), np.diff(trace.offsets))
    crosses = (sender // ranks_per_node) != (trace.peer // ranks_per_node)
    unit, free = LinkClass(1.0, 0.0), LinkClass(0.0, 0.0)
    per_byte = LinkClass(0.0, 1.0)
    counts = {}
    for link, on_class in (("intra", sends & ~crosses), ("inter", sends & crosses)):
        cost = {
            cls: Fabric(
                name=f"unit cost on {link}",
                kind="structured",
                link=cls if link == "inter" else free,
                intra=cls if link == "intra" else free,
                ranks_per_node=ranks_per_node,
            )
            for cls in (unit, per_byte)
        }
        counts[link] = {
            "rounds": round(replay(trace, cost[unit])),
            "messages": int(np.count_nonzero(on_class)),
            "bytes_total": int(trace.amount[on_class].sum()),
            "bytes_critical": round(replay(trace, cost[per_byte])),
        }
    return counts
