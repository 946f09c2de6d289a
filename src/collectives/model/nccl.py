"""NCCL's own cost model of its all-reduce, and the choice it makes from it.

NCCL prices every algorithm (ring, tree) and protocol (LL, LL128, Simple) as a latency plus
bytes over a bandwidth, and runs the cheapest. The constants are those of one NCCL release,
read for facts from its source at the release's tag (github.com/NVIDIA/nccl):
src/graph/tuning.cc (base and hardware latencies, bandwidth caps, the tree's correction, the
network overhead), src/graph/topo.h (link widths), src/graph/search.cc (channel speeds) and
init.cc (16 search channels at most). NCCL's inputs come from its topology search, which
this module states in a simplified form (`search`): every channel of a node's graph gets the
same speed, the first of search.cc's speeds that a GPU's NVLink width and, across nodes, one
NIC carry; as many channels as the GPU's width and the node's NICs hold; doubled at half
speed when the speed is 25 GB/s or more (ncclTopoDupChannels; in 2.20.3 not for a GPU
newer than sm_80 with more than 4 channels below 50 GB/s). The network plugin's own
latency (the graph's latencyInter) is taken as 0, as InfiniBand's verbs plugin reports it.
The protocols: LL carries 8 bytes of data in 16 (flags), LL128 120 in 128, Simple all of it,
with a larger latency per step. NVLS and CollNet (NVSwitch and in-network reductions) are
not modelled: a release that has them is priced over its ring and tree alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ALGORITHMS = ("tree", "ring")
PROTOCOLS = ("LL", "LL128", "Simple")
Rows = dict[tuple[int, int], float]  # (capability or CPU row, node index) -> GB/s


@dataclass(frozen=True)
class Release:
    """One NCCL release's tuning constants (µs and GB/s, as tuning.cc writes them).

    Tables indexed by GPU generation use `capability_rows`: a GPU reads the last row whose
    compute capability it reaches. Node indices are one node, two nodes, more."""

    version: str
    base_latency: dict[str, tuple[float, float, float]]  # algorithm -> per protocol
    hardware_latency: dict[str, dict[str, tuple[float, float, float]]]  # link -> algorithm
    capability_rows: tuple[int, ...]  # the compute capability each row starts at
    ll_max_bw: Rows  # one node: capability row; several: CPU row (Intel 0, AMD 1)
    ring_ll128_max_bw_per_channel: Rows
    tree_ll128_max_bw_per_channel: Rows
    tree_max_bw_per_channel: Rows
    tree_ll128_factor_across_nodes: float
    tree_one_gpu_per_node_factor: float  # a tree of one GPU a node (search.cc's TREE pattern)
    sm80_bus_bw_cap: float | None  # 2.8.4 caps an sm_80 graph's bandwidth
    ll_nvlink_factor_across_nodes: float  # LL's NVLink step, when the run spans nodes
    ring_inter_steps_short_of_nodes: int  # a ring crosses the network 2(nodes - this) times
    net_overhead: dict[str, float]  # CPU -> µs a ring step pays across nodes (Simple: 3x)
    tree_correction: dict[str, tuple[float, ...]]  # protocol -> factor by log2(bytes/64)
    ring_simple_plateau: tuple[float, float]  # latency factor across nodes, before/from sm_80
    plateau_bytes_per_rank: int  # the plateau from this many bytes per rank ...
    plateau_per_channel: bool  # ... and per channel
    nvlink_width: tuple[tuple[int, float], ...]  # (compute capability, GB/s per NVLink),
    # an exact match first, then the first whose capability the GPU reaches
    speeds: dict[tuple[bool, bool], tuple[float, ...]]  # (across nodes, sm_90) -> GB/s
    max_search_channels: int
    no_dup_after_sm80_below: float  # after sm_80, > 4 channels below this GB/s: no doubling
    ll128_gpus: tuple[int, ...]  # compute capabilities LL128 is on for by default


def _same(value: float) -> Rows:
    """A table with one value in every row and node index."""
    return {(row, node): value for row in range(3) for node in range(3)}


# v2.8.4-1: ll128MaxBwPerCh is one per collective (all-reduce's 16.9); llMaxBws row 0 is
# Volta in one node or an Intel CPU across nodes, row 1 Ampere or AMD. 2.8.4 reads its sm_80
# rows for sm_80 exactly; here sm_80 and later do, which no 2.8.4 system has.
NCCL_2_8_4 = Release(
    version="2.8.4",
    base_latency={"tree": (4.4, 4.4, 0.0), "ring": (3.6, 10.0, 8.4)},
    hardware_latency={
        "nvlink": {"tree": (0.52, 1.25, 28.0), "ring": (0.47, 1.9, 3.4)},
        "pci": {"tree": (1.0, 1.9, 28.0), "ring": (1.0, 2.5, 5.7)},
        "net": {"tree": (5.0, 8.5, 28.0), "ring": (2.7, 4.0, 9.6)},
    },
    capability_rows=(0, 80),
    ll_max_bw={(0, 0): 39.0, (0, 1): 39.0, (0, 2): 20.4, (1, 0): 87.7, (1, 1): 22.5, (1, 2): 19.0},
    ring_ll128_max_bw_per_channel=_same(16.9),
    tree_ll128_max_bw_per_channel=_same(16.9),
    tree_max_bw_per_channel={
        (0, 0): 26.5, (0, 1): 18.5, (0, 2): 10.0, (1, 0): 24.0, (1, 1): 22.5, (1, 2): 16.0,
    },
    tree_ll128_factor_across_nodes=0.915,
    tree_one_gpu_per_node_factor=1.0,
    sm80_bus_bw_cap=235.0,
    ll_nvlink_factor_across_nodes=1.8,
    ring_inter_steps_short_of_nodes=1,
    net_overhead={},
    tree_correction={
        "LL": (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9,
               1.0, 1.0, 1.0, 1.0),
        "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7,
                  .8, .9, .9, .92, .92),
        "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7,
                   .7, .8, .9, .9),
    },
    ring_simple_plateau=(1.9, 1.9),
    plateau_bytes_per_rank=4096,  # nBytes >= nRanks/16 x 64 KiB
    plateau_per_channel=False,
    nvlink_width=((86, 12.0), (80, 21.0), (70, 21.0), (60, 18.0), (0, 21.0)),
    speeds={
        key: (42.0, 30.0, 24.0, 21.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0,
              2.4, 1.2, 0.24, 0.12)
        for key in ((False, False), (False, True), (True, False), (True, True))
    },
    max_search_channels=16,
    no_dup_after_sm80_below=0.0,
    ll128_gpus=(70, 80),  # Volta and Ampere, with NVLink inside the node
)  # fmt: skip

# v2.20.3-1: rows Volta, Ampere, Hopper; search.cc has its speeds inside a node and across
# nodes, and their own for sm_90; topo.h rates an sm_90 NVLink at 20.6 GB/s.
NCCL_2_20_3 = Release(
    version="2.20.3",
    base_latency={"tree": (6.8, 14.0, 0.0), "ring": (6.6, 14.0, 8.4)},
    hardware_latency={
        "nvlink": {"tree": (0.6, 1.25, 28.0), "ring": (0.6, 1.9, 3.4)},
        "pci": {"tree": (1.0, 1.9, 28.0), "ring": (1.0, 2.5, 5.7)},
        "net": {"tree": (5.0, 8.5, 28.0), "ring": (2.7, 4.0, 14.0)},
    },
    capability_rows=(0, 80, 90),
    ll_max_bw={
        (0, 0): 39.0, (0, 1): 39.0, (0, 2): 20.4, (1, 0): 87.7, (1, 1): 22.5, (1, 2): 19.0,
        (2, 0): 87.7, (2, 1): 22.5, (2, 2): 19.0,
    },
    ring_ll128_max_bw_per_channel={
        **{(row, node): 20.0 for row in (0, 1) for node in range(3)},
        **{(2, node): 36.7 for node in range(3)},
    },
    tree_ll128_max_bw_per_channel={
        **{(row, node): 20.0 for row in (0, 1) for node in range(3)},
        (2, 0): 36.7, (2, 1): 36.7, (2, 2): 29.0,
    },
    tree_max_bw_per_channel={
        (0, 0): 26.5, (0, 1): 18.5, (0, 2): 10.0, (1, 0): 24.0, (1, 1): 23.6, (1, 2): 17.8,
        (2, 0): 38.7, (2, 1): 41.4, (2, 2): 36.0,
    },
    tree_ll128_factor_across_nodes=120 / 128,
    tree_one_gpu_per_node_factor=0.85,
    sm80_bus_bw_cap=None,
    ll_nvlink_factor_across_nodes=1.0,
    ring_inter_steps_short_of_nodes=0,
    net_overhead={"intel": 1.0, "amd": 2.0},
    tree_correction={
        "LL": (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9,
               1.0, 1.0, 1.0, 1.0),
        "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9,
                  .9, .9, .9, 1.0, 1.0),
        "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7,
                   .7, .8, .9, .9),
    },
    ring_simple_plateau=(1.9, 1.4),
    plateau_bytes_per_rank=64,  # nBytes / (nChannels x nRanks) >= 64
    plateau_per_channel=True,
    nvlink_width=((86, 12.0), (90, 20.6), (80, 20.0), (70, 20.0), (60, 18.0), (0, 20.0)),
    speeds={
        (False, False): (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0,
                         3.0),
        (True, False): (48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0,
                        5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12),
        (False, True): (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0),
        (True, True): (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                       3.0, 2.4, 1.2, 0.24, 0.12),
    },
    max_search_channels=16,
    no_dup_after_sm80_below=50.0,
    ll128_gpus=(70, 80, 90),  # Volta, Ampere and Hopper, with NVLink inside the node
)  # fmt: skip
RELEASES = {release.version: release for release in (NCCL_2_8_4, NCCL_2_20_3)}


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


def capability_row(release: Release, compute_capability: int) -> int:
    """The row of the release's per-generation tables that a GPU reads."""
    return max(i for i, start in enumerate(release.capability_rows) if compute_capability >= start)


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
    across = system.nodes > 1
    per_channel = min(width, system.nic_GBps) if across else width
    speeds = release.speeds[across, system.compute_capability >= 90]
    speed = next((s for s in speeds if s <= per_channel), speeds[-1])
    channels = math.floor(width / speed)
    if across:
        channels = min(channels, system.nics_per_node * math.floor(system.nic_GBps / speed))
    channels = max(1, min(channels, release.max_search_channels))
    undoubled = (
        system.compute_capability > 80 and speed < release.no_dup_after_sm80_below and channels > 4
    )
    if speed >= 25.0 and not undoubled:  # ncclTopoDupChannels: twice, each at half the speed
        doubled = min(2 * channels, release.max_search_channels)
        speed, channels = speed / math.ceil(doubled / channels), doubled
    return Graph(channels, speed)


