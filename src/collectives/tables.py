"""Aggregation: every run record into one table, and the seed's table checked."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .algorithms import variant_name
from .theory import COUNT_FIELDS

# The two rows of the seed post's table (algorithm, N, M, rounds, bytes), float64.
SEED_ROWS = [("ring", 8, 1024, 14, 114688), ("recursive_doubling", 8, 1024, 3, 196608)]

COLUMNS = [
    "algorithm", "ranks_per_node", "ranks", "elements", "dtype", "itemsize", "message_bytes",
    "seed", "data",
    *COUNT_FIELDS, *(f"theory_{f}" for f in COUNT_FIELDS), "matches_theory", "verified",
    "ranks_agree", "max_abs_error", "elements_reduced", "wall_seconds", "collective_seconds",
]  # fmt: skip


def record_path(results: str | Path, algorithm: str, ranks: int, elements: int, dtype: str) -> str:
    """Where the pipeline keeps one grid point's record (its trace sits beside it)."""
    return f"{results}/runs/{dtype}/{algorithm}/N{ranks}_M{elements}.json"


def record_paths(results: str | Path, table: pd.DataFrame) -> list[str]:
    """The records behind the rows of a measurements table."""
    return [
        record_path(results, row.algorithm, row.ranks, row.elements, row.dtype)
        for row in table.itertuples()
    ]


class RunCheckError(RuntimeError):
    """Some run did not verify or did not match theory."""


def load_records(paths: Iterable[str | Path]) -> list[dict]:
    """Read run records (the JSON written by `collectives measure`)."""
    return [json.loads(Path(path).read_text()) for path in paths]


def measurements_table(records: list[dict]) -> pd.DataFrame:
    """One row per run: grid point, measured counts, theory, and the checks.

    `algorithm` names the variant: a hierarchical run on nodes of 8 is 'hierarchical-G8'.
    """
    rows = []
    for record in records:
        row = {key: record[key] for key in COLUMNS if key in record}
        row["algorithm"] = variant_name(record["algorithm"], record.get("ranks_per_node"))
        row["message_bytes"] = record["elements"] * record["itemsize"]
        row.update({f"theory_{f}": record["theory"][f] for f in COUNT_FIELDS})
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


def seed_check_markdown(table: pd.DataFrame) -> str:
    """The seed's table for every run, with the seed's own two rows checked first."""
    lines = ["# The seed's table, measured", ""]
    lines += ["## The seed's rows (float64)", ""]
    lines += _markdown_header(
        ["algorithm", "N", "M", "rounds", "bytes (meas)", "bytes (seed)", "ok"]
    )
    for algorithm, n, m, rounds, nbytes in SEED_ROWS:
        match = table[
            (table.algorithm == algorithm)
            & (table.ranks == n)
            & (table.elements == m)
            & (table.dtype == "float64")
        ]
        if match.empty:
            lines.append(f"| {algorithm} | {n} | {m} | not in this grid | | {nbytes} | |")
            continue
        run = match.iloc[0]
        ok = run.rounds == rounds and run.bytes_total == nbytes
        lines.append(
            f"| {algorithm} | {n} | {m} | {run.rounds} | {run.bytes_total} | {nbytes} | "
            f"{'OK' if ok else 'MISMATCH'} |"
        )
    lines += ["", "## Every run", ""]
    lines += _markdown_header(
        ["algorithm", "dtype", "N", "M", "rounds", "bytes (meas)", "bytes (theory)", "ok"]
    )
    for run in table.itertuples():
        ok = run.verified and run.matches_theory
        lines.append(
            f"| {run.algorithm} | {run.dtype} | {run.ranks} | {run.elements} | {run.rounds} | "
            f"{run.bytes_total} | {run.theory_bytes_total} | {'OK' if ok else 'FAIL'} |"
        )
    return "\n".join(lines) + "\n"


def _markdown_header(names: list[str]) -> list[str]:
    return ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
