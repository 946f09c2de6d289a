"""The closed loop: each MPI library's MPI_Allreduce at its default, with the model's
selection and with this machine's clock's, timed on the same ranks and inputs.

The clock's selection comes from runs that force each of the library's algorithms through
its own variable: at every size the fastest, switching at the geometric middle between two
timed sizes. The same algorithm is timed twice, forced and through the clock's file, in
two launches: their difference is the run-to-run noise against which a gain is judged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..run.libraries import KINDS
from ..run.record import Record

SETTINGS = ("default", "model", "clock")  # what each library is timed with, besides forced
NOISE_QUANTILE = 0.9  # the noise a library's gains at one N are judged against: this
# quantile of |forced/clock - 1| over its sizes


def force_setting(algorithm: str) -> str:
    """The run setting that forces `algorithm`: 'force-ring'."""
    return f"force-{algorithm}"


def times(document: dict[str, Any]) -> dict[int, float]:
    """A bench document's MPI_Allreduce median time per vector length M."""
    found = {}
    for index, data in enumerate(document["records"]):
        record = Record.from_dict(data, f"records[{index}]")
        if not record.verified:
            raise ValueError(f"MPI_Allreduce at M={record.elements} gave a wrong sum")
        found[record.elements] = record.timing.time_median_s
    return found


def clock_selection(
    forced: Mapping[tuple[str, int, str], dict[int, float]], itemsize: int
) -> pd.DataFrame:
    """Per library and N, the size ranges of the fastest forced algorithm.

    forced: (library, N, algorithm) -> {M: median seconds}. Rows: library, ranks,
    min_bytes, max_bytes (inclusive; empty = any larger size), algorithm.
    """
    rows = []
    for library, ranks in sorted({(lib, n) for lib, n, _ in forced}):
        candidates = {a: t for (lib, n, a), t in forced.items() if (lib, n) == (library, ranks)}
        sizes = sorted(set.intersection(*(set(t) for t in candidates.values())))
        winners = [min(candidates, key=lambda a, m=m: candidates[a][m]) for m in sizes]
        low = 0
        for index, (size, winner) in enumerate(zip(sizes, winners, strict=True)):
            if index + 1 < len(sizes) and winners[index + 1] == winner:
                continue
            high = None
            if index + 1 < len(sizes):  # switch at the geometric middle of the two sizes
                high = int(math.sqrt(size * sizes[index + 1])) * itemsize
            rows.append({"library": library, "ranks": ranks, "min_bytes": low,
                         "max_bytes": high, "algorithm": winner})  # fmt: skip
            low = (high or 0) + 1
    columns = ["library", "ranks", "min_bytes", "max_bytes", "algorithm"]
    return pd.DataFrame(rows, columns=columns).astype({"max_bytes": "Int64"})


def named(selection: pd.DataFrame, ranks: int, nbytes: int) -> str | None:
    """The algorithm a selection names for N ranks and a message of nbytes (its rules for
    the largest N ≤ ranks, as the exported files apply them at the grid's N)."""
    at = selection[selection.ranks <= ranks]
    if at.empty:
        return None
    rows = at[at.ranks == at.ranks.max()]
    upper = rows.max_bytes.astype("Float64").fillna(math.inf)
    hit = rows[(rows.min_bytes <= nbytes) & (upper >= nbytes)]
    return hit.algorithm.iloc[0] if len(hit) else None


def tuned_vs_default(
    runs: Mapping[tuple[str, str, int], dict[int, float]],
    observed: Mapping[tuple[str, str, int], dict[int, list[str]]],
    selections: Mapping[str, pd.DataFrame],
    versions: Mapping[str, str],
    itemsize: int,
) -> pd.DataFrame:
    """One row per (library, N, M): the default, model and clock times, the speedups
    default/tuned, the algorithm each file names and the one the probe saw it run, the
    forced times, and the run-to-run noise (the clock run against the forced run of the
    same algorithm).

    runs: (library, setting, N) -> {M: seconds}; observed: (library, setting, N) ->
    {M: algorithms the probe saw}; selections: setting ('model', 'clock') -> the selection
    rows (with a library column for 'clock').
    """
    rows = []
    for library, ranks in sorted({(lib, n) for lib, s, n in runs if s == "default"}):
        forced = {s.removeprefix("force-"): t for (lib, s, n), t in runs.items()
                  if (lib, n) == (library, ranks) and s.startswith("force-")}  # fmt: skip
        default = runs[(library, "default", ranks)]
        for elements in sorted(default):
            nbytes = elements * itemsize
            row: dict[str, Any] = {
                "library": library, "version": versions.get(library, ""), "ranks": ranks,
                "elements": elements, "message_bytes": nbytes, "default_s": default[elements],
            }  # fmt: skip
            for setting in ("model", "clock"):
                table = selections[setting]
                if "library" in table:
                    table = table[table.library == library]
                seconds = runs.get((library, setting, ranks), {}).get(elements, math.nan)
                seen = observed.get((library, setting, ranks), {}).get(elements, [])
                row[f"{setting}_s"] = seconds
                row[f"{setting}_speedup"] = default[elements] / seconds
                row[f"{setting}_algorithm"] = named(table, ranks, nbytes)
                row[f"{setting}_observed"] = "|".join(seen)
                row[f"{setting}_obeyed"] = _obeyed(library, row[f"{setting}_algorithm"], seen)
            for algorithm, seconds in sorted(forced.items()):
                row[f"{algorithm}_s"] = seconds.get(elements, math.nan)
            same = forced.get(row["clock_algorithm"], {}).get(elements, math.nan)
            row["noise"] = abs(same / row["clock_s"] - 1)
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    limit = table.groupby(["library", "ranks"])["noise"].transform(
        lambda noise: noise.quantile(NOISE_QUANTILE)
    )
    table["noise_limit"] = limit
    table["clock_slower_than_noise"] = table.clock_speedup < 1 / (1 + table.noise_limit)
    return table


def _obeyed(library: str, named: str | None, seen: list[str]) -> bool | None:
    """Whether the probe saw the named algorithm; None where it cannot tell: no signature
    at this size, or an algorithm the library runs only where the probe's sum is not
    (its module's `unobservable`: MPICH's Rabenseifner, for built-in operations only)."""
    if not seen or named is None or named in KINDS[library].unobservable:
        return None
    return named in seen


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per library and N: the noise, the clock's and the model's median speedup over the
    sizes, how many sizes the probe could check and how many ran the named algorithm, and
    at how many sizes the clock's selection was slower than the default beyond the noise."""
    rows = []
    for (library, ranks), part in table.groupby(["library", "ranks"], sort=False):
        checked = part[["model_obeyed", "clock_obeyed"]].stack().dropna()
        rows.append({
            "library": KINDS[library].title, "ranks": int(ranks), "points": len(part),
            "noise": float(part.noise_limit.iloc[0]),
            "checked": len(checked), "obeyed": int(checked.astype(bool).sum()),
            "clock_median_speedup": float(np.nanmedian(part.clock_speedup)),
            "model_median_speedup": float(np.nanmedian(part.model_speedup)),
            "clock_slower_than_noise": int(part.clock_slower_than_noise.sum()),
        })  # fmt: skip
    return pd.DataFrame(rows)
