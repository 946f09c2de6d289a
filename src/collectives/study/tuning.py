"""The closed loop: each MPI library's MPI_Allreduce at its default, with the model's
selection and with this machine's clock's, timed on the same ranks and inputs.

The clock's selection comes from runs that force each of the library's algorithms through
its own variable, and from a run of its own choice (DEFAULT, a candidate wherever its
selection file can leave a size range to it); a library that can change its algorithm at
run time times them all in one launch of turns (FORCED), which its probe shows ran each.
At every size the fastest wins, switching at the geometric middle between two timed sizes.
A speedup (the default's median time over the tuned run's) carries its 90% interval, each
run's launches and their blocks resampled (run.timing.ratio_interval): a tuned run is
slower or faster than the default only where the whole interval says so, so that a launch
that ran in another mode of the machine decides nothing alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..run.bench import switched_algorithm
from ..run.libraries import DEFAULT, KINDS, common_algorithms
from ..run.record import Record, Timing
from ..run.timing import ratio_interval

SETTINGS = ("default", "model", "clock")  # what each library is timed with, besides forced
FORCED = "forced"  # every forced algorithm in one launch, switched at run time


FORCE_PREFIX = "force-"  # a setting that forces one algorithm: 'force-ring'


def force_setting(algorithm: str) -> str:
    """The run setting that forces `algorithm`: 'force-ring'."""
    return f"{FORCE_PREFIX}{algorithm}"


def forced_pattern() -> str:
    """The regular expression of a forced run's setting: FORCED or a forced algorithm's."""
    return f"{FORCED}|{FORCE_PREFIX}[a-z_]+"


def setting_pattern() -> str:
    """The regular expression of every setting's name: the compared ones and the forced
    (the `setting` wildcard of results/tuning/)."""
    return "|".join([*SETTINGS, forced_pattern()])


def forced_algorithm(setting: str) -> str | None:
    """The algorithm a setting forces ('force-ring' -> 'ring'); None for any other."""
    return setting.removeprefix(FORCE_PREFIX) if setting.startswith(FORCE_PREFIX) else None


def forced_algorithms(
    algorithms: Sequence[str], libraries: Sequence[str], library: str
) -> list[str]:
    """The clock's candidates for `library`: each of `algorithms` every library of
    `libraries` has, and its own choice where its selection file can leave a size range
    to it (DEFAULT)."""
    common = common_algorithms(algorithms, libraries)
    return [*common, *([DEFAULT] if KINDS[library].default_ranges else [])]


def forced_settings(algorithms: Sequence[str], libraries: Sequence[str], library: str) -> list[str]:
    """`library`'s forced runs: one launch switching among its forced algorithms where it
    can change its algorithm at run time (FORCED), else a launch forcing each."""
    if KINDS[library].switch:
        return [FORCED]
    return [force_setting(a) for a in forced_algorithms(algorithms, libraries, library)]


def tuning_keys(
    algorithms: Sequence[str],
    libraries: Sequence[str],
    ranks: Sequence[int],
    settings: Sequence[str] | None = None,
) -> list[tuple[str, str, int]]:
    """Every timed (library, setting, N) of the tuning at the libraries' `ranks`; FORCED in
    `settings` (default: every setting and FORCED) stands for each library's forced runs."""
    return [
        (library, setting, n)
        for library in libraries
        for named in settings or [*SETTINGS, FORCED]
        for setting in (
            forced_settings(algorithms, libraries, library) if named == FORCED else [named]
        )
        for n in ranks
    ]


def switch_option(
    algorithms: Sequence[str], libraries: Sequence[str], library: str, setting: str
) -> str:
    """`collectives bench`'s `--switch` for a FORCED run: the forced algorithms, in turns;
    nothing for any other setting."""
    if setting != FORCED:
        return ""
    return f"--switch {','.join(forced_algorithms(algorithms, libraries, library))}"


