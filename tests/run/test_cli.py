"""The `collectives` command as a user runs it: records, the seed's table, errors, faults."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import pytest

from collectives.registry import ALGORITHMS
from tests.conftest import processes_mentioning


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "collectives", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("algorithm", "rounds", "bytes_total"),
    [("ring", 14, 114688), ("recursive_doubling", 3, 196608)],
)
def test_reproduces_the_seed_table(algorithm, rounds, bytes_total, tmp_path):
    out = tmp_path / "record.json"
    args = ["measure", "--algorithm", algorithm, "--ranks", "8", "--elements", "1024"]
    done = cli(*args, "--output", str(out))
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    assert (record["rounds"], record["bytes_total"]) == (rounds, bytes_total)
    assert record["theory"]["bytes_total"] == bytes_total
    assert record["verified"] and record["matches_theory"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json", "record.trace.npz"]
    assert record["trace"] == "record.trace.npz"  # no temporary left, the trace beside it


def test_without_output_the_record_goes_to_stdout():
    done = cli("measure", "--algorithm", "naive", "--ranks", "3", "--elements", "5")
    assert done.returncode == 0
    assert json.loads(done.stdout)["hotspot_bytes"] == 2 * 2 * 5 * 8


def test_lists_algorithms():
    done = cli("algorithms")
    assert done.returncode == 0
    assert [line.split()[0] for line in done.stdout.splitlines()] == list(ALGORITHMS)


@pytest.mark.parametrize(
    "args",
    [
        ["--ranks", "0"],
        ["--ranks", "2000"],
        ["--elements", "0"],
        ["--algorithm", "bogus"],
        ["--dtype", "float8"],
        ["--ranks", "many"],
        ["--inject-fault", "melt:1"],
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(args, tmp_path):
    out = tmp_path / "r.json"
    base = ["measure", "--algorithm", "ring", "--ranks", "4", "--elements", "8"]
    done = cli(*base, "--output", str(out), *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and "error" in done.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_bad_wait_mode_is_one_line_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLECTIVES_WAIT", "busy")
    out = tmp_path / "r.json"
    done = cli("measure", "--algorithm", "ring", "--ranks", "2", "--elements", "8",
               "--output", str(out))  # fmt: skip
    assert done.returncode == 2 and not out.exists()
    assert done.stderr.strip() == (
        "collectives: error: COLLECTIVES_WAIT='busy' is not one of: auto, poll, sleep"
    )


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("crash:3", "rank 3 failed: RuntimeError: injected crash"),
        ("kill:3", "rank 3 was killed by signal SIGKILL"),
        ("hang:3", "timed out after 1 s: rank 3 made no progress"),
        ("corrupt:3", "rank 3 holds a wrong sum"),
        ("extra:3", "measured counts differ from theory"),
    ],
)
def test_faults_exit_nonzero_name_the_rank_and_leave_nothing(fault, message, tmp_path):
    out = tmp_path / f"{uuid.uuid4().hex}.json"
    done = cli(
        "measure", "--algorithm", "ring", "--ranks", "8", "--elements", "1024",
        "--timeout", "1", "--inject-fault", fault, "--output", str(out),
    )  # fmt: skip
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
    assert processes_mentioning(out.name) == []  # no rank outlived the command


def test_output_file_gets_normal_permissions(tmp_path):
    out = tmp_path / "r.json"
    cli("measure", "--algorithm", "ring", "--ranks", "2", "--elements", "2", "--output", str(out))
    assert out.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask
