"""Training workloads: the all-reduce messages of a Megatron-style TP x DP layout, priced.

Tensor parallelism (Shoeybi et al. 2019, "Megatron-LM"; megatron/core/tensor_parallel/
mappings.py): every transformer layer's column- and row-parallel pair ends in an all-reduce
of the activations, b * L * h elements (micro-batch b, sequence length L, hidden size h), in
the attention block and in the MLP block: 2 in the forward and 2 in the backward pass per
layer, over the TP ranks of a node. Data parallelism: after the backward pass each rank
all-reduces its gradient (parameters / TP elements) in buckets over the DP ranks: 25 MiB by
default (PyTorch DDP's bucket_cap_mb), or Megatron's DDP default of max(40e6, 1e6 * DP)
parameters per bucket. An inference layout (backward false) has the forward all-reduces
only; in decoding, sequence is the tokens per step (1).

A workload that names a GPU system (`gpu_system`) is also priced where it runs, by NCCL's
own model of the release modelled for the system's (collectives.model.nccl; RCCL's on AMD):
the TP group is `tp` GPUs of one scale-up domain; the DP group is the GPUs at one TP
position of every domain, and as all TP positions all-reduce their gradients at once, each
DP group has its share of the domain's NICs. The layout's GPUs (tp x dp x pp) must fit the
system's, which the config check holds to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..model import libraries, nccl
from ..model.crossing import interpolate
from .question import SEED_PAIR
from .systems import domain_gpus, modelled_release, nccl_system

DDP_BUCKET_BYTES = 25 * 2**20  # torch.nn.parallel.DistributedDataParallel(bucket_cap_mb=25)
COLUMNS = [
    "workload", "group", "fabric", "ranks", "message_bytes", "count_per_step", "winner",
    "winner_s", "runner_up", "runner_up_s", *(f"{a}_s" for a in SEED_PAIR[::-1]), "per_step_s",
    "gpu_system", "nccl_choice", "nccl_s", "nccl_per_step_s", "workload_per_step_s",
    "workload_nccl_per_step_s",
]  # fmt: skip


@dataclass(frozen=True)
class Workload:
    """A model and its parallel layout, as the config describes it."""

    name: str
    hidden: int
    sequence: int
    micro_batch: int
    layers: int
    parameters: float
    dtype_bytes: int
    tp: int
    dp: int
    pp: int = 1  # pipeline stages: the layout's GPUs are tp x dp x pp
    tp_fabric: str = ""  # needed when tp > 1
    dp_fabric: str = ""  # needed when dp > 1
    bucket: str | int = DDP_BUCKET_BYTES  # bytes, or "megatron"
    micro_batches: int = 1  # per training step (gradient accumulation)
    backward: bool = True  # False for inference: forward all-reduces only, no gradients
    gpu_system: str = ""  # a GPU system of the config it runs on: priced by NCCL's model

    @classmethod
    def from_config(cls, name: str, entry: dict[str, Any]) -> Workload:
        """The workload a config entry describes."""
        return cls(name=name, **entry)

    def bucket_bytes(self) -> int:
        """The DP bucket size in bytes."""
        if self.bucket == "megatron":  # megatron/core/distributed: max(40M, 1M * DP) params
            return int(max(40e6, 1e6 * self.dp)) * self.dtype_bytes
        return int(self.bucket)

    def messages(self) -> list[dict[str, Any]]:
        """Every distinct all-reduce of one training step: group, fabric, N, bytes, count."""
        rows = []
        if self.tp > 1:
            activation = self.micro_batch * self.sequence * self.hidden * self.dtype_bytes
            per_layer = 4 if self.backward else 2  # 2 forward (+ 2 backward) per layer
            count = per_layer * self.layers * self.micro_batches
            rows.append(self._row("TP", self.tp_fabric, self.tp, activation, count))
        if self.dp > 1 and self.backward:
            gradient = math.ceil(self.parameters / self.tp) * self.dtype_bytes
            bucket = self.bucket_bytes()
            full, last = divmod(gradient, bucket)
            if full:
                rows.append(self._row("DP", self.dp_fabric, self.dp, bucket, full))
            if last:
                rows.append(self._row("DP", self.dp_fabric, self.dp, last, 1))
        return rows

    def nccl_group(self, group: str, system: dict[str, Any]) -> nccl.System:
        """The TP or DP group as NCCL's tuning sees it on the GPU system's nodes."""
        whole = nccl_system(system)
        per_node = domain_gpus(system)  # a TP group lies in one scale-up domain
        if group == "TP":
            return replace(whole, ranks=self.tp, nodes=1)
        positions = max(1, per_node // self.tp)  # DP ranks of one node
        share = whole.nics_per_node * whole.nic_GBps * positions / per_node
        return replace(
            whole, ranks=self.dp, nodes=math.ceil(self.dp / positions), nics_per_node=1,
            nic_GBps=share,
        )  # fmt: skip

    def _row(self, group: str, fabric: str, ranks: int, nbytes: int, count: int) -> dict:
        return {
            "workload": self.name,
            "group": group,
            "fabric": fabric,
            "ranks": ranks,
            "message_bytes": int(nbytes),
            "count_per_step": int(count),
        }


def time_at(costs: pd.DataFrame, fabric: str, algorithm: str, ranks: int, nbytes: float) -> float:
    """An algorithm's time on a fabric at any message size, from the grid's times
    (crossing.interpolate: linear between grid sizes, extended beyond them); NaN if the
    grid has no such run."""
    rows = costs[
        (costs.fabric == fabric) & (costs.algorithm == algorithm) & (costs.ranks == ranks)
    ].sort_values("message_bytes")
    return interpolate(rows.message_bytes.to_numpy(float), rows.time_s.to_numpy(float), nbytes)


def workloads_table(
    workloads: list[Workload],
    costs: pd.DataFrame,
    dtype: str,
    algorithms: list[str],
    systems: dict[str, dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """Per workload, group and message size: the winner, its time, the runner-up, ring and
    recursive doubling, the group's time per step, and the workload's total per step; for a
    workload on one of `systems` (GPU systems by name), NCCL's choice by its own model, its
    time and the totals under it."""
    costs = costs[costs.dtype == dtype]
    rows = []
    for workload in workloads:
        for message in workload.messages():
            times = {
                algorithm: time_at(
                    costs, message["fabric"], algorithm, message["ranks"], message["message_bytes"]
                )
                for algorithm in algorithms
            }
            ranked = sorted((t, algorithms.index(a), a) for a, t in times.items() if np.isfinite(t))
            ranked += [(math.nan, 0, "")] * (2 - len(ranked))  # too few on the grid: none
            (best, _, winner), (second, _, runner_up) = ranked[0], ranked[1]
            rows.append(
                {
                    **message,
                    "winner": winner,
                    "winner_s": best,
                    "runner_up": runner_up,
                    "runner_up_s": second,
                    **{f"{a}_s": times.get(a, math.nan) for a in SEED_PAIR[::-1]},
                    "per_step_s": best * message["count_per_step"],
                    **_under_nccl(workload, message, systems or {}),
                }
            )
    table = pd.DataFrame(rows, columns=[c for c in COLUMNS if not c.startswith("workload_")])
    totals = table.groupby("workload")
    table["workload_per_step_s"] = totals["per_step_s"].transform("sum")
    table["workload_nccl_per_step_s"] = totals["nccl_per_step_s"].transform(
        lambda steps: steps.sum(min_count=len(steps))
    )
    return table[COLUMNS]


def _under_nccl(
    workload: Workload, message: dict[str, Any], systems: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """One all-reduce of a workload as NCCL's model prices it on the workload's GPU system."""
    priced = {"gpu_system": workload.gpu_system, "nccl_choice": "", "nccl_s": math.nan}
    if workload.gpu_system in systems:
        release = modelled_release(systems[workload.gpu_system])
        group = workload.nccl_group(message["group"], systems[workload.gpu_system])
        ((algorithm, protocol, seconds),) = libraries.choice(
            group, release, [message["message_bytes"]]
        )
        priced |= {"nccl_choice": f"{algorithm}/{protocol}", "nccl_s": seconds}
    return priced | {"nccl_per_step_s": priced["nccl_s"] * message["count_per_step"]}
