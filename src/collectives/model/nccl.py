"""NCCL's own cost model of its all-reduce, and the choice it makes from it.

NCCL prices every algorithm (ring, tree) and protocol (LL, LL128, Simple) as a latency plus
bytes over a bandwidth, and runs the cheapest. The constants are those of one release, as
data: releases/nccl.toml holds every modelled release's facts, read at its tag of
github.com/NVIDIA/nccl: src/graph/tuning.cc (base and hardware latencies, bandwidth caps,
the tree's correction, the network overhead), src/graph/topo.h (link widths),
src/graph/search.cc (channel speeds), connect.cc and init.cc (channel counts). NCCL's
inputs come from its topology search, which this module states in a simplified form
(`search`): every channel of a node's graph gets the same speed, the first of search.cc's
speeds that a GPU's NVLink width and, across nodes, one NIC carry; as many channels as the
GPU's width and the node's NICs hold; doubled at half speed when the speed is 25 GB/s or
more (ncclTopoDupChannels, with the release's exceptions). A node of the tables is one
scale-up domain. The network plugin's own latency (the graph's latencyInter) is taken as
0, as InfiniBand's verbs plugin reports it; what the tables leave out (the per-call floor,
a network's latency beyond InfiniBand's) prices NCCL's choice without changing it.
The protocols: LL carries 8 bytes of data in 16 (flags), LL128 120 in 128, Simple all of it,
with a larger latency per step. NVLS (the NVSwitch reduces: one scale-up domain) and
NVLS_TREE (NVLS in each domain, a tree across them) run Simple only, from sm_90 on with an
NVSwitch, over the NVLS graph (`nvls_search`). CollNet (in-network reduction, SHARP) is not
modelled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

ALGORITHMS = ("tree", "ring")  # over every protocol
NVLS_ALGORITHMS = ("nvls", "nvls_tree")  # Simple only
PROTOCOLS = ("LL", "LL128", "Simple")
Table = tuple[tuple[float, ...], ...]  # [capability or CPU row][node index] -> GB/s


@dataclass(frozen=True)
class Release:
    """One library release's tuning constants (µs and GB/s, as tuning.cc writes them).

    Tables indexed by GPU generation use `capability_rows`: a GPU reads the last row whose
    compute capability it reaches. Node indices are one node, two nodes, more. Each field
    is one fact of the release's source; releases/<library>.toml holds them."""

    library: str  # nccl or rccl
    version: str
    source: str  # the tag the facts were read at
    base_latency: dict[str, tuple[float, float, float]]  # algorithm -> per protocol
    hardware_latency: dict[str, dict[str, tuple[float, float, float]]]  # link -> algorithm
    capability_rows: tuple[int, ...]  # the compute capability each row starts at
    ll_max_bw: Table  # one node: capability row; several: CPU row (AMD 1, else 0)
    ring_ll128_max_bw_per_channel: Table
    tree_ll128_max_bw_per_channel: Table
    tree_max_bw_per_channel: Table
    tree_ll128_factor_across_nodes: float
    ring_ll_bus_factor: float  # ring LL's bus bandwidth: the graph's times this (1/4, then 1/2)
    ring_ll128_factor: tuple[float, float]  # ring LL128's: one GPU a node, otherwise
    tree_one_gpu_per_node_factor: float  # a tree of one GPU a node (search.cc's TREE pattern)
    bus_bw_cap: dict[int, float]  # compute capability -> cap of its graph's GB/s (2.8.4)
    ll_nvlink_factor_across_nodes: float  # LL's NVLink step, when the run spans nodes
    ring_inter_steps_short_of_nodes: int  # a ring crosses the network 2(nodes - this) times
    net_overhead: dict[str, float]  # CPU class -> µs a ring step pays across nodes (Simple 3x)
    tree_correction: dict[str, tuple[float, ...]]  # protocol -> factor by log2(bytes/64)
    tree_correction_from_bytes: int  # smaller messages get none (2.22.3 on: below 64 B)
    one_gpu_per_node_net_latency_of: str  # "tree": with one GPU a node every algorithm's
    # network step costs the tree's (2.23.4 on); "": each its own
    ring_simple_plateau: tuple[float, float]  # latency factor across nodes, before/from ...
    ring_simple_plateau_from_capability: int  # ... this compute capability
    plateau_bytes_per_rank: int  # the plateau from this many bytes per rank ...
    plateau_per_channel: bool  # ... and per channel
    nvlink_width: tuple[tuple[int, float], ...]  # (compute capability, GB/s per NVLink),
    # an exact match first, then the first whose capability the GPU reaches
    speeds: tuple[tuple[bool, int, tuple[float, ...]], ...]  # (across nodes, from capability,
    # GB/s): the search's speeds, the list of the highest capability the GPU reaches
    max_search_channels: int
    ll128_gpus: tuple[int, ...]  # compute capabilities LL128 is on for by default
    no_dup: dict[str, float] | None = None  # after_capability, > above_channels channels
    # below below_GBps: ncclTopoDupChannels does not double
    post_double: dict[str, Any] | None = None  # capability (or capability_at_least),
    # above_GBps, below_channels: connect.cc doubles the launched channels again across nodes
    nvls: dict[str, Any] | None = None  # NVLS and NVLS_TREE (2.19 on): nvlink_latency,
    # net_latency (NVLS, NVLS_TREE), min_gpus_per_node, bandwidth ("min_graph": the graph's
    # min(bwIntra, bwInter) x 5/6; "efficiency": bwIntra x efficiency[row] x (C-1)/C x 2,
    # the ring's ratio), efficiency, tree_max_bw_per_channel ([row][node index])


