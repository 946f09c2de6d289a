"""GPU systems against NCCL's clock: each shipped nccl-tests log beside what the model says.

A GPU system of the config is its node facts (GPUs per node, NVLink and NVSwitch, NICs and
which GPUs each serves), its node count, its NCCL version and its nccl-tests log. Its
topology is a Topology of nodes of GPUs with rail NICs; its links are the config's
link-level fabrics (`intra_fabric` inside a node, `inter_fabric` between nodes). Every
algorithm that runs there (one on nodes with the system's GPUs per node as its node size;
one- and two-shot up to 8 GPUs) is replayed from its dry trace on that fabric, and the cheapest is
set beside NCCL's measured time at every size of the log (out of place, as nccl-tests
reports first). That is the link-level α-β rung: what a fabric of link latencies and
bandwidths predicts for GPUs, before any of NCCL's own costs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .. import registry
from ..model.fabric import Fabric
from ..model.replay import replay
from ..run.record import bus_bandwidth
from ..transport.dry import dry_trace
from .nccl_tests import ITEMSIZE, read_nccl_tests
from .validation import within_factor

LINK_RUNG = "link_alpha_beta"  # the rung of this module: link-level α-β, replayed


def gpu_fabric(name: str, entry: Mapping[str, Any], fabrics: Mapping[str, Fabric]) -> Fabric:
    """The system as a two-level fabric: its nodes of GPUs, its NICs as rails, the link
    classes of the link-level fabrics it names."""
    intra, inter = fabrics[entry["intra_fabric"]], fabrics[entry["inter_fabric"]]
    return Fabric(
        name,
        "structured",
        inter.link,
        description=f"{entry['nodes']} x {entry['gpus_per_node']} {entry['gpu']}",
        ranks_per_node=entry["gpus_per_node"],
        nic_per_node=entry["nics_per_node"],
        intra=intra.link,
        rails=entry["gpus_per_node"] % entry["nics_per_node"] == 0,
    )


def gpu_against_clock(
    systems: Mapping[str, Mapping[str, Any]],
    fabrics: Mapping[str, Fabric],
    algorithms: list[str],
    base: Path,
) -> pd.DataFrame:
    """Per system and message size: NCCL's measured time and busbw, and the cheapest of
    `algorithms` (registry names; one on nodes takes the system's GPUs per node) replayed on
    the system's link-level fabric, its time and busbw."""
    rows = []
    for name, entry in systems.items():
        log = read_nccl_tests(base / entry["log"])
        fabric = gpu_fabric(name, entry, fabrics)
        ranks = entry["nodes"] * entry["gpus_per_node"]
        priced = {}
        for algorithm in algorithms:
            try:
                parameters = registry.get(algorithm).on_nodes(ranks, entry["gpus_per_node"])
            except ValueError:
                continue
            priced[registry.variant_name(algorithm, parameters)] = (algorithm, parameters)
        for row in log.rows.itertuples():
            itemsize = ITEMSIZE[row.type]
            elements = max(1, row.bytes // itemsize)
            times = {
                name: _replayed(algorithm, parameters, ranks, elements, itemsize, fabric)
                for name, (algorithm, parameters) in priced.items()
            }
            cheapest = min(times, key=times.__getitem__)
            rows.append(
                {
                    "system": name, "ranks": ranks, "nodes": entry["nodes"],
                    "message_bytes": row.bytes, "measured_s": row.out_of_place_s,
                    "measured_busbw_GBps": row.out_of_place_busbw_GBps,
                    "cheapest_algorithm": cheapest, f"{LINK_RUNG}_s": times[cheapest],
                }
            )  # fmt: skip
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    algbw = table.message_bytes / table[f"{LINK_RUNG}_s"] / 1e9
    table[f"{LINK_RUNG}_busbw_GBps"] = bus_bandwidth(algbw, table.ranks)
    table["rel_error"] = table[f"{LINK_RUNG}_s"] / table.measured_s - 1
    return table


def _replayed(
    algorithm: str,
    parameters: dict[str, int],
    ranks: int,
    elements: int,
    itemsize: int,
    fabric: Fabric,
) -> float:
    """The replayed time of one algorithm's dry trace with its parameters."""
    allreduce = registry.get(algorithm).bind(**parameters)
    return replay(dry_trace(allreduce, ranks, elements, itemsize), fabric)


def gpu_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per system: the median and 90th-percentile |relative error|, the share within 2x,
    and the large-message busbw plateau (the largest size) measured and predicted."""
    if table.empty:
        return table
    rows = []
    for system, group in table.groupby("system", sort=False):
        error = group.rel_error.abs()
        largest = group.loc[group.message_bytes.idxmax()]
        rows.append(
            {
                "system": system, "model": LINK_RUNG, "points": len(group),
                "median_abs_rel_error": float(error.median()),
                "p90_abs_rel_error": float(error.quantile(0.9)),
                "within_2x": float(within_factor(group.rel_error, 2).mean()),
                "median_predicted_over_measured": float(1 + group.rel_error.median()),
                "plateau_measured_busbw_GBps": float(largest.measured_busbw_GBps),
                "plateau_predicted_busbw_GBps": float(largest[f"{LINK_RUNG}_busbw_GBps"]),
            }
        )  # fmt: skip
    return pd.DataFrame(rows)