def setting_options(setting: str, selection: Sequence[str] | None) -> str:
    """`collectives mpiexec`'s options for a setting: a FORCED run starts at the library's
    own choice, which the switch changes; a forced setting forces its algorithm; a tuned
    run loads its selection file (the first of `selection`, its companions beside it)."""
    if setting == FORCED:
        return f"--force {DEFAULT}"
    if forced_algorithm(setting):
        return f"--force {forced_algorithm(setting)}"
    if setting in ("model", "clock"):
        if not selection:
            raise ValueError(f"a {setting} run needs its selection file")
        return f"--selection {selection[0]}"
    return ""


def _verified_records(document: dict[str, Any]) -> list[Record]:
    """A bench document's records; ValueError at the first wrong sum."""
    records = [Record.from_dict(data, f"records[{index}]")
               for index, data in enumerate(document["records"])]  # fmt: skip
    for record in records:
        if not record.verified:
            raise ValueError(f"{record.algorithm} at M={record.elements} gave a wrong sum")
    return records


def timings(document: dict[str, Any]) -> dict[int, Timing]:
    """A bench document's MPI_Allreduce timing per vector length M."""
    return {record.elements: record.timing for record in _verified_records(document)}


def setting_timings(setting: str, document: dict[str, Any]) -> dict[str, dict[int, Timing]]:
    """A run's timings per vector length, by setting: a FORCED run's switched entries as
    the forced settings they stand for (force-ring, ...), any other run's as its own."""
    if setting != FORCED:
        return {setting: timings(document)}
    found: dict[str, dict[int, Timing]] = {}
    for record in _verified_records(document):
        algorithm = switched_algorithm(record.algorithm)
        if algorithm is None:
            raise ValueError(f"a forced run holds {record.algorithm}, not a switched entry")
        found.setdefault(force_setting(algorithm), {})[record.elements] = record.timing
    return found


def setting_observed(setting: str, document: dict[str, Any]) -> dict[str, dict[int, list[str]]]:
    """A probe's algorithms seen per vector length, by setting (as setting_timings);
    ValueError at a wrong sum."""
    found: dict[str, dict[int, list[str]]] = {}
    for size in document["sizes"]:
        named = force_setting(size["switched"]) if setting == FORCED else setting
        if not size["verified"]:
            raise ValueError(f"a wrong sum under {named} at M={size['elements']}")
        found.setdefault(named, {})[size["elements"]] = size["algorithms"]
    return found


def disobeyed(
    library: str, observed: Mapping[str, dict[int, list[str]]]
) -> list[tuple[str, int, list[str]]]:
    """Where a forced setting's probe saw another algorithm run than the one it forces
    (Intel MPI runs recursive doubling when asked for Rabenseifner at N = 2): (setting, M,
    what ran); nothing where the probe cannot tell."""
    return [
        (setting, elements, seen)
        for setting, sizes in observed.items()
        for elements, seen in sizes.items()
        if _obeyed(library, forced_algorithm(setting) or setting, seen) is False
    ]