def check_fields(cls: type, library: str, version: str, table: dict[str, Any]) -> None:
    """ValueError naming a field a release's TOML table lacks (of those without a default
    of None) or does not know, as the dataclass `cls` of its library's releases has them."""
    known = {f.name for f in fields(cls)} - {"library", "version"}
    unknown = sorted(set(table) - known)
    missing = sorted(f.name for f in fields(cls) if f.name in known and f.name not in table
                     and f.default is not None)  # fmt: skip
    if unknown or missing:
        what = f"unknown {', '.join(unknown)}" if unknown else f"missing {', '.join(missing)}"
        raise ValueError(f"{library} {version}: {what}")


def frozen(value: Any) -> Any:
    """A TOML value with its lists, nested too, as tuples (a release is immutable)."""
    return tuple(frozen(v) for v in value) if isinstance(value, list) else value


def parse_release(library: str, version: str, table: dict[str, Any]) -> Release:
    """A release from its TOML table (releases/nccl.toml): lists become tuples, capability
    keys numbers; ValueError names a field the table lacks or does not know."""
    check_fields(Release, library, version, table)
    values = {key: frozen(value) for key, value in table.items()}
    values["base_latency"] = {a: frozen(v) for a, v in table["base_latency"].items()}
    values["hardware_latency"] = {
        link: {a: frozen(v) for a, v in by.items()}
        for link, by in table["hardware_latency"].items()
    }
    values["tree_correction"] = {p: frozen(v) for p, v in table["tree_correction"].items()}
    values["bus_bw_cap"] = {int(c): cap for c, cap in table["bus_bw_cap"].items()}
    values["nvlink_width"] = tuple((int(c), float(w)) for c, w in table["nvlink_width"])
    values["speeds"] = tuple(
        (entry["across_nodes"], entry["from_capability"], frozen(entry["GBps"]))
        for entry in table["speeds"]
    )
    return Release(library=library, version=version, **values)


@dataclass(frozen=True)
class System:
    """What NCCL's tuning reads of a system: its ranks and nodes (scale-up domains: a node
    is the GPUs one NVLink domain joins), its GPUs' compute capability and NVLinks, its
    NICs per node and their GB/s, its CPU; and what the system pays that NCCL's tables
    leave out (its network's own latency per step, the per-call floor), which prices the
    choice NCCL makes without changing it."""

    ranks: int
    nodes: int
    compute_capability: int  # 80 for sm_80
    nvlinks: int  # NVLinks per GPU
    nics_per_node: int
    nic_GBps: float
    cpu: str = "intel"  # the CPU class tuning.cc tells apart: intel, amd (x86), other
    net_latency_us: float = 0.0  # a network step's latency beyond NCCL's tables (InfiniBand's)
    call_floor_us: float = 0.0  # what every call pays before any link (enqueue, launch)
    nvswitch: bool = False  # the domain's GPUs meet in NVSwitches (NVLS reduces there)


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


def search_speeds(release: Release, across: bool, capability: int) -> tuple[float, ...]:
    """The search's speeds inside a node or across nodes: the list of the newest generation
    the GPU reaches."""
    lists = [(start, speeds) for far, start, speeds in release.speeds if far == across]
    return max((entry for entry in lists if entry[0] <= capability), key=lambda e: e[0])[1]


