"""NCCL's own cost model of its all-reduce, and the choice it makes from it.

NCCL prices every algorithm (ring, tree) and protocol (LL, LL128, Simple) as a latency plus
bytes over a bandwidth, and runs the cheapest. The constants are those of one NCCL release,
read for facts from its source at the release's tag (github.com/NVIDIA/nccl):
src/graph/tuning.cc (base and hardware latencies, bandwidth caps, the tree's correction),
src/graph/topo.h (link widths), src/graph/search.cc (channel speeds) and init.cc (16
search channels at most). NCCL's inputs come from its topology search, which this module
states in a simplified form (`search`): every channel of a node's graph gets the same speed,
the first of search.cc's speeds that a GPU's NVLink width and, across nodes, one NIC carry;
as many channels as the GPU's width and the node's NICs hold; doubled at half speed when the
speed is 25 GB/s or more (ncclTopoDupChannels). The protocols: LL carries 8 bytes of data in
16 (flags), LL128 120 in 128, Simple all of it, with a larger latency per step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ALGORITHMS = ("tree", "ring")
PROTOCOLS = ("LL", "LL128", "Simple")


@dataclass(frozen=True)
class Release:
    """One NCCL release's tuning constants (µs and GB/s, as tuning.cc writes them)."""

    version: str
    base_latency: dict[str, tuple[float, float, float]]  # algorithm -> per protocol
    hardware_latency: dict[str, dict[str, tuple[float, float, float]]]  # link -> algorithm
    ll128_max_bw_per_channel: float  # all-reduce's
    ll_max_bw: dict[tuple[int, int], float]  # (GPU or CPU row, node index) -> GB/s
    tree_max_bw_per_channel: dict[tuple[int, int], float]  # (sm80 or not, node index)
    sm80_bus_bw_cap: float
    tree_correction: dict[str, tuple[float, ...]]  # protocol -> factor by log2(bytes/64)
    ring_simple_plateau: float  # the ring Simple latency's factor on several nodes
    nvlink_width: tuple[tuple[int, float], ...]  # (compute capability, GB/s per NVLink),
    # an exact match first, then the first whose capability the GPU's reaches
    speeds: tuple[float, ...]  # search.cc's speedArray, GB/s per channel
    max_search_channels: int
    ll128_gpus: tuple[int, ...]  # compute capabilities LL128 is on for by default


NCCL_2_8_4 = Release(
    version="2.8.4",
    base_latency={"tree": (4.4, 4.4, 0.0), "ring": (3.6, 10.0, 8.4)},
    hardware_latency={
        "nvlink": {"tree": (0.52, 1.25, 28.0), "ring": (0.47, 1.9, 3.4)},
        "pci": {"tree": (1.0, 1.9, 28.0), "ring": (1.0, 2.5, 5.7)},
        "net": {"tree": (5.0, 8.5, 28.0), "ring": (2.7, 4.0, 9.6)},
    },
    ll128_max_bw_per_channel=16.9,
    # llMaxBws: row 0 Volta (one node) or Intel CPU (several), row 1 Ampere or AMD CPU;
    # columns one node, two nodes, more
    ll_max_bw={(0, 0): 39.0, (0, 1): 39.0, (0, 2): 20.4, (1, 0): 87.7, (1, 1): 22.5, (1, 2): 19.0},
    tree_max_bw_per_channel={
        (0, 0): 26.5, (0, 1): 18.5, (0, 2): 10.0, (1, 0): 24.0, (1, 1): 22.5, (1, 2): 16.0,
    },
    sm80_bus_bw_cap=235.0,
    tree_correction={
        "LL": (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9,
               1.0, 1.0, 1.0, 1.0),
        "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7,
                  .8, .9, .9, .92, .92),
        "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7,
                   .7, .8, .9, .9),
    },
    ring_simple_plateau=1.9,
    nvlink_width=((86, 12.0), (80, 21.0), (70, 21.0), (60, 18.0), (0, 21.0)),
    speeds=(42.0, 30.0, 24.0, 21.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4,
            1.2, 0.24, 0.12),
    max_search_channels=16,
    ll128_gpus=(70, 80),  # Volta and Ampere, with NVLink inside the node
)  # fmt: skip
RELEASES = {release.version: release for release in (NCCL_2_8_4,)}


@dataclass(frozen=True)
class System:
    """What NCCL's tuning reads of a system: its ranks and nodes, its GPUs' compute
    capability and NVLinks (NVSwitch or not), its NICs per node and their GB/s, its CPU."""

    ranks: int
    nodes: int
    compute_capability: int  # 80 for sm_80
    nvlinks: int  # NVLinks per GPU
    nics_per_node: int
    nic_GBps: float
    amd_cpu: bool


@dataclass(frozen=True)
class Graph:
    """The topology search's outcome: channels of one speed (GB/s each)."""

    channels: int
    speed: float

    @property
    def bandwidth(self) -> float:
        """The bus bandwidth the graph found: channels × speed."""
        return self.channels * self.speed


def nvlink_width(release: Release, compute_capability: int) -> float:
    """GB/s of one NVLink of a GPU, as the release's topology code rates it (sm_86's own,
    else the newest generation the GPU reaches, else the default)."""
    widths = release.nvlink_width
    exact = [width for capability, width in widths if capability == compute_capability]
    return (exact or [w for c, w in widths if compute_capability >= c and c != 86])[0]