def tree_search(system: System, release: Release) -> Graph:
    """The tree's graph: the ring's channels; on two nodes, at the first speed of the list
    that reaches twice the network's and that the GPU's NVLinks still carry on every channel
    (search.cc's second pass raises a tree's intra-node speed so; tuning.cc reads it there)."""
    ring = search(system, release)
    if system.nodes != 2:
        return ring
    width = system.nvlinks * nvlink_width(release, system.compute_capability)
    faster = sorted(release.speeds[True, system.compute_capability >= 90])
    # the tree's own search, on the ring's channels: the list's fastest speed within the
    # ring's (a doubled ring's halved speed need not be on the list), raised from there
    base = max((s for s in faster if s <= ring.speed), default=faster[0])
    carried = [s for s in faster if s >= base and s * ring.channels <= width]
    reaching = [s for s in carried if s >= 2 * base]
    return Graph(ring.channels, reaching[0] if reaching else max(carried, default=base))


def launched_channels(system: System, release: Release) -> int:
    """The channels NCCL launches (comm->nChannels, which the ring's plateau reads): the
    ring graph's doubled, up to twice the search's most (connect.cc's ncclTopoPostset), and
    for sm_90 across nodes doubled again below 16 when the ring's speed is above 45 GB/s."""
    ring = search(system, release)
    channels = min(2 * release.max_search_channels, 2 * ring.channels)
    if system.compute_capability == 90 and system.nodes > 1 and ring.speed > 45 and channels < 16:
        channels *= 2
    return channels


