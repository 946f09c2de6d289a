"""The mpi transport: the unchanged algorithms under mpiexec, counted exactly as on the
queue transport (N <= 4, as CI runs them)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from collectives.model.theory import COUNT_FIELDS
from collectives.registry import ALGORITHMS
from collectives.run.bench import bench
from collectives.run.files import load_trace
from tests.support.runs import run_with_trace

pytest.importorskip("mpi4py", reason="the mpi extra is not installed")
MPIEXEC = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec")
SIZES = [1, 7, 1000, 70_000]  # inline, staged, not divisible by N


def mpiexec(ranks: int, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`mpiexec -n ranks python -m collectives ...` as a user runs it."""
    return subprocess.run(
        [MPIEXEC, "-n", str(ranks), sys.executable, "-m", "collectives", *args],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def group_for(ranks: int) -> int:
    return 2 if ranks % 2 == 0 else 1


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_every_algorithm_counts_the_same_over_mpi_and_queues(ranks, tmp_path):
    """One MPI job per N runs every algorithm at every size (bench, one iteration)."""
    out = tmp_path / "mpi.json"
    names = ",".join(ALGORITHMS)
    done = mpiexec(
        ranks, "bench", "--transport", "mpi", "--algorithms", names, "--ranks-per-node",
        str(group_for(ranks)), "--elements", ",".join(map(str, SIZES)), "--warmup", "0",
        "--iterations", "1", "--output", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    over_mpi = json.loads(out.read_text())["records"]
    over_queues = bench(list(ALGORITHMS), ranks, SIZES, warmup=0, iterations=1,
                        parameters={"ranks_per_node": group_for(ranks)})["records"]  # fmt: skip
    assert len(over_mpi) == len(over_queues) == len(ALGORITHMS) * len(SIZES)
    for mine, theirs in zip(over_mpi, over_queues, strict=True):
        assert (mine["algorithm"], mine["elements"]) == (theirs["algorithm"], theirs["elements"])
        assert mine["transport"] == "mpi" and theirs["transport"] == "queue"
        assert mine["verified"] and mine["matches_theory"]
        assert {f: mine[f] for f in COUNT_FIELDS} == {f: theirs[f] for f in COUNT_FIELDS}


@pytest.mark.parametrize(("algorithm", "ranks", "elements"),
                         [("ring", 4, 1024), ("rabenseifner", 3, 70_000)])  # fmt: skip
def test_measure_writes_the_same_record_and_trace(algorithm, ranks, elements, tmp_path):
    out = tmp_path / "record.json"
    done = mpiexec(ranks, "measure", "--transport", "mpi", "--algorithm", algorithm,
                   "--elements", str(elements), "--output", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    queue_record, queue_trace = run_with_trace(algorithm, ranks, elements)
    assert record["transport"] == "mpi" and record["ranks"] == ranks
    assert record["verified"] and record["matches_theory"] and record["max_abs_error"] == 0
    for field in [*COUNT_FIELDS, "bytes_sent", "bytes_recv", "elements_reduced"]:
        assert record[field] == queue_record[field], field
    trace = load_trace(tmp_path / record["trace"])
    for field in ("offsets", "kind", "peer", "amount"):
        np.testing.assert_array_equal(getattr(trace, field), getattr(queue_trace, field))


@pytest.mark.parametrize("peers", ["mpi", "mpi,gloo"])
def test_library_all_reduces_run_on_the_same_ranks(tmp_path, peers):
    if "gloo" in peers:
        pytest.importorskip("torch", reason="Gloo is opt-in: pip install -e '.[gloo]'")
    out = tmp_path / "bench.json"
    done = mpiexec(2, "bench", "--transport", "mpi", "--algorithms", "ring",
                   "--elements", "1,4096", "--peers", peers, "--iterations", "3",
                   "--output", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    names = [(r["algorithm"], r["elements"]) for r in document["records"]]
    libraries = ["MPI_Allreduce", "gloo"][: len(peers.split(","))]
    assert names == [(a, m) for m in (1, 4096) for a in ("ring", *libraries)]
    assert all(r["verified"] and len(r["timing"]["times_s"]) == 3 for r in document["records"])
    assert document["libraries"]["mpi"].startswith("MPICH")


def test_pingpong_over_mpi_gives_the_local_mpi_points(tmp_path):
    points, reductions = tmp_path / "p.csv", tmp_path / "r.csv"
    done = mpiexec(2, "pingpong", "--transport", "mpi", "--sizes", "1,4096,65536",
                   "--iterations", "5", "--output", str(points),
                   "--reduce-output", str(reductions))  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in points.read_text().splitlines()]
    assert rows[0] == ["bytes", "seconds"]
    assert [int(size) for size, _ in rows[1:]] == [1, 4096, 65536]
    assert all(float(seconds) > 0 for _, seconds in rows[1:])
    assert reductions.read_text().startswith("elements,seconds\n")


def test_exchange_over_mpi_times_every_pair_at_once(tmp_path):
    out = tmp_path / "exchange.csv"
    done = mpiexec(4, "exchange", "--transport", "mpi", "--ranks", "4", "--sizes", "8,65536",
                   "--iterations", "5", "--output", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0] == ["bytes", "seconds"] and [int(size) for size, _ in rows[1:]] == [8, 65536]
    assert all(float(seconds) > 0 for _, seconds in rows[1:])


def test_a_rank_count_mismatch_fails_every_rank_and_writes_nothing(tmp_path):
    out = tmp_path / "record.json"
    done = mpiexec(2, "measure", "--transport", "mpi", "--algorithm", "ring", "--ranks", "3",
                   "--elements", "8", "--output", str(out))  # fmt: skip
    assert done.returncode != 0
    assert "asked for 3 ranks, but mpiexec started 2" in done.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_faults_are_a_queue_transport_aid():
    done = mpiexec(1, "measure", "--transport", "mpi", "--algorithm", "ring", "--elements", "8",
                   "--inject-fault", "crash:0")  # fmt: skip
    assert done.returncode == 2
    assert "fault injection is a testing aid the mpi transport lacks" in done.stderr
