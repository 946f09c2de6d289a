"""Where the pipeline's time goes: every job's Snakemake benchmark, summed per rule."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLUMNS = ["rule", "jobs", "total_s", "median_s", "max_s", "share", "peak_rss_mb"]


def pipeline_timing(benchmarks: str | Path) -> pd.DataFrame:
    """Per rule: jobs, total, median and longest wall seconds, share of the summed time and
    the largest resident set, from the benchmark files under `benchmarks` (each job's
    latest run), the costliest rule first."""
    root = Path(benchmarks)
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        rule = path.relative_to(root).parts[0].removesuffix(".tsv")
        job = pd.read_csv(path, sep="\t")
        if job.empty:
            continue
        last = job.iloc[-1]  # each job's latest run
        rss = pd.to_numeric(last["max_rss"], errors="coerce")  # "-" where not measured
        rows.append({"rule": rule, "seconds": float(last["s"]), "rss_mb": rss})
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    jobs = pd.DataFrame(rows).groupby("rule")
    table = pd.DataFrame(
        {
            "jobs": jobs.size(),
            "total_s": jobs.seconds.sum(),
            "median_s": jobs.seconds.median(),
            "max_s": jobs.seconds.max(),
            "peak_rss_mb": jobs.rss_mb.max(),
        }
    ).reset_index()
    table["share"] = table.total_s / table.total_s.sum()
    return table.sort_values("total_s", ascending=False)[COLUMNS].round(3)


def timing_line(table: pd.DataFrame) -> str:
    """One sentence for the report: the jobs, their summed time, the costliest rules."""
    if table.empty:
        return "No job has a benchmark file yet."
    top = ", ".join(
        f"{row.rule} {row.share:.0%} ({row.jobs} jobs)" for row in table.head(3).itertuples()
    )
    return (
        f"{int(table.jobs.sum())} jobs took {table.total_s.sum():.1f} s of job time"
        f" (summed, not wall time); most went to {top}."
    )
