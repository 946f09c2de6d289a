"""Selection tables: which algorithm for which message size, as a library would load it.

From the modeled times, per fabric and N, the message-size thresholds at which the best
algorithm changes; exported in MPICH's collective-selection JSON (the file read through
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), read back, and set beside the rules MPICH and
Open MPI ship.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import registry
from ..model import cost
from ..model.library_rules import INF, library_choice, rule_of, steps
from ..run import libraries
from ..run.libraries import DEFAULT, KINDS, common_algorithms
from ..run.libraries.kind import Trees
from .units import format_bytes


def selection_table(
    fabrics: pd.DataFrame, costs: pd.DataFrame, dtype: str, libraries: Sequence[str]
) -> pd.DataFrame:
    """Per fabric and N, the size ranges of the cheapest algorithm every library has.

    Rows: fabric, ranks, min_bytes, max_bytes (inclusive; empty = any larger size),
    algorithm; thresholds interpolated between grid sizes (cost.winner_ranges).
    """
    costs = costs[costs.dtype == dtype]
    candidates = cost.among(costs, common_algorithms(dict.fromkeys(costs.algorithm), libraries))
    rows = []
    for fabric in fabrics.fabric:
        for ranks, group in candidates[candidates.fabric == fabric].groupby("ranks"):
            for low, high, algorithm in cost.ranges(group):
                first = math.ceil(low)
                last = math.ceil(high) - 1 if math.isfinite(high) else None
                if last is not None and last < first:
                    continue  # no whole byte count falls in this range
                rows.append({"fabric": fabric, "ranks": ranks, "min_bytes": first,
                             "max_bytes": last, "algorithm": algorithm})  # fmt: skip
    columns = ["fabric", "ranks", "min_bytes", "max_bytes", "algorithm"]
    return pd.DataFrame(rows, columns=columns).astype({"max_bytes": "Int64"})


def _by_ranks(selection: pd.DataFrame):
    """(N, [(min_bytes, max_bytes or None, algorithm), ...]) in order of N and size."""
    for ranks, rows in selection.sort_values(["ranks", "min_bytes"]).groupby("ranks"):
        yield (
            int(ranks),
            [
                (int(r.min_bytes), None if pd.isna(r.max_bytes) else int(r.max_bytes), r.algorithm)
                for r in rows.itertuples()
            ],
        )


def leave_to_library(selection: pd.DataFrame, rule: str | None, itemsize: int) -> pd.DataFrame:
    """The model's selection for one library: where the library's own rule (library_rules;
    None: unknown) already runs the model's algorithm, or one the model cannot tell from
    it (the same counts there), the size is left to the library (DEFAULT). The model then
    overrides a library only where it prices another algorithm cheaper than the library's
    own. Judged at each row's N, as the selection itself is (its rules hold up to the next
    N)."""
    if rule is None:
        return selection
    rows = []
    for row in selection.itertuples(index=False):
        last = math.inf if pd.isna(row.max_bytes) else int(row.max_bytes)
        edges = [s for s in steps(row.ranks, itemsize) if row.min_bytes < s <= last]
        for low, high in zip([row.min_bytes, *edges], [*(e - 1 for e in edges), last],
                             strict=True):  # fmt: skip
            alike = _alike(rule, row.ranks, low, row.algorithm, itemsize)
            name = DEFAULT if alike else row.algorithm
            previous = rows[-1] if rows else {}
            if (previous.get("algorithm") == name and previous.get("max_bytes") == low - 1
                    and previous.get("ranks") == row.ranks
                    and previous.get("fabric") == getattr(row, "fabric", None)):  # fmt: skip
                previous["max_bytes"] = high  # the same choice goes on
                continue
            rows.append({**row._asdict(), "min_bytes": low, "max_bytes": high, "algorithm": name})
    table = pd.DataFrame(rows, columns=selection.columns)
    table["max_bytes"] = table.max_bytes.map(lambda b: pd.NA if b == math.inf else int(b))
    return table.astype({"max_bytes": "Int64"})


def own_rules(descriptors: Sequence[str | Path]) -> dict[str, str | None]:
    """Each installed library's own rule (library_rules.rule_of), by its name (the stem of
    its descriptor, resources/mpi/{name}.json)."""
    rules = {}
    for path in descriptors:
        library = libraries.load(path)
        rules[Path(path).stem] = rule_of(library.kind, library.version)
    return rules


def _alike(rule: str, ranks: int, nbytes: int, algorithm: str, itemsize: int) -> bool:
    """Whether the library's rule runs `algorithm` at this size, or one with its counts."""
    elements = max(1, -(-nbytes // itemsize))  # the first whole vector at or above nbytes
    ran = library_choice(rule, ranks, elements * itemsize, itemsize)
    if ran == algorithm:
        return True
    if ran not in registry.ALGORITHMS:
        return False
    counts = (registry.get(a).predict(ranks, elements, itemsize) for a in (ran, algorithm))
    return next(counts) == next(counts)


def export(library: str, selection: pd.DataFrame, mpich_trees: Trees | None) -> dict[str, str]:
    """One fabric's selection in the files `library` loads, by suffix (its module's
    exporters); MPICH's keep the installed MPICH's trees (mpich_trees) for everything
    else."""
    return KINDS[library].exports(list(_by_ranks(selection)), mpich_trees)


@dataclass(frozen=True)
class Reason:
    """One reason the model's choice can differ from a library's, and where it holds:
    holds(ours, theirs named as ours, N, on a structured fabric)."""

    text: str
    holds: Callable[[str, str, int, bool], bool]


def _power_of_two(ranks: int) -> bool:
    return ranks & (ranks - 1) == 0


DOUBLING_PAIR = {"recursive_doubling", "rabenseifner"}
# Why the model's choice differs from a library's: the first reason that holds, in order.
REASONS: dict[str, Reason] = {
    "structure": Reason(
        "on a two-level fabric the replay sees node boundaries and shared NICs that a flat "
        "rule ignores",
        lambda ours, _, ranks, structured: (
            structured
            and (
                ours in ("binomial_tree", "hierarchical")
                or (ours == "ring" and _power_of_two(ranks))
            )
        ),
    ),
    "arithmetic": Reason(
        "at N < 4 recursive doubling and Rabenseifner move the same bytes and recursive "
        "doubling takes fewer rounds, so the model never leaves it; the library also sees "
        "recursive doubling add the whole vector on every rank (Rabenseifner adds 1/N of "
        "it) and switches for large messages; the model prices arithmetic only on fabrics "
        "that set gamma",
        lambda ours, theirs, ranks, _: {ours, theirs} == DOUBLING_PAIR and ranks < 4,
    ),
    "threshold": Reason(
        "both pick between recursive doubling and Rabenseifner but switch at a different "
        "size: the model from this fabric's alpha and beta, the library from the clusters "
        "it was tuned on (MPICH's 2 KiB is the constant of Thakur, Rabenseifner and Gropp "
        "2005)",
        lambda ours, theirs, *_: {ours, theirs} == DOUBLING_PAIR,
    ),
    "non_power_of_two": Reason(
        "N is not a power of two: recursive doubling and Rabenseifner first fold the extra "
        "ranks into a power of two (a full-vector exchange before and after), which the "
        "ring does not need; the library rules look at the size of N only",
        lambda ours, _, ranks, __: ours == "ring" and not _power_of_two(ranks),
    ),
    "ring_choice": Reason(
        "the library's tuned rule picks a (segmented) ring for tiny messages at N 16-63 and "
        "alternates ring and recursive doubling at N < 8, where its measurements preferred "
        "it; the model counts 2(N-1) ring rounds against log2 N and keeps recursive doubling",
        lambda ours, theirs, *_: (ours, theirs) == ("recursive_doubling", "ring"),
    ),
    "other": Reason("another difference of algorithm", lambda *_: True),
}


def _reason(model: str, library: str, ranks: int, structured: bool) -> str:
    """Why the model's choice differs from a library's (our name) at one (fabric, N, size)."""
    ours, theirs = registry.parse_variant(model)[0], library
    return next(
        name for name, reason in REASONS.items() if reason.holds(ours, theirs, ranks, structured)
    )


def _rule(steps: list[tuple[float, str]]) -> str:
    """'RD ≤ 2 KiB < rabenseifner' from (largest size, algorithm) steps in size order."""
    parts = []
    for index, (last, algorithm) in enumerate(steps):
        name = algorithm.replace("recursive_doubling", "RD").replace("_", " ")
        if parts and parts[-1].endswith(name):  # merge equal neighbours
            parts[-1] = parts[-1].rsplit(" ≤ ", 1)[0] if " ≤ " in parts[-1] else parts[-1]
        parts.append(name if index == 0 else f"< {name}")
        if math.isfinite(last):
            parts[-1] += f" ≤ {format_bytes(last)}"
    return " ".join(parts)


def rule_steps(rule: str, ranks: int, itemsize: int) -> list[tuple[float, str]]:
    """A library's rule at N as (largest size, algorithm) steps: the rule itself read at
    every size where some rule may change its choice (steps), each step's
    largest size a whole number of elements."""
    bounds = [bound for bound in steps(ranks, itemsize) if bound > itemsize]
    found: list[tuple[float, str]] = []
    for start, following in zip([itemsize, *bounds], [*bounds, INF], strict=True):
        algorithm = library_choice(rule, ranks, start, itemsize)
        largest = INF if following == INF else (following - 1) // itemsize * itemsize
        if found and found[-1][1] == algorithm:
            found[-1] = (largest, algorithm)
        else:
            found.append((largest, algorithm))
    return found


@dataclass(frozen=True)
class Agreement:
    """The model's selection beside the libraries' rules: one row per (fabric, N) with the
    three rules and how many grid sizes agree, and the causes of disagreement, counted."""

    rows: pd.DataFrame
    causes: dict[str, int]


def library_agreement(
    costs: pd.DataFrame, fabrics: pd.DataFrame, selection: pd.DataFrame, dtype: str
) -> Agreement:
    """The model's thresholds next to each library's published decision (its `decision`)
    for the same N, per fabric; agreement counted over the grid's message sizes (the
    model's winner among all algorithms), and the causes of disagreement."""
    costs = costs[(costs.dtype == dtype) & costs.is_winner]
    itemsize = np.dtype(dtype).itemsize
    kinds = dict(zip(fabrics.fabric, fabrics.kind, strict=True))
    decided = {name: kind.decision for name, kind in KINDS.items() if kind.decision}
    rows, causes = [], {}
    for fabric, table in costs.groupby("fabric", sort=False):
        structured = kinds.get(fabric) == "structured"
        chosen = selection[selection.fabric == fabric]
        for ranks, point in table.groupby("ranks"):
            point = point.sort_values("message_bytes")
            model_steps = [
                (INF if pd.isna(r.max_bytes) else r.max_bytes, r.algorithm)
                for r in chosen[chosen.ranks == ranks].itertuples()
            ]
            row = {"fabric": fabric, "structured": structured, "ranks": ranks,
                   "model": _rule(model_steps)}  # fmt: skip
            for library, rule in decided.items():
                agree = 0
                for size, winner in zip(point.message_bytes, point.algorithm, strict=True):
                    choice = library_choice(rule, ranks, int(size), itemsize)
                    if winner == choice:
                        agree += 1
                    else:
                        cause = _reason(winner, choice, ranks, structured)
                        causes[cause] = causes.get(cause, 0) + 1
                row[library] = _rule(rule_steps(rule, ranks, itemsize))
                row[f"{library}_agree"] = agree
            rows.append({**row, "sizes": len(point)})
    per_library = [f"{name}{end}" for name in decided for end in ("", "_agree")]
    columns = ["fabric", "structured", "ranks", "model", *per_library, "sizes"]
    return Agreement(pd.DataFrame(rows, columns=columns), causes)
