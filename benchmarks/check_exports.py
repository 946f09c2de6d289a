"""Every exported selection file, loaded by its own library: does MPI_Init succeed, is every
sum exact, and does the library run the algorithm the file names at each size?

After `snakemake --cores 8`: for each results/selection/{fabric}/{library}.* and each N of
--ranks, launch `collectives probe` under the library (resources/mpi/{library}.json) with
the file loaded, at sizes from 1 element to 1 Mi elements. A size counts as obeyed when the
probe's signature names the file's algorithm, unobservable when no signature exists (N does
not divide M) or, in MPICH, when the file's algorithm is Rabenseifner (MPICH runs it for
built-in operations only; the probe's user-defined sum then takes the file's other branch).

    python benchmarks/check_exports.py [--ranks 2,4,8]
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import pandas as pd

from collectives.run import libraries
from collectives.run.libraries import LibraryError
from collectives.run.probe import observe
from collectives.study import paths, selection, tuning

SIZES = [4**k for k in range(11)]


def check(results: Path, ranks: list[int]) -> pd.DataFrame:
    """One row per (library, fabric, N): loaded, exact, obeyed / observable sizes."""
    model = pd.read_csv(results / "tables/selection.csv").astype({"max_bytes": "Int64"})
    rows = []
    for descriptor in sorted(Path("resources/mpi").glob("*.json")):
        library = libraries.load(descriptor)
        rule = selection.own_rules([descriptor])[descriptor.stem]
        for fabric, table in model.groupby("fabric"):
            table = selection.leave_to_library(table, rule, 8)  # as exported
            path = Path(paths.selection(fabric, library.kind))
            for n in ranks:
                row = {"library": library.kind, "fabric": fabric, "ranks": n, "loaded": False,
                       "exact": False, "obeyed": 0, "observable": 0}  # fmt: skip
                try:
                    setting = libraries.steering(library, n, selection=str(path))
                    probed = observe(library, n, SIZES, setting)
                except LibraryError as exc:
                    row["error"] = str(exc)
                    rows.append(row)
                    continue
                row["loaded"] = True
                row["exact"] = all(size["verified"] for size in probed["sizes"])
                for size in probed["sizes"]:
                    named = tuning.named(table, n, size["elements"] * 8)
                    seen = size["algorithms"]
                    if (
                        not seen
                        or named == libraries.DEFAULT
                        or (library.kind, named) == ("mpich", "rabenseifner")
                    ):
                        continue  # no signature, the library's own choice, or MPICH's branch
                    row["observable"] += 1
                    row["obeyed"] += named in seen
                rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="2,4,8")
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
    started = time.perf_counter()
    table = check(Path(args.results), [int(n) for n in args.ranks.split(",")])
    print(f"machine: {platform.machine()}, {platform.platform()}")
    summary = table.groupby("library").agg(
        files=("fabric", "nunique"), launches=("loaded", "size"), loaded=("loaded", "sum"),
        exact=("exact", "sum"), obeyed=("obeyed", "sum"), observable=("observable", "sum"),
    )  # fmt: skip
    print(summary.to_string())
    failed = table[~table.loaded | ~table.exact | (table.obeyed < table.observable)]
    if len(failed):
        print(failed.to_string())
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