def search(system: System, release: Release) -> Graph:
    """The graph of the simplified search: the first speed of the release's list that one
    GPU's NVLinks and, across nodes, one NIC carry; as many channels as both hold."""
    width = system.nvlinks * nvlink_width(release, system.compute_capability)
    per_channel = width if system.nodes == 1 else min(width, system.nic_GBps)
    speed = next((s for s in release.speeds if s <= per_channel), release.speeds[-1])
    channels = math.floor(width / speed)
    if system.nodes > 1:
        channels = min(channels, system.nics_per_node * math.floor(system.nic_GBps / speed))
    channels = max(1, min(channels, release.max_search_channels))
    if speed >= 25.0:  # ncclTopoDupChannels: twice the channels, each at half the speed
        doubled = min(2 * channels, release.max_search_channels)
        speed, channels = speed / math.ceil(doubled / channels), doubled
    return Graph(channels, speed)


def bus_bandwidth(system: System, release: Release, algorithm: str, protocol: str) -> float:
    """NCCL's bus bandwidth (GB/s) of an algorithm and protocol: the graph's, capped and cut
    by the protocol as tuning.cc's refinements do."""
    graph = search(system, release)
    sm80 = int(system.compute_capability == 80)
    node_index = min(system.nodes, 3) - 1
    ll_row = sm80 if system.nodes == 1 else int(system.amd_cpu)
    ll_max = release.ll_max_bw[ll_row, node_index]
    ll128_max = release.ll128_max_bw_per_channel * graph.channels
    bus = min(graph.bandwidth, release.sm80_bus_bw_cap) if sm80 else graph.bandwidth
    if algorithm == "ring":
        if protocol == "LL":
            return min(ll_max, bus / 4)
        if protocol == "LL128":
            return min(bus * (0.7 if system.ranks / system.nodes < 2 else 0.92), ll128_max)
        return bus
    bus = min(bus * 0.92, graph.channels * release.tree_max_bw_per_channel[sm80, node_index])
    if protocol == "LL":
        return min(bus / 3.8, ll_max)
    if protocol == "LL128":
        return min(bus * (7 / 9 if system.nodes == 1 else 0.915), ll128_max)
    return bus


def step_latency(
    system: System, release: Release, algorithm: str, protocol: str, link: str
) -> float:
    """NCCL's latency (µs) of one step of an algorithm and protocol over `link` ('nvlink' or
    'net'); LL's NVLink steps cost 1.8 times as much when the run spans nodes."""
    latency = release.hardware_latency[link][algorithm][PROTOCOLS.index(protocol)]
    return latency * 1.8 if link == "nvlink" and protocol == "LL" and system.nodes > 1 else latency


def tuning(system: System, release: Release) -> dict[tuple[str, str], tuple[float, float]]:
    """NCCL's (latency µs, algorithm bandwidth GB/s) of each algorithm × protocol of the
    all-reduce on `system` (tuning.cc's ncclTopoTuneModel, ring and tree): a base latency,
    plus one per step (2(N-1) for the ring, of which 2(nodes-1) cross the network; 2 per
    level of the trees); the ring's bus bandwidth times N/(2(N-1)), the tree's times 1/2."""
    nodes, ranks = system.nodes, system.ranks
    steps, inter_steps = 2 * (ranks - 1), 2 * (nodes - 1)
    tuned = {}
    for algorithm in ALGORITHMS:
        for protocol in PROTOCOLS:
            if protocol == "LL128" and system.compute_capability not in release.ll128_gpus:
                continue  # NCCL enables LL128 by default on these GPUs only
            intra = step_latency(system, release, algorithm, protocol, "nvlink")
            inter = step_latency(system, release, algorithm, protocol, "net")
            latency = release.base_latency[algorithm][PROTOCOLS.index(protocol)]
            if algorithm == "ring":
                latency += (steps - inter_steps) * intra + inter_steps * inter
            else:
                depth = ranks // nodes - 1
                latency += 2 * (depth * intra + (nodes.bit_length() - 1) * inter)
            ratio = 0.5 if algorithm == "tree" else ranks / steps
            tuned[algorithm, protocol] = (
                latency,
                bus_bandwidth(system, release, algorithm, protocol) * ratio,
            )
    return tuned


def algorithm_time(
    system: System,
    release: Release,
    tuned: dict[tuple[str, str], tuple[float, float]],
    algorithm: str,
    protocol: str,
    nbytes: int,
) -> float:
    """NCCL's predicted seconds for one all-reduce of `nbytes` by `algorithm` and `protocol`
    (ncclTopoGetAlgoTime), from the system's `tuned` latencies and bandwidths."""
    latency, bandwidth = tuned[algorithm, protocol]
    corrections = release.tree_correction[protocol]
    log_size = max(0, (nbytes >> 6).bit_length() - 1)  # log2 of the size in 64-byte units
    if algorithm == "tree" and log_size < len(corrections):
        bandwidth *= corrections[log_size]
    if (
        algorithm == "ring" and protocol == "Simple" and system.nodes > 1
        and nbytes >= system.ranks / 16.0 * 65536
    ):  # fmt: skip
        latency *= release.ring_simple_plateau
    return (latency + nbytes / (1000 * bandwidth)) * 1e-6


def choice(system: System, release: Release, sizes: list[int]) -> list[tuple[str, str, float]]:
    """For each size in bytes: the algorithm and protocol NCCL runs, and its seconds."""
    tuned = tuning(system, release)
    chosen = []
    for nbytes in sizes:
        times = {key: algorithm_time(system, release, tuned, *key, nbytes) for key in tuned}
        algorithm, protocol = min(times, key=times.__getitem__)
        chosen.append((algorithm, protocol, times[algorithm, protocol]))
    return chosen