def bus_bandwidth(system: System, release: Release, algorithm: str, protocol: str) -> float:
    """NCCL's bus bandwidth (GB/s) of an algorithm and protocol: the graph's, capped and cut
    by the protocol as tuning.cc's refinements do."""
    graph = (tree_search if algorithm == "tree" else search)(system, release)
    row = capability_row(release, system.compute_capability)
    node_index = min(system.nodes, 3) - 1
    ll_max = release.ll_max_bw[row if system.nodes == 1 else int(system.amd_cpu), node_index]
    bus = graph.bandwidth
    if release.sm80_bus_bw_cap is not None and system.compute_capability == 80:
        bus = min(bus, release.sm80_bus_bw_cap)
    if algorithm == "ring":
        if protocol == "LL":
            return min(ll_max, bus / 4)
        if protocol == "LL128":
            cap = graph.channels * release.ring_ll128_max_bw_per_channel[row, node_index]
            return min(bus * (0.7 if system.ranks / system.nodes < 2 else 0.92), cap)
        return bus
    bus = min(bus * 0.92, graph.channels * release.tree_max_bw_per_channel[row, node_index])
    if protocol == "LL":
        bus = min(bus / 3.8, ll_max)
    elif protocol == "LL128":
        cap = graph.channels * release.tree_ll128_max_bw_per_channel[row, node_index]
        factor = 7 / 9 if system.nodes == 1 else release.tree_ll128_factor_across_nodes
        bus = min(bus * factor, cap)
    if system.ranks == system.nodes:  # one GPU a node: search.cc's TREE pattern
        bus *= release.tree_one_gpu_per_node_factor
    return bus


