"""A GPU system of the config, resolved: what its library's model and the link-level rung
read of it, for NVIDIA's and AMD's GPUs alike.

An entry (config/README.md) names its accelerator (vendor, model, generation), its
collective library and release, its scale-up domain (NVSwitch or Infinity Fabric: the GPUs
one domain joins, which may span nodes), its scale-out network per node, and its CPU. The
check (`resolve`) refuses what the model cannot price, in one line naming the field, and
adds what it decided: the release modelled for the one named (the nearest where that one
is not modelled, the first of the generation where none is named), the per-call floor of
the generation and the network's latency per step beyond the library's tables. Nothing is
priced with another vendor's model. No pandas here: the config check imports this.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..model import libraries, nccl

SCALE_UP_VENDOR = {"nvswitch": "nvidia", "xgmi": "amd"}  # who builds each kind of domain
CPU_CLASS = {("x86_64", "intel"): "intel", ("x86_64", "amd"): "amd", ("arm64", "nvidia"): "other"}


class SystemEntryError(ValueError):
    """A GPU system the model cannot price: the message names the field, in one line."""


def domain_size(entry: Mapping[str, Any]) -> int:
    """GPUs one scale-up domain joins: its own size, else one node's."""
    return entry["scale_up"].get("gpus", entry["gpus_per_node"])


def domain_gpus(entry: Mapping[str, Any]) -> int:
    """GPUs of the run that one scale-up domain joins: the domain's size, at most the run."""
    return min(domain_size(entry), entry["nodes"] * entry["gpus_per_node"])


def domain_nics(entry: Mapping[str, Any]) -> int:
    """NICs of one domain of the run: those of every node it spans."""
    return round(entry["scale_out"]["nics"] * domain_gpus(entry) / entry["gpus_per_node"])


def fills_domains(entry: Mapping[str, Any], nodes: int) -> bool:
    """Whether `nodes` of the system's nodes lie in one scale-up domain or fill whole ones."""
    gpus, size = nodes * entry["gpus_per_node"], domain_size(entry)
    return gpus <= size or gpus % size == 0


def nccl_system(entry: Mapping[str, Any]) -> nccl.System:
    """What the library's tuning reads of a resolved entry: a node of its tables is one
    scale-up domain, with the NICs of the nodes it spans."""
    ranks = entry["nodes"] * entry["gpus_per_node"]
    resolved = entry["resolved"]
    return nccl.System(
        ranks=ranks,
        nodes=ranks // domain_gpus(entry),
        compute_capability=resolved["compute_capability"],
        nvlinks=entry["scale_up"]["links"],
        nics_per_node=domain_nics(entry),
        nic_GBps=entry["scale_out"]["Gbps"] / 8,
        cpu=CPU_CLASS[entry["cpu"]["arch"], entry["cpu"]["vendor"]],
        net_latency_us=resolved["net_latency_us"],
        call_floor_us=resolved["call_floor_us"],
        nvswitch=entry["scale_up"]["kind"] == "nvswitch",
    )


def modelled_release(entry: Mapping[str, Any]) -> nccl.Release:
    """The release a resolved entry is priced with."""
    library = libraries.libraries()[entry["library"]["name"]]
    return library.releases[entry["resolved"]["release_modelled"]]