def clock_selection(
    forced: Mapping[tuple[str, int, str], dict[int, float]], itemsize: int
) -> pd.DataFrame:
    """Per library and N, the size ranges of the fastest forced algorithm.

    forced: (library, N, algorithm) -> {M: median seconds}; an algorithm missing at a size
    (one the library did not run there) is no candidate at it. Rows: library, ranks,
    min_bytes, max_bytes (inclusive; empty = any larger size), algorithm.
    """
    rows = []
    for library, ranks in sorted({(lib, n) for lib, n, _ in forced}):
        candidates = {a: t for (lib, n, a), t in forced.items() if (lib, n) == (library, ranks)}
        sizes = sorted(set.union(*(set(t) for t in candidates.values())))
        winners = [
            min((a for a in candidates if m in candidates[a]), key=lambda a, m=m: candidates[a][m])
            for m in sizes
        ]
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
    runs: Mapping[tuple[str, str, int], dict[int, Timing]],
    observed: Mapping[tuple[str, str, int], dict[int, list[str]]],
    selections: Mapping[str, pd.DataFrame],
    versions: Mapping[str, str],
    itemsize: int,
) -> pd.DataFrame:
    """One row per (library, N, M): the default, model and clock times, the speedups
    default/tuned with their intervals and whether the tuned run was slower or faster
    beyond them, the algorithm each file names and the one the probe saw it run, and the
    forced times.

    runs: (library, setting, N) -> {M: timing}; observed: (library, setting, N) ->
    {M: algorithms the probe saw}; selections: setting ('model', 'clock') -> the selection
    rows, with a library column.
    """
    rows = []
    for library, ranks in sorted({(lib, n) for lib, s, n in runs if s == "default"}):
        forced = {forced_algorithm(s): t for (lib, s, n), t in runs.items()
                  if (lib, n) == (library, ranks) and forced_algorithm(s)}  # fmt: skip
        default = runs[(library, "default", ranks)]
        for elements in sorted(default):
            nbytes, base = elements * itemsize, default[elements]
            row: dict[str, Any] = {
                "library": library, "version": versions.get(library, ""), "ranks": ranks,
                "elements": elements, "message_bytes": nbytes, "default_s": base.time_median_s,
            }  # fmt: skip
            for setting in ("model", "clock"):
                table = selections[setting]
                table = table[table.library == library]
                tuned = runs.get((library, setting, ranks), {}).get(elements)
                speedup = (math.nan,) * 3
                if tuned is not None:
                    speedup = ratio_interval(
                        *((t.times_s, t.blocks, t.launch_blocks) for t in (base, tuned))
                    )
                seen = observed.get((library, setting, ranks), {}).get(elements, [])
                row[f"{setting}_s"] = tuned.time_median_s if tuned else math.nan
                row[f"{setting}_speedup"], low, high = speedup
                row[f"{setting}_speedup_low"], row[f"{setting}_speedup_high"] = low, high
                row[f"{setting}_slower"] = high < 1  # beyond the interval
                row[f"{setting}_faster"] = low > 1
                row[f"{setting}_algorithm"] = named(table, ranks, nbytes)
                row[f"{setting}_observed"] = "|".join(seen)
                row[f"{setting}_obeyed"] = _obeyed(library, row[f"{setting}_algorithm"], seen)
            for algorithm, timing in sorted(forced.items()):
                if algorithm != DEFAULT:  # the default's own run beside the tuned: default_s
                    run = timing.get(elements)
                    row[f"{algorithm}_s"] = run.time_median_s if run else math.nan
            rows.append(row)
    return pd.DataFrame(rows)


def _obeyed(library: str, named: str | None, seen: list[str]) -> bool | None:
    """Whether the probe saw the named algorithm; None where it cannot tell: no signature
    at this size, a range left to the library's own choice, or an algorithm the library
    runs only where the probe's sum is not (its module's `unobservable`: MPICH's
    Rabenseifner, for built-in operations only)."""
    if not seen or named in (None, DEFAULT) or named in KINDS[library].unobservable:
        return None
    return named in seen


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per library and N: each selection's median speedup over the sizes, at how many sizes
    it was slower and faster than the default beyond the interval, and how many sizes the
    probe could check and how many ran the named algorithm."""
    rows = []
    for (library, ranks), part in table.groupby(["library", "ranks"], sort=False):
        checked = part[["model_obeyed", "clock_obeyed"]].stack().dropna()
        row = {"library": KINDS[library].title, "ranks": int(ranks), "points": len(part),
               "checked": len(checked), "obeyed": int(checked.astype(bool).sum())}  # fmt: skip
        for setting in ("clock", "model"):
            row[f"{setting}_median_speedup"] = float(np.nanmedian(part[f"{setting}_speedup"]))
            row[f"{setting}_slower"] = int(part[f"{setting}_slower"].sum())
            row[f"{setting}_faster"] = int(part[f"{setting}_faster"].sum())
        rows.append(row)
    return pd.DataFrame(rows)
