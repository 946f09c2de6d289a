"""Whether the tests can fail: each hand-made mutation below breaks one idea of one module,
and the tests that mirror that module must then fail.

    python benchmarks/check_mutations.py [--only MODULE] [--keep]

Copies the repository's tracked files to a scratch directory, checks that each mutation's
tests pass there unmutated, then applies the mutations one at a time (the copy's package
first on PYTHONPATH, so the installed one is not used) and runs those tests with -x. A
mutation the tests still pass "survives": a test that says it checks this idea does not.
Prints one line per mutation and exits 1 if any survives.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    """Replace `original` (which must occur exactly once in `module`) by `mutated`; the
    `tests` must then fail. `idea`: what the mutation breaks."""

    module: str
    idea: str
    original: str
    mutated: str
    tests: tuple[str, ...]


PACKAGE = "src/collectives/"
MUTATIONS = [
    Mutation("algorithms/ring.py", "ring: the all-gather passes on the chunk it finished",
             "send, recv = (rank + 1 - step) % n, (rank - step) % n",
             "send, recv = (rank - step) % n, (rank - step) % n",
             ("tests/algorithms/test_algorithms.py",)),
    Mutation("algorithms/partition.py", "chunks: the first M mod N get one element more",
             "sizes = [base + (1 if index < extra else 0) for index in range(parts)]",
             "sizes = [base + (1 if index <= extra else 0) for index in range(parts)]",
             ("tests/algorithms/test_algorithms.py",)),
    Mutation("transport/accounting.py", "counts: every byte received is counted",
             "        self.bytes_recv += nbytes\n", "        self.bytes_recv += nbytes - 1\n",
             ("tests/transport/test_accounting.py",)),
    Mutation("transport/accounting.py", "the hotspot: the busiest rank's bytes in and out",
             "hotspot_bytes=int((sent + recv).max(initial=0)),",
             "hotspot_bytes=int(sent.max(initial=0)),",
             ("tests/transport/test_accounting.py", "tests/algorithms/test_algorithms.py")),
    Mutation("model/theory.py", "ring's critical path: 2(N-1) of the biggest chunk",
             "bytes_critical=2 * (n - 1) * biggest * s,",
             "bytes_critical=2 * (n - 1) * (m // n) * s,",
             ("tests/model/test_theory.py",)),
    Mutation("model/theory.py", "ring's busiest rank with ragged chunks",
             "max(0, 3 - (n - extra))", "max(0, 2 - (n - extra))",
             ("tests/model/test_theory.py",)),
    Mutation("model/topology.py", "which node a rank is on",
             "else ranks // self.ranks_per_node", "else ranks % self.ranks_per_node",
             ("tests/model/test_topology.py", "tests/model/test_replay.py")),
    Mutation("model/replay.py", "a receive waits for its message's send",
             "start = sent if sent > q else q", "start = q",
             ("tests/model/test_replay.py",)),
    Mutation("model/replay.py", "a rank's clock is its last receive's end",
             "                if q > c:\n                    c = q\n",
             "                if q < c:\n                    c = q\n",
             ("tests/model/test_replay.py",)),
    Mutation("model/cost.py", "α-β: rounds pay α, the critical path's bytes β",
             "return rounds * alpha + bytes_critical * beta",
             "return rounds * alpha + bytes_critical * beta * 2",
             ("tests/model/test_cost.py",)),
    Mutation("model/fit.py", "the fit minimises relative error",
             "/ points.seconds[:, None]", "/ np.sqrt(points.seconds[:, None])",
             ("tests/study/test_fabrics.py", "tests/model/test_cost.py")),
    Mutation("model/crossing.py", "a crossing interpolates between its sizes",
             "return x0 + (loser0 - winner0) / rise * (x1 - x0)",
             "return x0 + (loser0 - winner0) / rise * (x1 - x0) / 2",
             ("tests/model/test_crossing.py",)),
    Mutation("study/jobs.py", "the budget is shared by points x ranks",
             "return plan.wallclock.budget * points * ranks / total_weight(plan, pingpongs)",
             "return plan.wallclock.budget * points / total_weight(plan, pingpongs)",
             ("tests/study/test_jobs.py", "tests/study/test_targets.py")),
    Mutation("study/targets.py", "a variant is listed only where it runs",
             "            if variant.runs_at(ranks)\n            for elements",
             "            for elements",
             ("tests/study/test_targets.py",)),
    Mutation("study/targets.py", "a library's model selection is its own ping-pong's",
             'fabric = self.model_fabric(library) if setting == "model" else paths.CLOCK',
             "fabric = paths.CLOCK",
             ("tests/study/test_targets.py",)),
    Mutation("model/nccl.py", "NCCL's time: its latency plus the bytes at its bandwidth",
             "return (latency + nbytes / (1000 * bandwidth)) * 1e-6",
             "return (latency + nbytes / (1024 * bandwidth)) * 1e-6",
             ("tests/model/test_nccl.py",)),
    Mutation("model/nccl.py", "the tree's bandwidth correction from its size on",
             "corrected = nbytes >= release.tree_correction_from_bytes",
             "corrected = nbytes > release.tree_correction_from_bytes",
             ("tests/model/test_nccl.py",)),
    Mutation("registry.py", "a shift is declared only where the schedule has one",
             "return 1 if elements % ranks == 0 else None", "return 1",
             ("tests/test_registry.py",)),
    Mutation("run/measure.py", "a run is verified only if every rank holds the sum",
             "        if np.any(error > tolerance):\n            wrong.append(rank)\n",
             "        if np.all(error > tolerance):\n            wrong.append(rank)\n",
             ("tests/run/test_measure.py",)),
    Mutation("study/claims.py", "a stated number agrees to the decimals it shows",
             "decimals = len(text.split(\".\")[1]) if \".\" in text else 0",
             "decimals = 0",
             ("tests/study/test_claims.py",)),
    Mutation("study/tuning.py", "a forced setting names its algorithm after the prefix",
             "return setting.removeprefix(FORCE_PREFIX) if",
             "return setting if",
             ("tests/study/test_tuning.py",)),
]  # fmt: skip


def copy_repository(target: Path) -> None:
    """The tracked files (and those added but not committed), as they are now."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split("\n")  # fmt: skip
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def run_tests(copy: Path, tests: tuple[str, ...]) -> tuple[bool, float]:
    """Whether the tests pass in the copy, and their seconds."""
    environment = {**os.environ, "PYTHONPATH": str(copy / "src")}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
        cwd=copy, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    return done.returncode == 0, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the mutations of this module, e.g. model/replay.py")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if args.only in (None, m.module)]
    if not chosen:
        sys.exit(f"no mutation of {args.only}; modules: {sorted({m.module for m in MUTATIONS})}")
    copy = Path(tempfile.mkdtemp(prefix="collectives-mutations-"))
    try:
        copy_repository(copy)
        for tests in sorted({m.tests for m in chosen}):
            passed, _ = run_tests(copy, tests)
            if not passed:
                sys.exit(f"the tests fail unmutated: {' '.join(tests)}")
        survived = 0
        for mutation in chosen:
            path = copy / PACKAGE / mutation.module
            text = path.read_text()
            if text.count(mutation.original) != 1:
                sys.exit(f"{mutation.module}: the original of '{mutation.idea}' is not there once")
            path.write_text(text.replace(mutation.original, mutation.mutated))
            passed, seconds = run_tests(copy, mutation.tests)
            path.write_text(text)
            survived += passed
            verdict = "SURVIVED" if passed else "killed"
            print(f"{verdict:8} {seconds:6.1f} s  {mutation.module}: {mutation.idea}", flush=True)
        print(f"{len(chosen) - survived} of {len(chosen)} mutations killed")
    finally:
        if args.keep:
            print(f"scratch copy kept: {copy}")
        else:
            shutil.rmtree(copy, ignore_errors=True)
    sys.exit(1 if survived else 0)


if __name__ == "__main__":
    main()
