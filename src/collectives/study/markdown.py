"""The study's Markdown tables: the seed's table checked, the cost shape, the libraries."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import registry
from ..model.cost import BASIS
from ..model.library_rules import MPICH_SHORT_MSG_SIZE
from ..model.theory import COUNT_FIELDS
from ..run.libraries import KINDS
from .selection import REASONS, Agreement

# The two rows of the seed post's table (algorithm, N, M, rounds, bytes), float64.
SEED_ROWS = [("ring", 8, 1024, 14, 114688), ("recursive_doubling", 8, 1024, 3, 196608)]


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
    for run in table.itertuples():  # the counts against theory, not matches_theory
        ok = run.verified and all(
            getattr(run, f) == getattr(run, f"theory_{f}") for f in COUNT_FIELDS
        )
        lines.append(
            f"| {run.algorithm} | {run.dtype} | {run.ranks} | {run.elements} | {run.rounds} | "
            f"{run.bytes_total} | {run.theory_bytes_total} | {'OK' if ok else 'FAIL'} |"
        )
    return "\n".join(lines) + "\n"


def _markdown_header(names: list[str]) -> list[str]:
    return ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]


def formula(row: pd.Series, digits: int = 3) -> str:
    """A fitted row as a readable expression in N, dropping terms that vanish."""
    terms = []
    for name in BASIS:
        value = row[f"c[{name}]"]
        if not np.isfinite(value):
            return "underdetermined (too few distinct N in the regime)"
        if abs(value) < 10 ** (-digits):
            continue
        magnitude = f"{abs(value):.{digits}f}"
        body = (
            magnitude
            if name == "1"
            else f"{magnitude}/N"
            if name == "1/N"
            else f"{magnitude} {name}"
        )
        terms.append(("- " if value < 0 else "+ ") + body)
    text = " ".join(terms) or "0"
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def cost_model_markdown(shape: pd.DataFrame) -> str:
    """The recovered coefficients (cost.cost_shape) next to the textbook forms."""
    lines = [
        "# Cost model recovered from the measured counts",
        "",
        "T(N, M) = rounds(N) * alpha + bandwidth(N) * M * s * beta, where rounds(N) and",
        "bandwidth(N) = bytes_critical / (M s) are least-squares fits of the measured counts on",
        "{1, N, 1/N, log2 N} over the grid points with N a power of two dividing M.",
        "",
        "| algorithm | dtype | quantity | textbook | recovered from measurements "
        "| max abs residual | points |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, row in shape.iterrows():
        cost = registry.get(row.algorithm).cost
        textbook = cost.latency if row.quantity == "rounds" else cost.bandwidth
        lines.append(
            f"| {row.algorithm} | {row['dtype']} | {row.quantity} | {textbook} | "
            f"{formula(row)} | {row.max_abs_residual:.2g} | {row.points} |"
        )
    return "\n".join(lines) + "\n"


def libraries_markdown(agreement: Agreement, dtype: str) -> str:
    """The model's selection beside each library's published decision
    (selection.library_agreement: a pair of columns per library that has one)."""
    decided = [name for name in KINDS if f"{name}_agree" in agreement.rows]
    titles = [f"{KINDS[name].title} ({KINDS[name].decision})" for name in decided]
    lines = [
        "# The model's selection beside " + " and ".join(KINDS[n].title for n in decided),
        "",
        f"Thresholds in bytes; `RD` is recursive doubling; every rule in our algorithms' names "
        f"(Open MPI's segmented ring is a ring, its nonoverlapping reduce + bcast a binomial "
        f"tree). Agreement counts the grid's message sizes ({dtype}) where the library picks "
        f"the model's cheapest algorithm. mpich-classic: RD up to "
        f"MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = {MPICH_SHORT_MSG_SIZE} bytes (or while there are "
        "fewer elements than the largest power of two <= N), Rabenseifner above. openmpi-4.1: "
        "the fixed decision of coll_tuned_decision_fixed.c for commutative ops, with the "
        "fallbacks of its algorithms (a ring with fewer elements than ranks runs RD).",
        "",
    ]
    for fabric, rows in agreement.rows.groupby("fabric", sort=False):
        lines += [
            f"## {fabric}" + (" (two-level: replayed)" if rows.structured.iloc[0] else ""),
            "",
            "| N | model | " + " | ".join(f"{title} | agree" for title in titles) + " |",
            "|---|---|" + "---|---|" * len(titles),
        ]
        for row in rows.to_dict("records"):
            cells = [f"{row[name]} | {row[f'{name}_agree']}/{row['sizes']}" for name in decided]
            lines.append(f"| {row['ranks']} | {row['model']} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Why they disagree", "", "| cause | grid points | explanation |", "|---|---|---|"]
    for reason, count in sorted(agreement.causes.items(), key=lambda item: -item[1]):
        lines.append(f"| {reason} | {count} | {REASONS[reason].text} |")
    return "\n".join(lines) + "\n"


def tuning_markdown(summary: pd.DataFrame) -> str:
    """What each library's MPI_Allreduce gains from our selections (tuning.summary)."""
    lines = [
        "# MPI_Allreduce tuned by our selections, against each library's default",
        "",
        "Speedup = the default's median time / the tuned run's, median over the timed sizes. "
        "Slower and faster: sizes where the tuned run lost to, or beat, the default beyond the "
        "speedup's 90% interval (each run's launches, then their blocks, resampled). Obeyed: "
        "tuned runs at sizes where the probe can tell that ran the algorithm their file names.",
        "",
        "| library | N | sizes | obeyed | clock: speedup | slower | faster "
        "| model: speedup | slower | faster |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in summary.itertuples():
        lines.append(
            f"| {row.library} | {row.ranks} | {row.points} | {row.obeyed}/{row.checked} | "
            f"{row.clock_median_speedup:.2f}x | {row.clock_slower} | {row.clock_faster} | "
            f"{row.model_median_speedup:.2f}x | {row.model_slower} | {row.model_faster} |"
        )
    return "\n".join(lines) + "\n"
