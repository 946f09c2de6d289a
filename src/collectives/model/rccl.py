"""RCCL's own cost model of its all-reduce on AMD GPUs, and the choice it makes from it.

RCCL is NCCL's port to AMD's GPUs and keeps its shape: every algorithm (ring, tree) and
protocol is priced as a latency plus bytes over a bandwidth, and the cheapest runs. Its
constants differ, and are of one release, as data: releases/rccl.toml, read at the
release's tag of github.com/ROCm/rccl: src/graph/tuning.cc (the base latencies and the
tuning models: per-link hardware latencies, a bandwidth ratio per algorithm and protocol,
the tree's and, across nodes, the ring's correction by message size; the network
overhead), src/graph/topo.h (the xGMI width), src/graph/rome_models.cc (which tuning model
a node's shape reads). A node that matches one of rome_models.cc's shapes gets that model's
rings, every channel at the GPU's total xGMI bandwidth over the channel count, so the bus
bandwidth is the GPU's xGMI links × their width, inside a node and across; the tree reads
the same graph. What RCCL adds on AMD's GPUs is read from the release: LL128 is off (it is
on by default only on gfx90a builds with ENABLE_LL128), tree/Simple is not run on gfx94x
GPUs that are all in one node, and there is no plateau factor. MSCCL and MSCCL++ (the
small-message kernels RCCL runs on gfx94x) are not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .nccl import PROTOCOLS, System, check_fields, frozen

ALGORITHMS = ("tree", "ring")
Triple = tuple[float, float, float]  # per protocol: LL, LL128, Simple


@dataclass(frozen=True)
class TuningModel:
    """One of tuning.cc's rcclTuningModel entries: what a step costs per link and
    algorithm, the share of the graph's bandwidth each algorithm and protocol reaches
    (bwRatio; two nodes or fewer, more), and the size-indexed bandwidth corrections."""

    hardware_latency: dict[str, dict[str, Triple]]  # xgmi, pci, net -> algorithm -> µs
    bandwidth_ratio: dict[str, dict[str, Triple]]  # up_to_two_nodes, more_nodes -> algorithm
    tree_correction: dict[str, tuple[float, ...]]  # protocol -> factor by log2(bytes/64)
    ring_correction: dict[str, tuple[float, ...]]  # the same, for a ring across nodes


@dataclass(frozen=True)
class Release:
    """One RCCL release's tuning facts (µs and GB/s, as tuning.cc writes them). GPU
    generations are gfx numbers (gfx90a is 910); each field is one fact of the source."""

    library: str  # rccl
    version: str
    source: str  # the tag or commit the facts were read at
    base_latency: dict[str, Triple]  # algorithm -> per protocol
    capability_rows: tuple[int, ...]  # the generations the release's tables were read for
    xgmi_width: tuple[tuple[int, float], ...]  # (from gfx number, GB/s of one xGMI link)
    tuning_models: tuple[TuningModel, ...]  # by index (topo->tuning)
    node_models: tuple[dict[str, int], ...]  # rome_models.cc's shapes: from/to gfx number,
    # gpus and xGMI links a GPU, and the tuning model they read; any other node reads 0
    net_overhead: dict[str, float]  # CPU class -> µs a ring step pays across nodes (Simple 3x)
    tree_simple_off_one_node: tuple[int, int]  # gfx numbers where tree/Simple is not run
    # when every rank is in one node
    ll128_generations: tuple[int, ...]  # gfx numbers with LL128 on by default (none shipped)


def parse_release(library: str, version: str, table: dict[str, Any]) -> Release:
    """A release from its TOML table (releases/rccl.toml); ValueError names a field the
    table lacks or does not know."""
    check_fields(Release, library, version, table)

    def by_algorithm(rows: dict[str, dict[str, list]]) -> dict[str, dict[str, Triple]]:
        return {key: {a: frozen(v) for a, v in by.items()} for key, by in rows.items()}

    models = []
    for index, model in enumerate(table["tuning_models"]):
        check_fields(TuningModel, library, f"{version} tuning model {index}", model)
        models.append(
            TuningModel(
                hardware_latency=by_algorithm(model["hardware_latency"]),
                bandwidth_ratio=by_algorithm(model["bandwidth_ratio"]),
                tree_correction={p: frozen(v) for p, v in model["tree_correction"].items()},
                ring_correction={p: frozen(v) for p, v in model["ring_correction"].items()},
            )
        )
    values = {key: frozen(value) for key, value in table.items()}
    values["base_latency"] = {a: frozen(v) for a, v in table["base_latency"].items()}
    values["xgmi_width"] = tuple((int(g), float(w)) for g, w in table["xgmi_width"])
    values["tuning_models"] = tuple(models)
    values["node_models"] = tuple(dict(shape) for shape in table["node_models"])
    return Release(library=library, version=version, **values)


def tuning_model(system: System, release: Release) -> TuningModel:
    """The tuning model a node reads: that of the rome model of its generation, GPUs and
    xGMI links, else the default (model 0)."""
    per_node = system.ranks // system.nodes
    for shape in release.node_models:
        if (
            shape["from"] <= system.compute_capability <= shape["to"]
            and shape["gpus"] == per_node
            and shape["links"] == system.nvlinks
        ):
            return release.tuning_models[shape["model"]]
    return release.tuning_models[0]


def xgmi_bandwidth(system: System, release: Release) -> float:
    """GB/s of one GPU's xGMI links together (search.cc's totalBw): links × the width
    topo.h gives the generation."""
    width = [w for start, w in release.xgmi_width if system.compute_capability >= start][-1]
    return system.nvlinks * width


def bus_bandwidth(system: System, release: Release, algorithm: str, protocol: str) -> float:
    """RCCL's bus bandwidth (GB/s): the graph's (the GPU's xGMI total) times the tuning
    model's ratio for the algorithm and protocol, at two nodes or fewer or at more."""
    ratios = tuning_model(system, release).bandwidth_ratio
    ratio = ratios["up_to_two_nodes" if system.nodes <= 2 else "more_nodes"][algorithm]
    return xgmi_bandwidth(system, release) * ratio[PROTOCOLS.index(protocol)]


def step_latency(
    system: System, release: Release, algorithm: str, protocol: str, link: str
) -> float:
    """RCCL's latency (µs) of one step over `link` ('nvlink': the node's xGMI; 'net': the
    network, plus the system's latency beyond the tables): the tuning model's; a ring's
    step inside a node that spans nodes costs at least the CPU's network overhead (three
    times it for Simple)."""
    model = tuning_model(system, release)
    index = PROTOCOLS.index(protocol)
    if link != "nvlink":
        return model.hardware_latency["net"][algorithm][index] + system.net_latency_us
    latency = model.hardware_latency["xgmi"][algorithm][index]
    if algorithm == "ring" and system.nodes > 1:
        overhead = release.net_overhead.get(system.cpu, release.net_overhead["other"])
        latency = max(latency, overhead * (3 if protocol == "Simple" else 1))
    return latency


def runs(system: System, release: Release, algorithm: str, protocol: str) -> bool:
    """Whether RCCL runs an algorithm and protocol on the system at all."""
    capability = system.compute_capability
    if protocol == "LL128" and capability not in release.ll128_generations:
        return False
    low, high = release.tree_simple_off_one_node
    one_node = system.nodes == 1
    if algorithm == "tree" and protocol == "Simple" and one_node and low <= capability <= high:
        return False
    return bus_bandwidth(system, release, algorithm, protocol) > 0


def tuning(system: System, release: Release) -> dict[tuple[str, str], tuple[float, float]]:
    """RCCL's (latency µs, algorithm bandwidth GB/s) of each algorithm × protocol it runs
    (ncclTopoTuneModel): a base latency, plus 2(N-1) ring steps of which 2 per node cross
    the network, or 2 per level of the trees; the ring's bus bandwidth times N/(2(N-1)),
    the tree's times 1/2."""
    nodes, ranks = system.nodes, system.ranks
    steps = 2 * (ranks - 1)
    inter_steps = 2 * nodes if nodes > 1 else 0
    tuned = {}
    for algorithm in ALGORITHMS:
        for protocol in PROTOCOLS:
            if not runs(system, release, algorithm, protocol):
                continue
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
    """RCCL's predicted seconds for one all-reduce (ncclTopoGetAlgoTime): the tree's
    bandwidth, and across nodes the ring's, corrected by the size's factor (log2 of the
    size in 64-byte units, the last factor from 4 GiB on)."""
    latency, bandwidth = tuned[algorithm, protocol]
    model = tuning_model(system, release)
    log_size = max(0, (nbytes >> 6).bit_length() - 1)
    if algorithm == "tree" or system.nodes > 1:
        factors = (model.tree_correction if algorithm == "tree" else model.ring_correction)[
            protocol
        ]
        bandwidth *= factors[min(log_size, len(factors) - 1)]
    return (latency + nbytes / (1000 * bandwidth)) * 1e-6
