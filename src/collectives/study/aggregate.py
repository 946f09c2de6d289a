"""Aggregation: every run record into one table, and every timed run into another.

Every record is checked where it is read: its shape, and its counts against the closed form
recomputed here, whatever its own matches_theory says (check_record).
"""

from __future__ import annotations

import math
import sys
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..model.fabric import Fabric
from ..model.replay import replay
from ..model.theory import COUNT_FIELDS
from ..registry import parameters_by_name, variant_name
from ..run.bench import PEERS
from ..run.files import load_trace
from ..run.measure import UsageError, check_counts, validate
from ..run.record import Record, RecordError, read_record
from ..transport.trace import RECV, SEND, Trace


def measurement_columns() -> list[str]:
    """The columns of measurements.csv: the grid point (every algorithm parameter of the
    registry among them), the counts beside theory, the checks and the clocks."""
    return [
        "algorithm", *parameters_by_name(), "ranks", "elements", "dtype", "itemsize",
        "message_bytes", "seed", "data",
        *COUNT_FIELDS, *(f"theory_{f}" for f in COUNT_FIELDS), "matches_theory", "verified",
        "ranks_agree", "max_abs_error", "elements_reduced", "wall_seconds", "collective_seconds",
    ]  # fmt: skip


def replayed_runs(
    records: Sequence[str | Path], traces: Sequence[str | Path], fabric: Fabric
) -> list[dict[str, Any]]:
    """The replayed time of every run on one fabric (traces[i] is records[i]'s), as rows of
    (algorithm variant, ranks, elements, dtype, replayed_s); every record and trace is
    checked first (load_runs)."""
    return [
        {
            "algorithm": variant_name(record.algorithm, record.parameters),
            "ranks": record.ranks,
            "elements": record.elements,
            "dtype": record.dtype,
            "replayed_s": replay(trace, fabric),
        }
        for record, trace in load_runs(records, traces)
    ]


class RunCheckError(RuntimeError):
    """Some run did not verify or did not match theory."""


RERUN = "run the same snakemake command again to measure it anew"


class BadRecords(RecordError):
    """Some run records or traces cannot be used: one line each, naming the file and what
    is wrong."""


def load_records(paths: Iterable[str | Path]) -> list[Record]:
    """Every run record, each checked (check_record); see load_runs."""
    return [record for record, _ in load_runs(list(paths))]


def load_runs(
    records: Sequence[str | Path], traces: Sequence[str | Path] | None = None
) -> list[tuple[Record, Trace | None]]:
    """Every run record (check_record) with its trace checked against it (check_trace; None
    without `traces`). The bad files are removed, so that the next run of the pipeline
    measures them again, and BadRecords lists every one of them, a line each, also printed
    to the console (a pipeline job's stderr is its log)."""
    if traces is not None and len(traces) != len(records):
        raise ValueError(f"{len(records)} records but {len(traces)} traces")
    runs, bad = [], []
    for index, path in enumerate(records):
        try:
            record = check_record(path)
        except RecordError as exc:
            bad.append(("record", path, exc))
            continue
        if traces is None:
            runs.append((record, None))
            continue
        try:
            runs.append((record, check_trace(traces[index], record)))
        except RecordError as exc:
            bad.append(("trace", traces[index], exc))
    if bad:
        message = "\n".join(f"bad {kind} {exc}; {_remove(path)}{RERUN}" for kind, path, exc in bad)
        print(message, file=sys.__stderr__, flush=True)
        raise BadRecords(message)
    return runs


def _remove(path: str | Path) -> str:
    """Remove a bad record or trace; 'removed it: ', or '' if it is gone already (a job
    reading the same files at the same time found it first)."""
    try:
        Path(path).unlink()
    except FileNotFoundError:
        return ""
    return "removed it: "


def check_trace(path: str | Path, record: Record) -> Trace:
    """A run's message trace, read and checked against its (checked) record (trace_problems);
    RecordError names the file and everything wrong with it in one line."""
    try:
        trace = load_trace(path)
    except FileNotFoundError:
        raise RecordError(f"{path}: missing") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise RecordError(f"{path}: not a readable trace ({exc})") from None
    problems = trace_problems(trace, record)
    if problems:
        raise RecordError(f"{path}: {'; '.join(problems)}")
    return trace