def search(system: System, release: Release) -> Graph:
    """The graph of the simplified search: the first speed of the release's list that one
    GPU's NVLinks and, across nodes, one NIC carry; as many channels as both hold."""
    width = system.nvlinks * nvlink_width(release, system.compute_capability)
    across = system.nodes > 1
    per_channel = min(width, system.nic_GBps) if across else width
    speeds = search_speeds(release, across, system.compute_capability)
    speed = next((s for s in speeds if s <= per_channel), speeds[-1])
    channels = math.floor(width / speed)
    if across:
        channels = min(channels, system.nics_per_node * math.floor(system.nic_GBps / speed))
    channels = max(1, min(channels, release.max_search_channels))
    rule = release.no_dup
    undoubled = rule is not None and (
        system.compute_capability > rule["after_capability"]
        and speed < rule["below_GBps"]
        and channels > rule["above_channels"]
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
    faster = sorted(search_speeds(release, True, system.compute_capability))
    # the tree's own search, on the ring's channels: the list's fastest speed within the
    # ring's (a doubled ring's halved speed need not be on the list), raised from there
    base = max((s for s in faster if s <= ring.speed), default=faster[0])
    carried = [s for s in faster if s >= base and s * ring.channels <= width]
    reaching = [s for s in carried if s >= 2 * base]
    return Graph(ring.channels, reaching[0] if reaching else max(carried, default=base))


@dataclass(frozen=True)
class NvlsGraph:
    """The NVLS search's outcome: one channel per head GPU, its speeds inside the domain
    (bwIntra) and towards the network (bwInter)."""

    channels: int
    intra: float
    inter: float


def nvls_search(system: System, release: Release) -> NvlsGraph | None:
    """The NVLS graph, or None where NVLS does not run (no NVSwitch, before sm_90, too few
    GPUs a domain, a release without it). Every GPU of a domain heads a channel (search.cc:
    "NVLS channels correspond to GPUs pulling from NVLS"); a head's NVLinks carry its own
    channel twice and every other once, so the speed is the first of the list with
    (channels + 1) x speed within one GPU's NVLinks and, across domains, within the NICs that
    serve one GPU. The second pass raises bwInter along the list while it stays under twice
    bwIntra and the NICs carry it."""
    rule, per_node = release.nvls, system.ranks // system.nodes
    capability = system.compute_capability
    if rule is None or not system.nvswitch or capability < 90:
        return None
    if per_node < rule["min_gpus_per_node"]:
        return None
    channels = min(per_node, release.max_search_channels)
    width = system.nvlinks * nvlink_width(release, capability)
    across = system.nodes > 1
    head = system.nics_per_node * system.nic_GBps / per_node if across else math.inf
    speeds = search_speeds(release, across, capability)
    fitting = [s for s in speeds if (channels + 1) * s <= width and s <= head]
    if not fitting:
        return None
    intra = inter = fitting[0]
    for faster in sorted(s for s in speeds if s > intra):
        if inter >= 2 * intra or faster > head:
            break
        inter = faster
    return NvlsGraph(channels, intra, inter)


def nvls_tuning(system: System, release: Release, algorithm: str) -> tuple[float, float] | None:
    """NCCL's (latency µs, algorithm bandwidth GB/s) of NVLS (one domain) or NVLS_TREE
    (across domains), or None where it does not run: the graph's channels x the bandwidth
    its rule gives a channel; the latency NVLink's step, plus across domains 2 log2(nodes)
    network steps (the system's own network latency included)."""
    graph, rule = nvls_search(system, release), release.nvls
    tree = algorithm == "nvls_tree"
    if graph is None or tree != (system.nodes > 1):
        return None
    row, node_index = capability_row(release, system.compute_capability), min(system.nodes, 3) - 1
    steps = 2 * (system.ranks - 1)
    if rule["bandwidth"] == "efficiency":
        if graph.channels < 2:
            return None
        intra = graph.intra * rule["efficiency"][row] * (graph.channels - 1) / graph.channels * 2
        inter = graph.inter * (2 if tree and system.nodes <= 2 else 1)
        caps = [intra, inter] + ([rule["tree_max_bw_per_channel"][row][node_index]] if tree else [])
        ratio = system.ranks / steps
    else:
        caps = [graph.intra, graph.inter if system.nodes <= 2 else graph.inter / 2]
        ratio = 5 / 6
    bus = graph.channels * min(caps)
    if bus <= 0:
        return None
    latency = rule["nvlink_latency"]
    if tree:
        net = rule["net_latency"][1] + system.net_latency_us
        latency += 2 * (system.nodes.bit_length() - 1) * net
    return latency, bus * ratio


def launched_channels(system: System, release: Release) -> int:
    """The channels NCCL launches (comm->nChannels, which the ring's plateau reads): the
    ring graph's doubled, up to twice the search's most (connect.cc's ncclTopoPostset), and
    where the release says so (post_double: 2.20.3's sm_90 across nodes, a ring faster than
    45 GB/s, fewer than 16 channels) doubled again."""
    ring = search(system, release)
    channels = min(2 * release.max_search_channels, 2 * ring.channels)
    rule = release.post_double
    capability = system.compute_capability
    if (
        rule is not None
        and (
            capability >= rule["capability"]
            if rule["capability_at_least"]
            else capability == rule["capability"]
        )
        and system.nodes > 1
        and ring.speed > rule["above_GBps"]
        and channels < rule["below_channels"]
    ):
        channels *= 2
    return channels


def bus_bandwidth(system: System, release: Release, algorithm: str, protocol: str) -> float:
    """NCCL's bus bandwidth (GB/s) of an algorithm and protocol: the graph's, capped and cut
    by the protocol as tuning.cc's refinements do."""
    graph = (tree_search if algorithm == "tree" else search)(system, release)
    row = capability_row(release, system.compute_capability)
    node_index = min(system.nodes, 3) - 1
    ll_max = release.ll_max_bw[row if system.nodes == 1 else int(system.cpu == "amd")][node_index]
    bus = graph.bandwidth
    if system.compute_capability in release.bus_bw_cap:
        bus = min(bus, release.bus_bw_cap[system.compute_capability])
    if algorithm == "ring":
        if protocol == "LL":
            return min(ll_max, bus * release.ring_ll_bus_factor)
        if protocol == "LL128":
            cap = graph.channels * release.ring_ll128_max_bw_per_channel[row][node_index]
            factor = release.ring_ll128_factor[0 if system.ranks / system.nodes < 2 else 1]
            return min(bus * factor, cap)
        return bus
    bus = min(bus * 0.92, graph.channels * release.tree_max_bw_per_channel[row][node_index])
    if protocol == "LL":
        bus = min(bus / 3.8, ll_max)
    elif protocol == "LL128":
        cap = graph.channels * release.tree_ll128_max_bw_per_channel[row][node_index]
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
    between nodes, plus the system's network latency beyond NCCL's tables). When the run
    spans nodes, an LL step inside a node costs the release's factor more and a ring's at
    least the CPU's network overhead (three times it for Simple)."""
    inside = link == "nvlink"
    alone = system.ranks == system.nodes  # one GPU a node
    hardware = "pci" if inside and alone else link
    if not inside and alone and release.one_gpu_per_node_net_latency_of:
        algorithm = release.one_gpu_per_node_net_latency_of
    latency = release.hardware_latency[hardware][algorithm][PROTOCOLS.index(protocol)]
    if not inside:
        return latency + system.net_latency_us
    if system.nodes == 1:
        return latency
    if protocol == "LL":
        latency *= release.ll_nvlink_factor_across_nodes
    if algorithm == "ring":
        overhead = release.net_overhead.get(system.cpu, 0.0)
        latency = max(latency, overhead * (3 if protocol == "Simple" else 1))
    return latency


