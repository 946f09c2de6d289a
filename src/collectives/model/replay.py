"""Replay a message trace on a fabric: the completion time under the single-port model.

The model is the one whose logical clocks the transport measures, with time instead of
counts. Each rank has a clock c, a send port and a receive port. A send starts at
t = max(c, send port) and occupies the send port for w = alpha + bytes * beta of the link
class it crosses; its receive starts at max(t, receive port), ends w later, and advances the
receiver's clock to at least that end. A reduction of n elements adds n * gamma to the clock.
On a two-level fabric the fabric's topology says which ranks share a node; messages between
nodes use the inter-node class and, where the topology shares NIC ports, also one of the
sender's NIC send ports and one of the receiver's NIC receive ports (the node's k pooled
ports, or its rail's one): a message takes the port free earliest, and waits for it, and
holds it for its bytes * beta (its measured occupancy when pipelined): the ranks sharing a
NIC wait for each other's bytes, never for each other's latencies. The completion time is
the largest clock.

With `cores` (the resources layer of collectives.model.ladder), the ranks of a node also
share that many cores: a send holds one of its node's cores for `share` of the time it holds
its port when it starts, a receive likewise, and a reduction for all of its time, each waiting for
the core free earliest (so k busy ranks on one core take k times as long). Where a node has
a core for every hold a rank can make (a send, a receive and a reduction), none waits. With
`of_rank`, each rank has such cores of its own: its send, receive and reductions take turns
on them, and the sharing between ranks is left to the links (measured with all ranks busy).

`pipelined` (the same layer) splits a message's time w into what holds its ports, the
link's occupancy h = g + G·bytes measured with many messages in flight (LogGP's gap), and
latency w - h that overlaps other messages: the send port and NIC are held for h, the
receive starts no earlier than t + w - h and holds its port for h. Without an occupancy,
h = w, the model above.

A crossbar link class (an NVSwitch node) holds the ports for bytes * beta and lets alpha
overlap, as `pipelined` does with h = bytes * beta: messages that wait for no receive in
between (a root's sends to its children) overlap their latencies. On it, the sends of an
exchange (the trace's EXCHANGE mark: sends that need none of the exchange's receives) are
also ready when the exchange opened, not when the receive before each ends: one-shot's N-1
messages then pay one latency, as on a crossbar they do.

Ranks are processed in a dependency-respecting order (each runs until it needs a message not
sent yet), so the replay is linear in the trace, not an event-by-event simulation of time.

A trace held by classes of ranks (ClassTrace: a shift by P ranks maps the schedule onto
itself) is replayed by its P representatives alone where the fabric has the same symmetry
(P whole nodes, so each node's shared NIC ports and cores are booked by its own ranks): a
message from rank p is its representative's to the correspondingly shifted rank, which
left at the same time by the symmetry. Elsewhere the whole trace is expanded and replayed.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict, deque
from dataclasses import dataclass

import numpy as np

from ..transport.trace import EXCHANGE, RECV, REDUCE, SEND, ClassTrace, Trace
from .fabric import Fabric, LinkClass
from .topology import INTER, INTRA, Topology


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

    def find(self, ready: float, duration: float) -> tuple[_Port, float]:
        """The port that can start earliest (the first free at `ready`, when one is: none
        can start sooner), and that start."""
        best, start = self.ports[0], math.inf
        for port in self.ports:
            earliest = port.earliest(ready, duration)
            if earliest < start:
                best, start = port, earliest
                if earliest <= ready:
                    break
        return best, start

    def acquire(self, ready: float, duration: float) -> float:
        """Book the port that can start earliest; return the start time."""
        port, start = self.find(ready, duration)
        port.book(start, duration)
        return start


def _together(nic: _Pool, hold: float, core: _Pool, work: float, ready: float) -> float:
    """Book a NIC port and a core from the same start, the earliest when both are free;
    return it."""
    while True:
        port, start = nic.find(ready, hold)
        unit, begins = core.find(start, work)
        if begins <= start:
            port.book(start, hold)
            unit.book(start, work)
            return start
        ready = begins


@dataclass(frozen=True)
class Cores:
    """The cores the ranks of one node share, and the share of a message's time that is
    work on a core (copies, system calls) at each end. `of_rank`: `per_node` cores for
    each rank alone instead (a single-threaded rank's own work, one thing at a time, where
    the sharing between ranks is already in the links)."""

    per_node: int
    share: float = 0.5
    of_rank: bool = False


HOLDS_PER_RANK = 3  # a rank holds cores for at most one send, one receive, one reduction


class ReplayError(ValueError):
    """The trace is inconsistent (a receive no send ever matches)."""


def replay(
    trace: Trace | ClassTrace, fabric: Fabric, cores: Cores | None = None, pipelined: bool = False
) -> float:
    """Completion time in seconds of `trace` on `fabric` (its ranks sharing `cores`;
    `pipelined`: a message holds its ports only for its links' measured occupancy)."""
    classes = trace if isinstance(trace, ClassTrace) else None
    if classes is not None and not _symmetric(classes, fabric.topology, cores):
        classes, trace = None, classes.expanded
    if classes is not None:
        trace = classes.classes
    n = trace.ranks
    # Per event, Python-readable views of the arrays (a view's item is a Python number, as
    # a list's is, without a Python object per event held: 8 bytes, not about 40)
    kinds, peers, amounts = _view(trace.kind), _view(trace.peer), _view(trace.amount)
    offsets = trace.offsets.tolist()
    topology = fabric.topology
    node = topology.nodes_of(np.arange(n)).tolist()
    crossing, durations, held = _prices(trace, fabric, pipelined)
    nic_holds = _view(_nic_holds(trace, fabric, pipelined))
    on_crossbar = _view(_on_crossbar(fabric, crossing))
    lags = _view(durations - held)  # latency overlapping other messages
    crossing, holds = _view(crossing), _view(held)
    del durations
    nics = [topology.nic(rank) for rank in range(n)]  # (pool, ports) of each rank's NIC
    shared = bool(nics) and nics[0] is not None
    ports = nics[0][1] if shared else 0  # one topology's pools all have as many ports
    nic_out = defaultdict(lambda: _Pool(ports)) if shared else None
    nic_in = defaultdict(lambda: _Pool(ports)) if shared else None
    nic = [key for key, _ in nics] if shared else None
    sharing = 1 if cores and cores.of_rank else (topology.ranks_per_node or n)
    if cores and cores.per_node >= HOLDS_PER_RANK * sharing:
        cores = None  # a core for every hold: no rank ever waits for one
    owner = list(range(n)) if cores and cores.of_rank else node
    pools = defaultdict(lambda: _Pool(cores.per_node)) if cores else None
    share = cores.share if cores else 0.0

    pc = offsets[:-1]  # each rank's next event
    clock, send_port, recv_port = [0.0] * n, [0.0] * n, [0.0] * n
    opened, left = [0.0] * n, [0] * n  # each rank's exchange: its clock then, sends to go
    channels: dict[tuple[int, int], deque[float]] = defaultdict(deque)
    blocked: dict[tuple[int, int], int] = {}
    runnable = deque(range(n))
    while runnable:
        rank = runnable.popleft()
        i, end = pc[rank], offsets[rank + 1]
        c, s, q = clock[rank], send_port[rank], recv_port[rank]
        c0, pending = opened[rank], left[rank]
        while i < end:
            kind, peer, duration = kinds[i], peers[i], holds[i]
            if kind == SEND:
                crosses = crossing[i]
                ready = c
                if pending:  # a send of an exchange: on a crossbar, ready when it opened
                    ready = c0 if on_crossbar[i] else c
                    pending -= 1
                start = ready if ready > s else s
                if crosses and shared and pools is not None:
                    port, core = nic_out[nic[rank]], pools[owner[rank]]
                    start = _together(port, nic_holds[i], core, share * duration, start)
                elif crosses and shared:
                    start = nic_out[nic[rank]].acquire(start, nic_holds[i])
                elif pools is not None:
                    start = pools[owner[rank]].acquire(start, share * duration)
                s = start + duration
                key = (rank, peer)
                channels[key].append(start)
                if key in blocked:
                    runnable.append(blocked.pop(key))
            elif kind == RECV:
                key = (peer, rank) if classes is None else classes.sender(peer, rank)
                queue = channels[key]
                if not queue:
                    blocked[key] = rank
                    break
                sent = queue.popleft()
                crosses = crossing[i]
                sent += lags[i]
                start = sent if sent > q else q
                if crosses and shared and pools is not None:
                    port, core = nic_in[nic[rank]], pools[owner[rank]]
                    start = _together(port, nic_holds[i], core, share * duration, start)
                elif crosses and shared:
                    start = nic_in[nic[rank]].acquire(start, nic_holds[i])
                elif pools is not None:
                    start = pools[owner[rank]].acquire(start, share * duration)
                q = start + duration
                if q > c:
                    c = q
            elif kind == EXCHANGE:
                c0, pending = c, amounts[i]
            elif pools is not None:  # a local reduction, on a shared core
                c = pools[owner[rank]].acquire(c, duration) + duration
            else:  # a local reduction
                c += duration
            i += 1
        pc[rank], clock[rank], send_port[rank], recv_port[rank] = i, c, s, q
        opened[rank], left[rank] = c0, pending
    stuck = [r for r in range(n) if pc[r] < offsets[r + 1]]
    if stuck:
        raise ReplayError(f"ranks {stuck[:8]} wait for messages that are never sent")
    return max(clock, default=0.0)


def _view(values: np.ndarray) -> memoryview:
    """A contiguous array as a memoryview: indexing it gives Python ints, floats or bools."""
    return memoryview(np.ascontiguousarray(values))


def _symmetric(classes: ClassTrace, topology: Topology, cores: Cores | None) -> bool:
    """Whether the classes' representatives replay the whole: a shift by their period
    keeps which messages cross nodes (whole nodes), and no rank shares a NIC port or a
    core with another (a shared port is booked in the order the ranks are replayed, which
    the symmetry does not keep; a rank's own rail is booked in its own order)."""
    per_node = topology.ranks_per_node or classes.ranks
    shares_cores = (
        cores is not None and not cores.of_rank and cores.per_node < HOLDS_PER_RANK * per_node
    )
    keeps_nodes = topology.ranks_per_node is None or classes.period % per_node == 0
    return keeps_nodes and not topology.shares_nics and not shares_cores


def _prices(
    trace: Trace, fabric: Fabric, pipelined: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per event: whether it crosses between nodes, its duration (a message's on the link
    class it crosses, a reduction's amount·γ), and how long it holds its ports (all of its
    duration, unless `pipelined`), computed for the whole trace at once."""
    ranks = np.repeat(np.arange(trace.ranks), np.diff(trace.offsets))
    amounts = trace.amount.astype(float)
    is_message = (trace.kind == SEND) | (trace.kind == RECV)
    crossing = is_message & fabric.topology.crosses(ranks, trace.peer)
    intra = fabric.intra or fabric.link
    durations = np.where(crossing, fabric.link.times(amounts), intra.times(amounts))
    durations = np.where(is_message, durations, (trace.kind == REDUCE) * amounts * fabric.gamma)
    if not pipelined and not fabric.crossbar:
        return crossing, durations, durations

    def held(link: LinkClass, times: np.ndarray) -> np.ndarray:
        """A class's holds: measured occupancy when pipelined, β·bytes on a crossbar."""
        return link.holds(amounts) if pipelined or link.crossbar else times

    holds = np.where(
        crossing,
        held(fabric.link, fabric.link.times(amounts)),
        held(intra, intra.times(amounts)),
    )
    return crossing, durations, np.where(is_message, holds, durations)


def _nic_holds(trace: Trace, fabric: Fabric, pipelined: bool) -> np.ndarray:
    """Per event: how long a message between nodes holds its node's shared NIC port: its
    measured occupancy when pipelined, else its bytes·β. A latency never holds a NIC: the
    ranks sharing it wait for each other's bytes, not for each other's latencies."""
    amounts = trace.amount.astype(float)
    link = fabric.link
    if pipelined and link.occupancy is not None:
        return link.holds(amounts)
    return link.byte_times(amounts)


def _on_crossbar(fabric: Fabric, crossing: np.ndarray) -> np.ndarray:
    """Per event: whether it crosses a crossbar link class (what a send's is)."""
    intra = fabric.intra or fabric.link
    return np.where(crossing, fabric.link.crossbar, intra.crossbar)


def by_link_class(trace: Trace, topology: Topology) -> dict[str, dict[str, int]]:
    """Counts on intra- and inter-node links: messages and bytes, and the critical path's
    rounds and bytes on each class (replays with unit cost on one class, zero on the other).
    """
    sends = trace.kind == SEND
    sender = np.repeat(np.arange(trace.ranks), np.diff(trace.offsets))
    crosses = topology.crosses(sender, trace.peer)
    unit, free = LinkClass(1.0, 0.0), LinkClass(0.0, 0.0)
    per_byte = LinkClass(0.0, 1.0)
    counts = {}
    for link, on_class in ((INTRA, sends & ~crosses), (INTER, sends & crosses)):
        cost = {
            cls: Fabric.on_nodes(
                f"unit cost on {link}",
                intra=cls if link == INTRA else free,
                inter=cls if link == INTER else free,
                ranks_per_node=topology.ranks_per_node,
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
