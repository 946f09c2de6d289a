"""What scale changes: the cheapest all-reduce and a library's pick by N up to training scale.

Two sides, each priced in closed form so that N reaches 131,072 in milliseconds:

* `cluster`: a CPU cluster's network as a flat α-β fabric (its fitted α and β, one rank per
  node), every algorithm of the registry that runs there by its exact counts
  (registry.predict: rounds·α + bytes_critical·β), beside the MPI library's decision rule
  (model.library_rules) priced the same way. The latency-bound ends: ring's 2(N−1)·α
  against recursive doubling's log₂N·α.
* `gpu`: a GPU system of the config grown to N GPUs (its nodes, NICs and release as
  configured), NCCL's (or RCCL's) pick by the release's own tables beside the cheapest
  of the release's algorithms once the network's latency and the per-call floor it leaves
  out are counted (model.libraries). The latency-bound ends: its ring's latency against its
  tree's, each at its lightest protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .. import registry
from ..model import libraries
from ..model.cost import closed_form
from ..model.library_rules import library_choice
from .systems import fills_domains, modelled_release, nccl_system
from .workloads import Workload

ITEMSIZE = 4  # float32, as nccl-tests reports
COLUMNS = ["side", "where", "ranks", "message_bytes", "messages", "cheapest", "cheapest_s",
           "pick", "pick_s", "ring_latency_s", "tree_latency_s"]  # fmt: skip
DEFAULT_RANKS = [8 * 4**k for k in range(8)]  # 8 to 131,072 by factors of 4
# the counterpart of the ring's latency on each side: the latency-optimal algorithm
LATENCY_OPTIMAL = {"cluster": "recursive_doubling", "gpu": "tree"}


def flat_algorithms(algorithms: list[str], ranks: int) -> dict[str, dict[str, int]]:
    """The algorithms of `algorithms` that run on a flat fabric of `ranks` ranks with their
    default parameters (none that needs a node size, none limited to one node), and those."""
    found = {}
    for name in algorithms:
        entry = registry.get(name)
        if entry.applies_at(ranks) and registry.NODE_SIZE not in entry.parameters:
            found[name] = entry.resolve({}, ranks)
    return found


def cluster_rows(
    fabric: str,
    alpha: float,
    beta: float,
    library: str,
    algorithms: list[str],
    ranks: list[int],
    sizes: Mapping[int, str],
) -> list[dict[str, Any]]:
    """The cluster side: at each N and size, the cheapest algorithm by its exact counts on
    the flat fabric, the library rule's pick and its time, and the two latency terms."""
    rows = []
    for count in ranks:
        runnable = flat_algorithms(algorithms, count)
        for nbytes, messages in sizes.items():
            elements = max(1, nbytes // ITEMSIZE)
            times = {}
            for name, parameters in runnable.items():
                counts = registry.get(name).predict(count, elements, ITEMSIZE, **parameters)
                times[name] = closed_form(counts.rounds, counts.bytes_critical, alpha, beta)
            cheapest = min(times, key=times.__getitem__)
            pick = library_choice(library, count, nbytes, ITEMSIZE)
            rounds = {name: registry.get(name).predict(count, elements, ITEMSIZE).rounds
                      for name in ("ring", LATENCY_OPTIMAL["cluster"])}  # fmt: skip
            rows.append(
                {
                    "side": "cluster", "where": fabric, "ranks": count, "message_bytes": nbytes,
                    "messages": messages, "cheapest": cheapest, "cheapest_s": times[cheapest],
                    "pick": f"{library}: {pick}", "pick_s": times.get(pick, float("nan")),
                    "ring_latency_s": rounds["ring"] * alpha,
                    "tree_latency_s": rounds[LATENCY_OPTIMAL["cluster"]] * alpha,
                }
            )  # fmt: skip
    return rows


def gpu_rows(
    system: str, entry: Mapping[str, Any], ranks: list[int], sizes: Mapping[int, str]
) -> list[dict[str, Any]]:
    """The GPU side: at each N that fills whole nodes and scale-up domains of the system,
    the library's pick by its own tables, the cheapest of its algorithms and protocols on
    the system's costs, and its ring's and tree's latency at their lightest protocol."""
    release, per_node = modelled_release(entry), entry["gpus_per_node"]
    model = libraries.cost_model(release)
    rows = []
    for count in ranks:
        nodes, ragged = divmod(count, per_node)
        if ragged or not nodes or not fills_domains(entry, nodes):
            continue
        grown = nccl_system({**entry, "nodes": nodes})
        tuned = model.tuning(grown, release)
        floor = grown.call_floor_us * 1e-6
        picks = libraries.choice(grown, release, list(sizes))
        latency = {
            kind: min(latency for (name, _), (latency, _) in tuned.items() if name == kind) * 1e-6
            for kind in ("ring", LATENCY_OPTIMAL["gpu"])
        }
        for (nbytes, messages), (algorithm, protocol, seconds) in zip(
            sizes.items(), picks, strict=True
        ):
            times = {key: model.algorithm_time(grown, release, tuned, *key, nbytes) + floor
                     for key in tuned}  # fmt: skip
            cheapest = min(times, key=times.__getitem__)
            rows.append(
                {
                    "side": "gpu", "where": system, "ranks": count, "message_bytes": nbytes,
                    "messages": messages, "cheapest": "/".join(cheapest),
                    "cheapest_s": times[cheapest],
                    "pick": f"{entry['library']['name']}: {algorithm}/{protocol}",
                    "pick_s": seconds, "ring_latency_s": latency["ring"],
                    "tree_latency_s": latency[LATENCY_OPTIMAL["gpu"]],
                }
            )  # fmt: skip
    return rows


def scale_table(
    cluster: Mapping[str, Any],
    system: tuple[str, Mapping[str, Any]] | None,
    algorithms: list[str],
    ranks: list[int],
    sizes: Mapping[int, str],
) -> pd.DataFrame:
    """Both sides over `ranks` and `sizes` (bytes -> the workloads' messages of that size):
    `cluster` holds fabric, alpha_s, beta_s_per_byte and library; `system` is a GPU system's
    name and resolved entry, or None."""
    rows = cluster_rows(
        cluster["fabric"], cluster["alpha_s"], cluster["beta_s_per_byte"], cluster["library"],
        algorithms, ranks, sizes,
    )  # fmt: skip
    if system is not None:
        rows += gpu_rows(*system, ranks, sizes)
    return pd.DataFrame(rows, columns=COLUMNS)


def workload_sizes(workloads: Mapping[str, Mapping[str, Any]]) -> dict[int, str]:
    """Each distinct all-reduce size of the workloads (bytes, ascending) and the messages
    of that size ('llama2-70b DP, gpt3-175b TP')."""
    named: dict[int, list[str]] = {}
    for name, entry in workloads.items():
        for message in Workload.from_config(name, dict(entry)).messages():
            named.setdefault(message["message_bytes"], []).append(f"{name} {message['group']}")
    return {nbytes: ", ".join(dict.fromkeys(named[nbytes])) for nbytes in sorted(named)}


def scale_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per side and size: the N from which the cheapest algorithm and the pick last change,
    and the first N where the ring's latency term exceeds the size's whole cheapest time."""
    rows = []
    for (side, where, nbytes), rows_of in table.groupby(["side", "where", "message_bytes"]):
        rows_of = rows_of.sort_values("ranks")
        over = rows_of[rows_of.ring_latency_s > rows_of.cheapest_s]
        rows.append(
            {
                "side": side, "where": where, "message_bytes": nbytes,
                "messages": rows_of.messages.iloc[0],
                "cheapest_at_smallest": rows_of.cheapest.iloc[0],
                "cheapest_at_largest": rows_of.cheapest.iloc[-1],
                "pick_at_smallest": rows_of.pick.iloc[0], "pick_at_largest": rows_of.pick.iloc[-1],
                "ring_latency_over_cheapest_from": int(over.ranks.iloc[0]) if len(over) else None,
            }
        )  # fmt: skip
    return pd.DataFrame(rows)
