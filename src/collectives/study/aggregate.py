"""Aggregation: every run record into one table, and every timed run into another."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..model.fabric import Fabric
from ..model.replay import replay
from ..model.theory import COUNT_FIELDS
from ..registry import variant_name
from ..run.bench import PEERS
from ..run.files import load_trace
from ..run.record import Record, read_record

COLUMNS = [
    "algorithm", "ranks_per_node", "ranks", "elements", "dtype", "itemsize", "message_bytes",
    "seed", "data",
    *COUNT_FIELDS, *(f"theory_{f}" for f in COUNT_FIELDS), "matches_theory", "verified",
    "ranks_agree", "max_abs_error", "elements_reduced", "wall_seconds", "collective_seconds",
]  # fmt: skip


def replayed_runs(
    records: Sequence[str | Path], traces: Sequence[str | Path], fabric: Fabric
) -> list[dict[str, Any]]:
    """The replayed time of every run on one fabric (traces[i] is records[i]'s), as rows of
    (algorithm variant, ranks, elements, dtype, replayed_s)."""
    rows = []
    for record_path, trace_path in zip(records, traces, strict=True):
        record = read_record(record_path)
        rows.append(
            {
                "algorithm": variant_name(record.algorithm, record.ranks_per_node),
                "ranks": record.ranks,
                "elements": record.elements,
                "dtype": record.dtype,
                "replayed_s": replay(load_trace(trace_path), fabric),
            }
        )
    return rows


class RunCheckError(RuntimeError):
    """Some run did not verify or did not match theory."""


def load_records(paths: Iterable[str | Path]) -> list[Record]:
    """Read run records (RecordError names a file that cannot be used)."""
    return [read_record(path) for path in paths]


def measurements_table(records: list[Record]) -> pd.DataFrame:
    """One row per run: grid point, measured counts, theory, and the checks.

    `algorithm` names the variant: a hierarchical run on nodes of 8 is 'hierarchical-G8'.
    """
    rows = []
    for record in records:
        data = record.to_dict()
        row = {key: data[key] for key in COLUMNS if key in data}
        row["algorithm"] = variant_name(record.algorithm, record.ranks_per_node)
        row.update({f"theory_{f}": record.theory[f] for f in COUNT_FIELDS})
        rows.append(row)
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.sort_values(["dtype", "algorithm", "ranks", "elements"], ignore_index=True)


def check_runs(table: pd.DataFrame) -> None:
    """Raise RunCheckError listing every run that did not verify or match theory."""
    bad = table[~(table["verified"] & table["matches_theory"])]
    if len(bad):
        listed = "; ".join(
            f"{r.algorithm} N={r.ranks} M={r.elements} {r.dtype} "
            f"(verified={r.verified}, matches_theory={r.matches_theory})"
            for r in bad.itertuples()
        )
        raise RunCheckError(f"{len(bad)} run(s) failed their checks: {listed}")


WALLCLOCK_COLUMNS = [
    "transport", "algorithm", "library", "ranks", "elements", "dtype", "message_bytes",
    "time_median_s", "time_min_s", "algbw_GBps", "busbw_GBps", *COUNT_FIELDS,
    "matches_theory", "verified", "iterations", "cores",
]  # fmt: skip


def wallclock_table(
    documents: dict[str, dict[str, Any]], peers: dict[str, str] | None = None
) -> pd.DataFrame:
    """Every timed record of every bench document (by file name), one row each, with each
    of our algorithms' time relative to the library all-reduces timed on the same ranks.
    peers: documents of another MPI library's runs -> the name its MPI_Allreduce takes."""
    rows = []
    for source, document in documents.items():
        for index, data in enumerate(document["records"]):
            record = Record.from_dict(data, f"{source}: records[{index}]").to_dict()
            if source in (peers or {}):
                record["algorithm"] = peers[source]
            timing = record.pop("timing")
            cores = record["versions"].get("cores")  # where the timed ranks ran
            fields = {**record, **timing, "cores": int(cores) if cores else None}
            row = {key: fields[key] for key in WALLCLOCK_COLUMNS}
            rows.append(row)
    table = pd.DataFrame(rows, columns=WALLCLOCK_COLUMNS)
    point = ["transport", "ranks", "elements", "dtype"]
    for short, peer in PEERS.items():
        times = table[table.algorithm == peer].set_index(point)["time_median_s"]
        peer_time = table.set_index(point).index.map(times.to_dict().get)
        ratio = table["time_median_s"].to_numpy() / np.asarray(peer_time, dtype=float)
        table[f"ratio_to_{short}"] = np.where(table.library, math.nan, ratio)
    return table