def trace_problems(trace: Trace, record: Record) -> list[str]:
    """How a trace disagrees with its record: its shape, or the messages and bytes it holds
    against the record's counts (messages, bytes_sent and bytes_recv of every rank)."""
    events = len(trace.kind)
    offsets = np.asarray(trace.offsets)
    if trace.ranks != record.ranks:
        return [f"{trace.ranks} ranks, the record has {record.ranks}"]
    if not (len(trace.peer) == len(trace.amount) == events and offsets[0] == 0
            and offsets[-1] == events and np.all(np.diff(offsets) >= 0)):  # fmt: skip
        return ["its columns and per-rank offsets do not fit together"]
    rank = np.repeat(np.arange(trace.ranks), np.diff(offsets))
    problems = []
    for kind, name, counted in (
        (SEND, "sent", record.bytes_sent),
        (RECV, "received", record.bytes_recv),
    ):
        mine = trace.kind == kind
        if int(mine.sum()) != record.messages:
            problems.append(f"{int(mine.sum())} messages {name}, the record counts "
                            f"{record.messages}")  # fmt: skip
        per_rank = np.bincount(rank[mine], weights=trace.amount[mine], minlength=trace.ranks)
        if per_rank.astype(np.int64).tolist() != list(counted or []):
            problems.append(f"bytes {name} per rank differ from the record's")
    return problems


def check_record(path: str | Path) -> Record:
    """One run record, read (its version, keys and types) and checked (record_problems);
    RecordError names the file and everything wrong with it in one line."""
    record = read_record(path)
    problems = record_problems(record)
    if problems:
        raise RecordError(f"{path}: {'; '.join(problems)}")
    return record


def record_problems(record: Record) -> list[str]:
    """What makes a well-formed record unfit for the study: a library's run, an unverified
    one, a request no run could have made, per-rank bytes that do not add up, or counts (per
    link class too) other than the closed form recomputed here, whatever matches_theory says."""
    if record.library:
        return ["a library's timed run, not a measured one"]
    try:
        dtype, parameters = validate(record.algorithm, record.ranks, record.elements,
                                     record.dtype, record.data, record.parameters)  # fmt: skip
    except UsageError as exc:
        return [str(exc)]
    if parameters != record.parameters:
        return [f"parameters {record.parameters}, but the run's are {parameters}"]
    problems = [] if record.verified else ["verified is false"]
    if record.itemsize != dtype.itemsize:
        problems.append(f"itemsize {record.itemsize}, but {record.dtype} has {dtype.itemsize}")
    classes = record.link_classes or {}
    checked = check_counts(
        record.algorithm, {f: getattr(record, f) for f in COUNT_FIELDS}, record.ranks,
        record.elements, dtype.itemsize, parameters, classes.get("measured"),
    )  # fmt: skip
    differ = [
        f"{field} {measured}, theory {value}"
        for field, (measured, value) in checked.mismatches.items()
        if "." not in field
    ]
    if record.theory != checked.theory.as_dict():
        problems.append(f"theory {record.theory}, not the closed form {checked.theory.as_dict()}")
    if checked.by_class is not None:
        if classes.get("theory") != checked.by_class:
            problems.append("link_classes.theory is not the closed form")
        if classes.get("measured") != checked.by_class:
            differ.append(
                f"link_classes.measured {classes.get('measured')}, theory {checked.by_class}"
            )
    problems += _per_rank_problems(record)
    if differ and record.matches_theory:
        differ[-1] += " (yet matches_theory is true)"
    elif not differ and not record.matches_theory:
        problems.append("matches_theory is not true, yet every count equals theory")
    return differ + problems


def _per_rank_problems(record: Record) -> list[str]:
    """Whether bytes_sent and bytes_recv list every rank and add up to bytes_total, their
    busiest rank's sum to hotspot_bytes."""
    sent, received = record.bytes_sent, record.bytes_recv
    if sent is None or received is None or not len(sent) == len(received) == record.ranks:
        return [f"bytes_sent and bytes_recv must list all {record.ranks} ranks"]
    busiest = max(s + r for s, r in zip(sent, received, strict=True))
    sums = (sum(sent), sum(received), busiest)
    if sums != (record.bytes_total, record.bytes_total, record.hotspot_bytes):
        return ["bytes_sent and bytes_recv do not add up to bytes_total and hotspot_bytes"]
    return []


def measurements_table(records: list[Record]) -> pd.DataFrame:
    """One row per run: grid point, measured counts, theory, and the checks.

    `algorithm` names the variant: a hierarchical run on nodes of 8 is 'hierarchical-G8'.
    """
    columns = measurement_columns()
    rows = []
    for record in records:
        data = record.to_dict()
        row = {key: data[key] for key in columns if key in data} | record.parameters
        row["algorithm"] = variant_name(record.algorithm, record.parameters)
        row.update({f"theory_{f}": record.theory[f] for f in COUNT_FIELDS})
        rows.append(row)
    table = pd.DataFrame(rows, columns=columns)
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
    "matches_theory", "verified", "iterations", "launches", "low_s", "high_s", "cores",
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