def step_latency(
    system: System, release: Release, algorithm: str, protocol: str, link: str
) -> float:
    """NCCL's latency (µs) of one step of an algorithm and protocol over `link` ('nvlink'
    inside a node, PCI's with one GPU a node as NCCL rates a graph without NVLink; 'net'
    between nodes). When the run spans nodes, an LL step inside a node costs the release's
    factor more and a ring's at least the CPU's network overhead (three times it for
    Simple)."""
    inside = link == "nvlink"
    hardware = "pci" if inside and system.ranks == system.nodes else link
    latency = release.hardware_latency[hardware][algorithm][PROTOCOLS.index(protocol)]
    if not inside or system.nodes == 1:
        return latency
    if protocol == "LL":
        latency *= release.ll_nvlink_factor_across_nodes
    if algorithm == "ring":
        overhead = release.net_overhead.get("amd" if system.amd_cpu else "intel", 0.0)
        latency = max(latency, overhead * (3 if protocol == "Simple" else 1))
    return latency


def tuning(system: System, release: Release) -> dict[tuple[str, str], tuple[float, float]]:
    """NCCL's (latency µs, algorithm bandwidth GB/s) of each algorithm × protocol of the
    all-reduce on `system` (tuning.cc's ncclTopoTuneModel, ring and tree): a base latency,
    plus one per step (2(N-1) for the ring, of which the release's count cross the network;
    2 per level of the trees); the ring's bus bandwidth times N/(2(N-1)), the tree's times 1/2."""
    nodes, ranks = system.nodes, system.ranks
    steps = 2 * (ranks - 1)
    inter_steps = 2 * (nodes - release.ring_inter_steps_short_of_nodes) if nodes > 1 else 0
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
    if algorithm == "ring" and protocol == "Simple" and system.nodes > 1:
        share = system.ranks
        if release.plateau_per_channel:
            share *= launched_channels(system, release)
        if nbytes / share >= release.plateau_bytes_per_rank:
            latency *= release.ring_simple_plateau[system.compute_capability >= 80]
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