def resolve(
    name: str,
    entry: Mapping[str, Any],
    logged: tuple[str, str] | None,
    costs: Mapping[str, Any],
) -> tuple[dict[str, Any], list[str]]:
    """The entry with what the model decided of it under "resolved", and one warning line
    for each guess; SystemEntryError for a combination it cannot price. `logged` is the library
    and release the log names, `costs` the config's gpu_costs as measured."""
    where = f"gpu_systems.{name}"
    accelerator, library_entry = entry["accelerator"], entry["library"]
    modelled = libraries.libraries()
    if library_entry["name"] not in modelled:
        raise SystemEntryError(
            f"{where}.library.name: {library_entry['name']} has no model "
            f"(modelled: {', '.join(sorted(modelled))})"
        )
    library = modelled[library_entry["name"]]
    if library.vendor != accelerator["vendor"]:
        raise SystemEntryError(
            f"{where}.library.name: {library.name} runs on "
            f"{library.vendor} GPUs, the accelerator is "
            f"{accelerator['vendor']}'s"
        )
    kind = entry["scale_up"]["kind"]
    if SCALE_UP_VENDOR[kind] != accelerator["vendor"]:
        raise SystemEntryError(
            f"{where}.scale_up.kind: {kind} joins {SCALE_UP_VENDOR[kind]} GPUs, "
            f"the accelerator is {accelerator['vendor']}'s"
        )
    generation = accelerator["generation"]
    if generation not in library.generations:
        raise SystemEntryError(
            f"{where}.accelerator.generation: {generation} is not a generation "
            f"{library.name} runs on ({', '.join(library.generations)})"
        )
    cpu = entry["cpu"]["arch"], entry["cpu"]["vendor"]
    if cpu not in CPU_CLASS:
        raise SystemEntryError(
            f"{where}.cpu: {cpu[1]} builds no {cpu[0]} CPU the model knows "
            f"({', '.join('/'.join(pair) for pair in CPU_CLASS)})"
        )
    _check_nodes(where, entry)
    warnings: list[str] = []
    release = _release(where, library, library_entry.get("release"), logged, generation, warnings)
    floor, floor_from = _call_floor(library, generation, costs.get("call_floor", {}))
    if not floor_from:  # another generation's standing in is said in the call_floor_from column
        warnings.append(
            f"{where}: no per-call floor measured for any {library.name} GPU; priced without one"
        )
    spans = entry["nodes"] * entry["gpus_per_node"] > domain_gpus(entry)
    network = entry["scale_out"]["kind"]
    latencies, reference = costs.get("network_latency", {}), costs.get("reference", "infiniband")
    net_latency = 0.0
    if spans and network not in latencies:
        warnings.append(
            f"{where}.scale_out.kind: no latency measured for {network}; "
            f"its network steps are priced at {reference}'s, as the tables "
            "are"
        )
    elif spans and reference in latencies:
        net_latency = max(0.0, latencies[network] - latencies[reference])
    resolved = {
        "release": release["named"], "release_modelled": release["modelled"],
        "release_note": release["note"],
        "compute_capability": library.generations[generation],
        "call_floor_us": floor, "call_floor_from": floor_from,
        "net_latency_us": net_latency,
    }  # fmt: skip
    return {**entry, "resolved": resolved}, warnings


def _check_nodes(where: str, entry: Mapping[str, Any]) -> None:
    """The NICs serve the node's GPUs, and a domain holds whole nodes, the run whole domains."""
    per_node, out = entry["gpus_per_node"], entry["scale_out"]
    served = out["nics"] * out["gpus_per_nic"]
    if not math.isclose(served, per_node):
        raise SystemEntryError(
            f"{where}.scale_out.gpus_per_nic: {out['nics']} NICs serving "
            f"{out['gpus_per_nic']:g} GPUs each are {served:g} GPUs, the node "
            f"has {per_node}"
        )
    size = domain_size(entry)
    if size % per_node:
        raise SystemEntryError(
            f"{where}.scale_up.gpus: a domain of {size} GPUs does not "
            f"hold whole nodes of {per_node}"
        )
    if not fills_domains(entry, entry["nodes"]):
        raise SystemEntryError(
            f"{where}.nodes: {entry['nodes'] * per_node} GPUs do not fill whole scale-up "
            f"domains of {size}"
        )


def _release(
    where: str,
    library: libraries.Library,
    named: str | None,
    logged: tuple[str, str] | None,
    generation: str,
    warnings: list[str],
) -> dict[str, str]:
    """The release the system ran (the entry's, else its log's) and the one modelled for it."""
    if logged is not None:
        if logged[0] != library.name:
            raise SystemEntryError(
                f"{where}.library.name: the log ran {logged[0]}, the entry says {library.name}"
            )
        if named is not None and named != logged[1]:
            raise SystemEntryError(
                f"{where}.library.release: the log ran {logged[1]}, the entry says {named}"
            )
        named = logged[1]
    upper = library.name.upper()
    if named is None:
        modelled = library.first_for(library.generations[generation]).version
        note = f"no release named: {modelled}, the first modelled for {generation}"
        warnings.append(
            f"{where}: no {upper} release named (entry or log); priced with "
            f"{modelled}, the first modelled for {generation}"
        )
        return {"named": "", "modelled": modelled, "note": note}
    modelled = library.nearest(named).version
    note = "" if modelled == named else f"{named} not modelled: {modelled}, the nearest"
    if note:
        warnings.append(
            f"{where}: {upper} {named} is not modelled; priced with {modelled}, "
            "the nearest modelled release"
        )
    return {"named": named, "modelled": modelled, "note": note}


def _call_floor(
    library: libraries.Library, generation: str, floors: Mapping[str, float]
) -> tuple[float, str]:
    """The generation's measured per-call floor (µs), else the nearest measured generation's
    of the same library (by compute capability), else none; and whose it is."""
    measured = [g for g in floors if g in library.generations]
    if generation in floors:
        return floors[generation], generation
    if not measured:
        return 0.0, ""
    capability = library.generations[generation]
    nearest = min(measured, key=lambda g: abs(library.generations[g] - capability))
    return floors[nearest], nearest