def tuning(system: System, release: Release) -> dict[tuple[str, str], tuple[float, float]]:
    """NCCL's (latency µs, algorithm bandwidth GB/s) of each algorithm × protocol of the
    all-reduce on `system` (tuning.cc's ncclTopoTuneModel; NVLS's where it runs): a base latency,
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
    for algorithm in NVLS_ALGORITHMS:
        priced = nvls_tuning(system, release, algorithm)
        if priced is not None:
            tuned[algorithm, "Simple"] = priced
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
    corrected = nbytes >= release.tree_correction_from_bytes
    if algorithm == "tree" and corrected and log_size < len(corrections):
        bandwidth *= corrections[log_size]
    if algorithm == "ring" and protocol == "Simple" and system.nodes > 1:
        share = system.ranks
        if release.plateau_per_channel:
            share *= launched_channels(system, release)
        if nbytes / share >= release.plateau_bytes_per_rank:
            from_capability = (
                system.compute_capability >= release.ring_simple_plateau_from_capability
            )
            latency *= release.ring_simple_plateau[from_capability]
    return (latency + nbytes / (1000 * bandwidth)) * 1e-6


def seen_by_nccl(system: System) -> System:
    """The system as NCCL's own tables see it: without what they leave out."""
    return replace(system, net_latency_us=0.0, call_floor_us=0.0)
