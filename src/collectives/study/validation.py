"""The model against the clock: predicted times beside wall-clock ones, here and on clusters.

On this machine, each transport is calibrated by its own micro-benchmarks (ping-pong and
timed reductions: the `local` and `local-mpi` fabrics' α, β, γ; the exchange benchmark at
each timed N), and every timed run is predicted by replaying the trace of the same point
under every model of the ladder, to set beside its measured median. On real clusters, the
same ladder predicts each osu_allreduce from the system's own osu_latency (and osu_bw or
osu_mbw_mr), its single-node osu_allreduce and its node facts, for the algorithm its
library's rule ran.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import registry
from ..model import ladder
from ..model.crossing import takes_over
from ..model.fabric import Fabric, LinkClass
from ..model.fit import Points
from ..model.library_rules import library_choice
from ..model.replay import Cores, replay
from ..transport.dry import dry_trace
from ..transport.trace import Trace
from .fabrics import fitted_link, read_osu_latency
from .question import SEED_PAIR

# The exchange link carries the ranks' sharing of the machine; each rank's own work (its
# send's and receive's copies, its reductions) then takes turns on its own core.
OWN_CORE = Cores(1, share=0.5, of_rank=True)
# A measured crossover is resolved when the clock places it within this factor of sizes:
# two of the wall-clock grid's factor-2 steps where ring and recursive doubling cross.
CROSSOVER_RESOLUTION = 4.0
CROSSOVER_BAND = ["measured_low_bytes", "measured_high_bytes", "resolved"]


def model_against_clock(
    wallclock: pd.DataFrame,
    fabrics: Mapping[str, Fabric],
    calibration: dict[str, str],
    exchanges: Mapping[tuple[str, int], Points],
    exchange_bounds: Mapping[tuple[str, int], tuple[Points, Points]] | None = None,
    noise_bound: float = math.inf,
) -> pd.DataFrame:
    """Our algorithms' measured medians beside every model's prediction (ladder.MODELS) on
    the fabric calibrated for their transport (and, from the resources layer on, the link
    of its exchange benchmark at the same N, each rank's own work on its own core), from
    the trace of the same (algorithm, N, M, dtype): the dry transport's, the one the run
    recorded. `cores` (what the timed ranks could run on) is reported beside; the exchange
    measured the ranks sharing them. `predicted_s` is the top model's; rel_error =
    predicted / measured - 1. The top model's prediction interval comes from the exchange's
    (`exchange_bounds`: its low and high points, each fitted as the median is); a point
    whose measured interval is wider than `noise_bound` of its median is `noisy`."""
    ours = wallclock[~wallclock.library.astype(bool)].copy()
    rungs, bounds = {}, {}
    for (transport, ranks), points in exchanges.items():
        fabric = fabrics[calibration[transport]]
        label = f"{fabric.name} exchange N{ranks}"
        busy = replace(fabric, link=fitted_link(label, points))
        rungs[(transport, ranks)] = ladder.rungs(fabric, busy)
        bounds[(transport, ranks)] = [
            ladder.rungs(fabric, replace(fabric, link=fitted_link(label, side)))
            for side in (exchange_bounds or {}).get((transport, ranks), ())
        ]
    traces: dict[tuple[str, int, int, str], Trace] = {}
    rows = []
    for run in ours.itertuples():
        fabric = fabrics[calibration[run.transport]]
        if (run.transport, run.ranks) not in rungs:
            raise ValueError(f"no exchange benchmark for {run.transport} at N={run.ranks}")
        key = (run.algorithm, run.ranks, run.elements, run.dtype)
        if key not in traces:
            itemsize = np.dtype(run.dtype).itemsize
            allreduce = registry.get(run.algorithm).at_defaults(run.ranks)
            traces[key] = dry_trace(allreduce, run.ranks, run.elements, itemsize)
        predicted = ladder.predict(
            traces[key], run.rounds, run.bytes_critical, rungs[(run.transport, run.ranks)], OWN_CORE
        )
        sides = [
            ladder.predict_top(traces[key], side, OWN_CORE)
            for side in bounds[(run.transport, run.ranks)]
        ] or [math.nan]
        rows.append({"fabric": fabric.name, **{ladder.column(m): t for m, t in predicted.items()},
                     "predicted_low_s": min(sides), "predicted_high_s": max(sides)})  # fmt: skip
    ours = pd.concat([ours.reset_index(drop=True), pd.DataFrame(rows)], axis=1)
    ours["predicted_s"] = ours[ladder.column(ladder.MODELS[-1])]
    ours["measured_s"] = ours.time_median_s
    ours["rel_error"] = ours.predicted_s / ours.measured_s - 1
    ours["noisy"] = (ours.high_s - ours.low_s) / ours.measured_s > noise_bound
    columns = ["transport", "fabric", "algorithm", "ranks", "cores", "elements", "dtype",
               "message_bytes", "rounds", "bytes_critical", "measured_s", "time_min_s",
               "low_s", "high_s", "noisy", *map(ladder.column, ladder.MODELS),
               "predicted_s", "predicted_low_s", "predicted_high_s", "rel_error"]  # fmt: skip
    return ours[columns]


def crossover_against_clock(
    validation: pd.DataFrame, pair: tuple[str, str] = SEED_PAIR
) -> pd.DataFrame:
    """Per transport and N: the size from which ring beats recursive doubling (the pair) at
    every larger size, predicted and measured, found the same way on both (takes_over);
    and the band the clock places it in (measured_band): resolved where that band spans at
    most CROSSOVER_RESOLUTION."""
    small, large = pair
    rows = []
    for (transport, ranks), group in validation.groupby(["transport", "ranks"]):
        if not {small, large} <= set(group.algorithm):
            continue
        sides = {
            name: group[group.algorithm == name].sort_values("message_bytes")
            for name in (small, large)
        }
        sizes = sides[small].message_bytes.to_numpy(float)
        row = {"transport": transport, "ranks": ranks}
        for column in ("predicted", "measured"):
            row[f"{column}_bytes"] = takes_over(
                sizes,
                sides[small][f"{column}_s"].to_numpy(),
                sides[large][f"{column}_s"].to_numpy(),
            )[1]
        if {"low_s", "high_s"} <= set(group.columns):
            low, high = measured_band(sizes, sides[small], sides[large])
            row |= {"measured_low_bytes": low, "measured_high_bytes": high,
                    "resolved": high <= CROSSOVER_RESOLUTION * low}  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows, columns=["transport", "ranks", "predicted_bytes", "measured_bytes",
                                       *CROSSOVER_BAND])  # fmt: skip


def measured_band(
    sizes: np.ndarray, small: pd.DataFrame, large: pd.DataFrame
) -> tuple[float, float]:
    """Where the clock puts the crossover, beyond its intervals: from the largest size at
    which `small` is faster than `large` beyond both points' intervals (0: at none) to the
    size from which `large` is so faster at every larger size (NaN: from none)."""
    clearly_large = takes_over(sizes, small.low_s.to_numpy(), large.high_s.to_numpy())[0]
    clearly_small = small.high_s.to_numpy() < large.low_s.to_numpy()
    below = clearly_small if math.isnan(clearly_large) else clearly_small & (sizes < clearly_large)
    return (float(sizes[below].max()) if below.any() else 0.0), clearly_large


def node_link(entry: dict[str, Any], itemsize: int, base: Path) -> LinkClass:
    """The intra-node link class of a cluster, fitted from a single-node osu_allreduce of
    the same system: each size's time, under the algorithm the library ran there, becomes
    one message's time (time / rounds for bytes_critical / rounds bytes: exact for ring and
    recursive doubling, whose rounds all move equal messages) and those points are fitted
    as a ping-pong is. Learned from collective timings, but never from a predicted run."""
    node = entry["node"]
    ranks = node["ranks"]
    measured = read_osu_latency(base / node["allreduce"], node.get("table"))
    sizes, seconds = [], []
    for nbytes, time in zip(measured.nbytes, measured.seconds, strict=True):
        elements = max(1, int(nbytes) // itemsize)
        algorithm = library_choice(entry["library"], ranks, elements * itemsize, itemsize)
        counts = registry.get(algorithm).predict(ranks, elements, itemsize)
        sizes.append(counts.bytes_critical / counts.rounds)
        seconds.append(time / counts.rounds)
    return fitted_link(f"{entry['fabric']} node", Points(np.array(sizes), np.array(seconds)))


def cluster_fabric(name: str, entry: dict[str, Any], inter: Fabric, intra: LinkClass) -> Fabric:
    """A cluster as a two-level fabric: its osu_latency fit between nodes, `intra` inside
    them, its ranks per node sharing `nic_per_node` NIC ports."""
    return Fabric.on_nodes(
        name,
        intra,
        inter.link,
        entry.get("ranks_per_node", 1),
        entry.get("nic_per_node", 1),
        description=entry.get("description", ""),
    )


def clusters_against_clock(
    clusters: dict[str, dict[str, Any]],
    fabrics: Mapping[str, Fabric],
    algorithms: list[str],
    base: Path,
) -> pd.DataFrame:
    """Each cluster's osu_allreduce times beside every ladder model's prediction, from the
    dry traces of the algorithm its library ran (its decision rule, where `library` is
    known) or else of the cheapest, and the cheapest algorithm's time beside it.

    Between nodes the link is the fit of the system's osu_latency; inside a node, the fit
    of its `intra_fabric` (a single-node osu_latency, by default the shipped shared-memory
    one), never the NIC's; the ranks of a node share its NICs, and its cores where it has
    more ranks than cores (a rank pinned to a core of its own never waits for one). γ is
    not known for a cluster: the +gamma rung equals alpha-beta. No collective timing of
    the cluster calibrates its prediction; where it has a single-node osu_allreduce
    (`node`), `node_log_s` is the top model with that log's fit inside the nodes instead,
    labelled apart and never the headline.
    """
    rows = []
    for name, entry in clusters.items():
        inter = fabrics[entry["fabric"]]
        fabric = cluster_fabric(name, entry, inter, fabrics[entry["intra_fabric"]].link)
        rungs = ladder.rungs(fabric)
        node_top = None  # the top rung's fabric with the node log's fit inside the nodes
        if "node" in entry:
            node_intra = node_link(entry, entry["itemsize"], base)
            node_fabric = cluster_fabric(name, entry, inter, node_intra)
            node_top = ladder.rungs(node_fabric)[ladder.MODELS[-1]]
        cores_per_node = entry.get("cores_per_node", fabric.ranks_per_node)
        cores = Cores(cores_per_node) if cores_per_node < fabric.ranks_per_node else None
        measured = read_osu_latency(base / entry["allreduce"], entry.get("table"))
        itemsize, ranks, library = entry["itemsize"], entry["ranks"], entry.get("library")
        applying = [a for a in algorithms if registry.get(a).applies_at(ranks)]
        for nbytes, seconds in zip(measured.nbytes, measured.seconds, strict=True):
            elements = max(1, int(nbytes) // itemsize)
            ran = library_choice(library, ranks, elements * itemsize, itemsize) if library else None
            times, traces = {}, {}
            for algorithm in dict.fromkeys([*applying, *([ran] if ran else [])]):
                chosen = registry.get(algorithm)
                counts = chosen.predict(ranks, elements, itemsize)
                parameters = chosen.resolve({}, ranks)
                trace = chosen.trace(ranks, elements, itemsize, parameters, fabric.topology)
                traces[algorithm] = trace
                if ran in (None, algorithm):
                    times[algorithm] = ladder.predict(
                        trace, counts.rounds, counts.bytes_critical, rungs, cores
                    )
                else:  # beside the library's choice, only the top rung: it picks the cheapest
                    times[algorithm] = {ladder.MODELS[-1]: ladder.predict_top(trace, rungs, cores)}
            cheapest = min(applying, key=lambda a: times[a][ladder.MODELS[-1]])
            predicted = (
                times[ran]
                if ran
                else {m: min(times[a][m] for a in applying) for m in ladder.MODELS}
            )
            rows.append(
                {
                    "cluster": name,
                    "fabric": entry["fabric"],
                    "ranks": ranks,
                    "ranks_per_node": fabric.ranks_per_node,
                    "library": library or "",
                    "intra": entry["intra_fabric"],
                    "message_bytes": int(nbytes),
                    "measured_s": float(seconds),
                    "algorithm": ran or cheapest,
                    **{ladder.column(m): predicted[m] for m in ladder.MODELS},
                    "cheapest_algorithm": cheapest,
                    "cheapest_s": times[cheapest][ladder.MODELS[-1]],
                    "node_log_s": (
                        replay(traces[ran or cheapest], node_top, cores, pipelined=True)
                        if node_top
                        else np.nan
                    ),
                }
            )
    table = pd.DataFrame(rows, columns=CLUSTER_COLUMNS[:-2])
    table["predicted_s"] = table[ladder.column(ladder.MODELS[-1])]
    table["rel_error"] = table.predicted_s / table.measured_s - 1
    return table


CLUSTER_COLUMNS = ["cluster", "fabric", "ranks", "ranks_per_node", "library", "intra",
                   "message_bytes", "measured_s", "algorithm",
                   *map(ladder.column, ladder.MODELS), "cheapest_algorithm", "cheapest_s",
                   "node_log_s", "predicted_s", "rel_error"]  # fmt: skip


def median_difference_interval(
    first: np.ndarray, second: np.ndarray, confidence: float = 0.9, resamples: int = 2000
) -> tuple[float, float]:
    """The bootstrap interval of median(first) - median(second) over paired points (the
    same sizes resampled for both), at `confidence`; seeded, so a rerun gives the same."""
    first, second = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    picks = np.random.default_rng(0).integers(0, len(first), size=(resamples, len(first)))
    differences = np.median(first[picks], axis=1) - np.median(second[picks], axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(differences, [tail, 1 - tail])
    return float(low), float(high)


def within_factor(rel_error: pd.Series, factor: float) -> pd.Series:
    """Whether each prediction is within `factor` of the measurement (either way)."""
    ratio = 1 + rel_error
    return (ratio >= 1 / factor) & (ratio <= factor)


def error_summary(validation: pd.DataFrame, clusters: pd.DataFrame) -> pd.DataFrame:
    """Per model, and per transport and N (this machine) or per cluster: the median, 90th
    percentile and largest |relative error|, the shares within 2x and within 25%, and on
    this machine how well the model chooses: the share of sizes where its cheapest
    algorithm is the measured fastest, where the measured time of its choice is within
    10% of the fastest, and the ring/recursive-doubling crossover it predicts beside the
    measured one. Noisy points (this machine's, `noisy`) are kept out of the errors and
    counted (`kept_out`); `within_interval` is the share of the rest whose measured median
    lies inside the top model's prediction interval."""
    parts = []
    for model in ladder.MODELS:
        for frame, keys in ((validation, ["transport", "ranks"]), (clusters, ["cluster", "ranks"])):
            if not frame.empty:
                judged = frame.assign(
                    predicted_s=frame[ladder.column(model)],
                    rel_error=frame[ladder.column(model)] / frame.measured_s - 1,
                )
                parts.append(_summary(judged, keys, model, choices=frame is validation))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _summary(frame: pd.DataFrame, keys: list[str], model: str, choices: bool) -> pd.DataFrame:
    noisy = frame.noisy.astype(bool) if "noisy" in frame else pd.Series(False, frame.index)
    errors = frame[~noisy].assign(abs_error=frame.rel_error.abs())
    summary = errors.groupby(keys).agg(
        points=("rel_error", "size"),
        median_abs_rel_error=("abs_error", "median"),
        p90_abs_rel_error=("abs_error", lambda e: float(e.quantile(0.9))),
        max_abs_rel_error=("abs_error", "max"),
        within_2x=("rel_error", lambda e: float(within_factor(e, 2).mean())),
        within_25pct=("rel_error", lambda e: float(within_factor(e, 1.25).mean())),
    )
    kept_out = noisy.groupby([frame[k] for k in keys]).sum().rename("kept_out")
    summary = summary.join(kept_out, how="outer").fillna({"points": 0})  # all noisy: a row
    summary["points"] = summary.points.astype(int)
    if "predicted_low_s" in errors and model == ladder.MODELS[-1]:
        bounded = errors.dropna(subset=["predicted_low_s", "predicted_high_s"])
        inside = (bounded.predicted_low_s <= bounded.measured_s) & (
            bounded.measured_s <= bounded.predicted_high_s
        )
        summary = summary.join(inside.groupby([bounded[k] for k in keys]).mean().rename(
            "within_interval"))  # fmt: skip
    if choices:  # several algorithms timed per size: how well the model picks among them
        summary = summary.join(_choices(frame, keys))
        crossover = crossover_against_clock(frame).set_index(keys)
        summary = summary.join(
            crossover.rename(columns=lambda c: c.replace("_bytes", "_crossover_bytes"))
        )
    summary = summary.reset_index().rename(columns={keys[0]: "where"})
    summary.insert(2, "model", model)
    return summary


def _choices(validation: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group: the share of message sizes where the predicted winner is the measured
    one, and where its measured time is within 10% of the measured fastest."""

    def judge(point: pd.DataFrame) -> pd.Series:
        chosen = point.loc[point.predicted_s.idxmin()]
        fastest = point.measured_s.min()
        return pd.Series(
            {
                "same_winner": float(chosen.measured_s == fastest),
                "choice_within_10pct": float(chosen.measured_s <= 1.1 * fastest),
            }
        )

    per_size = validation.groupby([*keys, "message_bytes"])[
        ["algorithm", "predicted_s", "measured_s"]
    ].apply(judge)
    return per_size.groupby(level=keys).mean()
