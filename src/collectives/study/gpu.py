"""GPU systems against NCCL's clock: each shipped nccl-tests log beside what the models say.

A GPU system of the config is its node facts (GPUs per node, NVLink and NVSwitch, NICs and
which GPUs each serves), its node count, its NCCL version and its nccl-tests log. Three
rungs predict every size of the log (out of place, as nccl-tests reports first):

* `link_alpha_beta`: every algorithm that runs there (one on nodes with the system's GPUs
  per node as its node size; one- and two-shot up to 8 GPUs) replayed from its dry trace on
  the config's link-level fabrics (`intra_fabric`, `inter_fabric`, NICs as rails), the
  cheapest one: what link latencies and bandwidths predict, before any of NCCL's own costs.
* `nccl_model`: NCCL's own model of its release (collectives.model.nccl), its choice of
  algorithm and protocol and that one's time.
* `nccl_replay`: NCCL's choice replayed from our traces of its algorithm (`nccl_ring` on one
  channel carrying all of NCCL's, `double_binary_tree` on the system's nodes) with NCCL's
  costs: each step its hardware latency over NVLink or the network, each byte at the
  protocol's bus bandwidth, plus the base latency once. A step's latency is NCCL's
  synchronisation, which overlaps the bytes of the chunks behind it: a message holds its
  ports for its bytes alone (the replay's pipelined mode). NVLS and NVLS_TREE reduce in the
  switch, which no trace of ours holds: where NCCL picks them, this rung is the model's.

The NCCL rungs price the release modelled for the system's (collectives.study.systems: the
nearest modelled release of the same library where its own is not, said so in the
`release_modelled` column), plus what NCCL's tables leave out: the per-call floor of the
GPU's generation once, and the network's latency per step beyond InfiniBand's. A library
without a modelled release (RCCL, today) is refused by the config check, never priced with
another vendor's model.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
from numpy import nan

from .. import registry
from ..model import libraries, nccl
from ..model.fabric import Fabric, LinkClass
from ..model.replay import replay
from ..run.record import bus_bandwidth
from ..transport.trace import ClassTrace, Trace
from .nccl_tests import ITEMSIZE, read_nccl_tests
from .systems import domain_gpus, domain_nics, modelled_release, nccl_system
from .validation import within_factor

LINK_RUNG = "link_alpha_beta"  # link-level α-β, replayed
NCCL_RUNG = "nccl_model"  # NCCL's own model of its release
REPLAY_RUNG = "nccl_replay"  # NCCL's choice, replayed from our traces with NCCL's costs
RUNGS = (LINK_RUNG, NCCL_RUNG, REPLAY_RUNG)
# dry traces by (algorithm, parameters, ranks, elements, itemsize, ranks per node)
Traces = dict[tuple, Trace | ClassTrace]
NCCL_TRACES = {"ring": ("nccl_ring", {"channels": 1}), "tree": ("double_binary_tree", {})}


def gpu_fabric(name: str, entry: Mapping[str, Any], fabrics: Mapping[str, Fabric]) -> Fabric:
    """The system as a two-level fabric: its scale-up domains of GPUs, with the NICs of the
    nodes a domain spans (as rails where each serves whole GPUs), the link classes of the
    link-level fabrics it names."""
    intra, inter = fabrics[entry["intra_fabric"]], fabrics[entry["inter_fabric"]]
    return Fabric.on_nodes(
        name, intra.link, inter.link, domain_gpus(entry), domain_nics(entry),
        rails=float(entry["scale_out"]["gpus_per_nic"]).is_integer(),
        description=f"{entry['nodes']} x {entry['gpus_per_node']} {entry['accelerator']['model']}",
    )  # fmt: skip


def gpu_against_clock(
    systems: Mapping[str, Mapping[str, Any]],
    fabrics: Mapping[str, Fabric],
    algorithms: list[str],
    base: Path,
) -> pd.DataFrame:
    """Per system and message size: NCCL's measured time and busbw, and each rung's time,
    busbw and relative error (NaN where a rung is not available for the system)."""
    rows = []
    for name, entry in systems.items():
        log = read_nccl_tests(base / entry["log"])
        ranks = entry["nodes"] * entry["gpus_per_node"]
        release = modelled_release(entry)
        chosen = libraries.choice(nccl_system(entry), release, list(log.rows.bytes))
        resolved = entry["resolved"]
        print(
            f"{name}: {entry['library']['name'].upper()} {release.version}"
            + (f" ({resolved['release_note']})" if resolved["release_note"] else ""),
            file=sys.stderr,
        )  # the job's log says which release priced it
        for index, row in enumerate(log.rows.itertuples()):
            algorithm, protocol, _ = chosen[index]
            variant, predicted = rungs_at(
                name, entry, fabrics, algorithms, row.bytes, ITEMSIZE[row.type], chosen[index]
            )
            rows.append(
                {
                    "system": name, "ranks": ranks, "nodes": entry["nodes"],
                    "message_bytes": row.bytes, "measured_s": row.out_of_place_s,
                    "measured_busbw_GBps": row.out_of_place_busbw_GBps,
                    "cheapest_algorithm": variant, "nccl_choice": f"{algorithm}/{protocol}",
                    "library": entry["library"]["name"],
                    "release": resolved["release"], "release_modelled": release.version,
                    "release_note": resolved["release_note"],
                    **{f"{rung}_s": value for rung, value in predicted.items()},
                }
            )  # fmt: skip
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    for rung in RUNGS:
        algbw = table.message_bytes / table[f"{rung}_s"] / 1e9
        table[f"{rung}_busbw_GBps"] = bus_bandwidth(algbw, table.ranks)
        table[f"{rung}_rel_error"] = table[f"{rung}_s"] / table.measured_s - 1
    return table


def rungs_at(
    name: str,
    entry: Mapping[str, Any],
    fabrics: Mapping[str, Fabric],
    algorithms: list[str],
    nbytes: int,
    itemsize: int,
    chosen: tuple[str, str, float],
) -> tuple[str, dict[str, float]]:
    """One size's cheapest of `algorithms` on the links, and each rung's time there;
    `chosen` is NCCL's (algorithm, protocol, time) at that size, whose replay takes the
    trace the links priced."""
    traces: Traces = {}
    ((variant, link_time),) = cheapest_on_links(
        name, entry, fabrics, algorithms, [(nbytes, itemsize)], traces
    )
    algorithm, protocol, nccl_time = chosen
    replayed = nccl_time
    if algorithm in NCCL_TRACES:
        replayed = nccl_replayed(
            nccl_system(entry), modelled_release(entry), domain_gpus(entry), algorithm,
            protocol, max(1, nbytes // itemsize), itemsize, traces,
        )  # fmt: skip
    return variant, {LINK_RUNG: link_time, NCCL_RUNG: nccl_time, REPLAY_RUNG: replayed}


def cheapest_on_links(
    name: str,
    entry: Mapping[str, Any],
    fabrics: Mapping[str, Fabric],
    algorithms: list[str],
    sizes: list[tuple[int, int]],
    traces: Traces | None = None,
) -> list[tuple[str, float]]:
    """For each size (bytes, bytes per element): the cheapest of `algorithms` that runs on
    the system (on its nodes where an algorithm needs them) replayed on its link-level
    fabrics, and its time; the dry traces kept in `traces` where given (one size's)."""
    fabric = gpu_fabric(name, entry, fabrics)
    ranks, per_node = entry["nodes"] * entry["gpus_per_node"], domain_gpus(entry)
    priced = {}
    for algorithm in algorithms:
        try:
            parameters = registry.get(algorithm).on_nodes(ranks, per_node)
        except ValueError:
            continue
        priced[registry.variant_name(algorithm, parameters)] = (algorithm, parameters)
    cheapest = []
    for nbytes, itemsize in sizes:
        elements = max(1, nbytes // itemsize)
        times = {
            variant: _replayed(algorithm, parameters, ranks, elements, itemsize, fabric, traces)
            for variant, (algorithm, parameters) in priced.items()
        }
        variant = min(times, key=times.__getitem__)
        cheapest.append((variant, times[variant]))
    return cheapest


def nccl_choice_map(
    name: str,
    entry: Mapping[str, Any],
    fabrics: Mapping[str, Fabric],
    algorithms: list[str],
    nodes: list[int],
    sizes: list[int],
) -> pd.DataFrame:
    """Over node counts and message sizes (float32) of one system's nodes: NCCL's choice of
    algorithm and protocol by its own model of the release modelled for the system and that
    one's time, beside our cheapest algorithm on the link-level fabrics and its time."""
    release = modelled_release(entry)
    rows = []
    for count in nodes:
        scaled = {**entry, "nodes": count}
        ranks = count * entry["gpus_per_node"]
        if ranks < 2:
            continue
        floats = [(nbytes, ITEMSIZE["float"]) for nbytes in sizes]
        ours = cheapest_on_links(name, scaled, fabrics, algorithms, floats)
        theirs = libraries.choice(nccl_system(scaled), release, sizes)
        for index, nbytes in enumerate(sizes):
            algorithm, protocol, seconds = theirs[index]
            rows.append(
                {
                    "system": name, "nodes": count, "ranks": ranks, "message_bytes": nbytes,
                    "nccl_choice": f"{algorithm}/{protocol}",
                    "nccl_model_s": seconds, "cheapest_algorithm": ours[index][0],
                    "cheapest_s": ours[index][1],
                }
            )  # fmt: skip
    return pd.DataFrame(rows, columns=CHOICE_MAP_COLUMNS)


CHOICE_MAP_COLUMNS = ["system", "nodes", "ranks", "message_bytes", "nccl_choice",
                      "nccl_model_s", "cheapest_algorithm", "cheapest_s"]  # fmt: skip


def nccl_fabric(
    system: nccl.System, release: nccl.Release, per_node: int, algorithm: str, protocol: str
) -> Fabric:
    """The system as NCCL's costs see one algorithm and protocol: a step's hardware latency
    over NVLink inside a node and over the network between nodes, each byte at the
    protocol's bus bandwidth there (a node's alone inside it; the whole system's across),
    the ports held for the bytes alone."""
    node = replace(system, ranks=per_node, nodes=1)

    def link(where: nccl.System, kind: str) -> LinkClass:
        latency = (
            libraries.cost_model(release).step_latency(system, release, algorithm, protocol, kind)
            * 1e-6
        )
        bandwidth = (
            libraries.cost_model(release).bus_bandwidth(where, release, algorithm, protocol) * 1e9
        )
        return LinkClass(latency, 1 / bandwidth, occupancy=(0.0, 1 / bandwidth))

    return Fabric.on_nodes(
        f"nccl-{algorithm}-{protocol}", link(node, "nvlink"), link(system, "net"), per_node
    )


def nccl_replayed(
    system: nccl.System,
    release: nccl.Release,
    per_node: int,
    algorithm: str,
    protocol: str,
    elements: int,
    itemsize: int,
    traces: Traces | None = None,
) -> float:
    """NCCL's base latency and the per-call floor, plus the replay of our trace of its
    algorithm on nccl_fabric (the trace taken from `traces` where another rung made it)."""
    name, given = NCCL_TRACES[algorithm]
    entry = registry.get(name)
    parameters = entry.resolve({**entry.on_nodes(system.ranks, per_node), **given}, system.ranks)
    base = (release.base_latency[algorithm][nccl.PROTOCOLS.index(protocol)]
            + system.call_floor_us) * 1e-6  # fmt: skip
    fabric = nccl_fabric(system, release, per_node, algorithm, protocol)
    return base + _replayed(
        name, parameters, system.ranks, elements, itemsize, fabric, traces, pipelined=True
    )


def _replayed(
    algorithm: str,
    parameters: dict[str, int],
    ranks: int,
    elements: int,
    itemsize: int,
    fabric: Fabric,
    traces: Traces | None = None,
    pipelined: bool = False,
) -> float:
    """The replayed time of one algorithm's dry trace with its parameters (by classes of
    ranks where it is symmetric); the trace made once per `traces` (a tree's at 16 GiB is a
    million messages)."""
    per_node = fabric.topology.ranks_per_node
    key = (algorithm, tuple(sorted(parameters.items())), ranks, elements, itemsize, per_node)
    trace = traces.get(key) if traces is not None else None
    if trace is None:
        entry = registry.get(algorithm)
        trace = entry.trace(ranks, elements, itemsize, parameters, fabric.topology)
        if traces is not None:
            traces[key] = trace
    return replay(trace, fabric, pipelined=pipelined)


def gpu_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per system and rung: the median and 90th-percentile |relative error|, the share
    within 2x, and the large-message busbw plateau (the largest size) measured and
    predicted, each beside its target (TARGETS); the release modelled for the system's."""
    if table.empty:
        return table
    rows = []
    for system, group in table.groupby("system", sort=False):
        largest = group.loc[group.message_bytes.idxmax()]
        first = group.iloc[0]
        for rung in RUNGS:
            error = group[f"{rung}_rel_error"].dropna()
            plateau = largest[f"{rung}_busbw_GBps"] / largest.measured_busbw_GBps - 1
            median, within = float(error.abs().median()), float(within_factor(error, 2).mean())
            rows.append(
                {
                    "system": system, "model": rung, "points": len(error),
                    "library": first.library, "release": first.release,
                    "release_modelled": first.release_modelled,
                    "release_note": first.release_note,
                    "median_abs_rel_error": median,
                    "p90_abs_rel_error": float(error.abs().quantile(0.9)),
                    "within_2x": within,
                    "median_predicted_over_measured": float(1 + error.median()),
                    "plateau_measured_busbw_GBps": float(largest.measured_busbw_GBps),
                    "plateau_predicted_busbw_GBps": float(largest[f"{rung}_busbw_GBps"]),
                    "plateau_rel_error": float(plateau),
                    "meets_targets": bool(
                        median <= TARGETS["median_abs_rel_error"]
                        and within >= TARGETS["within_2x"]
                        and abs(plateau) <= TARGETS["plateau_abs_rel_error"]
                    ),
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


# What a model of a GPU system is asked: its median |error| over the log's sizes, the share
# of sizes within 2x, and its busbw at the largest size against the measured one.
TARGETS = {"median_abs_rel_error": 0.25, "within_2x": 0.9, "plateau_abs_rel_error": 0.15}


def busbw_meaning(table: pd.DataFrame, systems: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """What each system's largest-size busbw means: its time and algbw, and the share of
    the links it keeps busy under the algorithm assumed. nccl-tests' busbw is algbw ×
    2(N-1)/N, the rate every GPU's link carries under a ring; across nodes, a ring drives
    the node's NICs at busbw too, where a hierarchical all-reduce (or NCCL's tree) sends a
    node's whole vector 2(nodes-1)/nodes times, algbw × 2(nodes-1)/nodes. A share above 1
    says the run cannot have been that algorithm."""
    rows = []
    for system, group in table.groupby("system", sort=False):
        largest = group.loc[group.message_bytes.idxmax()]
        entry = systems[system]
        nodes, busbw = entry["nodes"], largest.measured_busbw_GBps
        algbw = largest.message_bytes / largest.measured_s / 1e9
        out, scale_up = entry["scale_out"], entry["scale_up"]
        nics = out["nics"] * out["Gbps"] / 8 if nodes > 1 else nan
        rows.append(
            {
                "system": system, "ranks": largest.ranks, "nodes": nodes,
                "message_bytes": largest.message_bytes, "measured_s": largest.measured_s,
                "algbw_GBps": algbw, "busbw_GBps": busbw,
                "nvlink_GBps": scale_up["GBps"], "nics_GBps_per_node": nics,
                "ring_nvlink_share": busbw / scale_up["GBps"],
                "ring_nic_share": busbw / nics,
                "hierarchical_nic_share": algbw * 2 * (nodes - 1) / nodes / nics,
            }
        )  # fmt: skip
    return pd.DataFrame(rows)
