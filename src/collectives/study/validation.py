"""The model against the clock: predicted times beside wall-clock ones, here and on clusters.

On this machine, each transport is calibrated by its own ping-pong and timed reductions
(the `local` and `local-mpi` fabrics: α, β, γ), and every timed run is predicted by
replaying the grid's trace of the same point there (with the closed form rounds·α +
bytes_critical·β beside it) to set beside its measured median. On real
clusters, an osu_latency fit predicts the cluster's osu_allreduce with each algorithm's
counts (closed forms, which the measured counts equal on the whole grid).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .. import registry
from ..model import ladder
from ..model.cost import SEED_PAIR, closed_form
from ..model.crossing import takes_over
from ..model.fabric import Fabric
from ..model.replay import Cores
from ..transport.trace import Trace
from .fabrics import read_osu_latency


def model_against_clock(
    wallclock: pd.DataFrame,
    fabrics: Mapping[str, Fabric],
    calibration: dict[str, str],
    traces: Mapping[tuple[str, int, int, str], Trace],
) -> pd.DataFrame:
    """Our algorithms' measured medians beside every model's prediction (ladder.MODELS) on
    the fabric calibrated for their transport, from the grid's trace of the same (algorithm,
    N, M, dtype) and the cores the timed ranks had. `predicted_s` is the top model's;
    rel_error = predicted / measured - 1."""
    ours = wallclock[~wallclock.library.astype(bool)].copy()
    rows = []
    for run in ours.itertuples():
        fabric = fabrics[calibration[run.transport]]
        key = (run.algorithm, run.ranks, run.elements, run.dtype)
        if key not in traces:
            raise ValueError(f"no trace for {key}: not on the grid")
        cores = Cores(int(run.cores)) if pd.notna(run.cores) else None
        predicted = ladder.predict(traces[key], run.rounds, run.bytes_critical, fabric, cores)
        rows.append({"fabric": fabric.name, **{ladder.column(m): t for m, t in predicted.items()}})
    ours = pd.concat([ours.reset_index(drop=True), pd.DataFrame(rows)], axis=1)
    ours["predicted_s"] = ours[ladder.column(ladder.MODELS[-1])]
    ours["measured_s"] = ours.time_median_s
    ours["rel_error"] = ours.predicted_s / ours.measured_s - 1
    columns = ["transport", "fabric", "algorithm", "ranks", "cores", "elements", "dtype",
               "message_bytes", "rounds", "bytes_critical", "measured_s", "time_min_s",
               *map(ladder.column, ladder.MODELS), "predicted_s", "rel_error"]  # fmt: skip
    return ours[columns]


def crossover_against_clock(
    validation: pd.DataFrame, pair: tuple[str, str] = SEED_PAIR
) -> pd.DataFrame:
    """Per transport and N: the size from which ring beats recursive doubling (the pair) at
    every larger size, predicted and measured, found the same way on both (takes_over)."""
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
        rows.append(row)
    return pd.DataFrame(rows, columns=["transport", "ranks", "predicted_bytes", "measured_bytes"])


def clusters_against_clock(
    clusters: dict[str, dict[str, Any]],
    fabrics: pd.DataFrame,
    algorithms: list[str],
    base: Path,
) -> pd.DataFrame:
    """Each cluster's osu_allreduce times beside every algorithm's prediction from its
    fabric's fit, and the cheapest prediction (what ideal selection would reach).

    The fit is one pair of ranks on otherwise idle nodes: each rank has the link to itself.
    `shared_s` is the other extreme, the cheapest algorithm when all G ranks of a node
    share that one link (beta times G); real runs should fall between the two.
    """
    links = fabrics.set_index("fabric")
    rows = []
    for name, entry in clusters.items():
        measured = read_osu_latency(base / entry["allreduce"], entry.get("table", 1))
        alpha = links.loc[entry["fabric"], "alpha_s"]
        beta = links.loc[entry["fabric"], "beta_s_per_byte"]
        itemsize, ranks = entry.get("itemsize", 4), entry["ranks"]
        sharing = entry.get("ranks_per_node", 1)
        for nbytes, seconds in zip(measured.nbytes, measured.seconds, strict=True):
            elements = max(1, int(nbytes) // itemsize)
            counts = {a: registry.get(a).predict(ranks, elements, itemsize) for a in algorithms}
            predicted = {
                a: closed_form(c.rounds, c.bytes_critical, alpha, beta) for a, c in counts.items()
            }
            shared = min(
                closed_form(c.rounds, c.bytes_critical, alpha, beta * sharing)
                for c in counts.values()
            )
            best = min(predicted, key=predicted.get)
            rows.append(
                {
                    "cluster": name,
                    "fabric": entry["fabric"],
                    "ranks": ranks,
                    "ranks_per_node": sharing,
                    "message_bytes": int(nbytes),
                    "measured_s": float(seconds),
                    **{f"{a}_s": t for a, t in predicted.items()},
                    "best_algorithm": best,
                    "predicted_s": predicted[best],
                    "shared_s": shared,
                    "between": bool(predicted[best] <= seconds <= shared),
                    "rel_error": predicted[best] / seconds - 1,
                }
            )
    columns = ["cluster", "fabric", "ranks", "ranks_per_node", "message_bytes", "measured_s",
               *(f"{a}_s" for a in algorithms), "best_algorithm", "predicted_s", "shared_s",
               "between", "rel_error"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)  # the header even with no clusters


def within_factor(rel_error: pd.Series, factor: float) -> pd.Series:
    """Whether each prediction is within `factor` of the measurement (either way)."""
    ratio = 1 + rel_error
    return (ratio >= 1 / factor) & (ratio <= factor)


def error_summary(validation: pd.DataFrame, clusters: pd.DataFrame) -> pd.DataFrame:
    """Per model, and per transport and N (this machine) or per cluster: the median, 90th
    percentile and largest |relative error|, the shares within 2x and within 25%, and on
    this machine how well the model chooses: the share of sizes where its cheapest
    algorithm is the measured fastest, and where the measured time of its choice is within
    10% of the fastest. Clusters are predicted by the alpha-beta model."""
    parts = []
    for model in ladder.MODELS:
        if not validation.empty:
            here = validation.assign(
                predicted_s=validation[ladder.column(model)],
                rel_error=validation[ladder.column(model)] / validation.measured_s - 1,
            )
            parts.append(_summary(here, ["transport", "ranks"], model))
    if not clusters.empty:
        parts.append(_summary(clusters, ["cluster", "ranks"], ladder.MODELS[0]))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _summary(frame: pd.DataFrame, keys: list[str], model: str) -> pd.DataFrame:
    errors = frame.assign(abs_error=frame.rel_error.abs())
    summary = errors.groupby(keys).agg(
        points=("rel_error", "size"),
        median_abs_rel_error=("abs_error", "median"),
        p90_abs_rel_error=("abs_error", lambda e: float(e.quantile(0.9))),
        max_abs_rel_error=("abs_error", "max"),
        within_2x=("rel_error", lambda e: float(within_factor(e, 2).mean())),
        within_25pct=("rel_error", lambda e: float(within_factor(e, 1.25).mean())),
    )
    if "algorithm" in frame:
        summary = summary.join(_choices(frame, keys))
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
