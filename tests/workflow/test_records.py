"""Damaged and deleted records and traces in a finished run: the jobs that read them name
every bad one and remove it, build no table from it, and the same command then measures it
again, as it does a deleted one."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import time

import numpy as np
import pandas as pd
import pytest

from collectives.study.aggregate import RERUN, check_record
from tests.support.workflow import SNAKEMAKE, TINY_RUN, tiny_workflow

TRUNCATED = "results/runs/float64/ring/N8_M1024.json"
ALTERED = "results/runs/float64/recursive_doubling/N8_M1024.json"
BUILT = ("results/tables", "results/replay")


def run(work, *extra: str) -> subprocess.CompletedProcess:
    """The Quick start's command (aimed at the cost tables) in `work`."""
    return subprocess.run([*TINY_RUN, *extra], cwd=work, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.fixture
def workdir(tmp_path):
    """A finished run of the tiny config."""
    work = tiny_workflow(tmp_path)
    done = run(work)
    assert done.returncode == 0, done.stderr[-4000:]
    return work


def test_damaged_records_are_named_removed_and_measured_again(workdir):
    truncated, altered = workdir / TRUNCATED, workdir / ALTERED
    kept = {path: json.loads(path.read_text()) for path in (truncated, altered)}
    damaged_at = time.time_ns()
    os.truncate(truncated, 567)
    altered.write_text(json.dumps({**kept[altered], "rounds": 999, "bytes_critical": 1}))

    done = run(workdir)
    assert done.returncode != 0
    named = {line.split(": ")[0] for line in done.stderr.splitlines() if "bad record" in line}
    assert named == {f"bad record {TRUNCATED}", f"bad record {ALTERED}"}
    expected = [
        rf"bad record {TRUNCATED}: Unterminated string .*; removed it: {RERUN}",
        rf"bad record {ALTERED}: rounds 999, theory 3; bytes_critical 1, theory 24576 "
        rf"\(yet matches_theory is true\); removed it: {RERUN}",
    ]
    for pattern in expected:
        assert re.search(f"^{pattern}$", done.stderr, flags=re.MULTILINE), done.stderr[-3000:]
    assert not truncated.exists() and not altered.exists()
    rebuilt = [
        path for folder in BUILT for path in (workdir / folder).rglob("*")
        if path.is_file() and path.stat().st_mtime_ns >= damaged_at
    ]  # fmt: skip
    assert rebuilt == []  # nothing built from a bad record

    redone = run(workdir)  # the same command: the removed runs are measured again
    assert redone.returncode == 0, redone.stderr[-4000:]
    for path, original in kept.items():
        record = check_record(path).to_dict()
        assert {f: record[f] for f in ("rounds", "bytes_critical", "bytes_total")} == {
            f: original[f] for f in ("rounds", "bytes_critical", "bytes_total")
        }
    table = pd.read_csv(workdir / "results/tables/measurements.csv")
    seed_rows = table[(table.ranks == 8) & (table.elements == 1024) & (table.dtype == "float64")]
    rounds = dict(zip(seed_rows.algorithm, seed_rows.rounds, strict=True))
    assert (rounds["ring"], rounds["recursive_doubling"]) == (14, 3)
    settled = run(workdir, "-n")
    assert "Nothing to be done" in settled.stdout + settled.stderr  # a complete run again


def trace_columns(source) -> dict[str, list[int]]:
    """A trace file's columns, comparable with ==."""
    with np.load(source) as data:
        return {name: data[name].tolist() for name in data.files}


RING_TRACE = "results/runs/float64/ring/N8_M1024.trace.npz"
DOUBLING_TRACE = "results/runs/float64/recursive_doubling/N8_M1024.trace.npz"


def test_damaged_traces_are_named_removed_and_measured_again(workdir):
    truncated, swapped = workdir / RING_TRACE, workdir / DOUBLING_TRACE
    kept = {path: path.read_bytes() for path in (truncated, swapped)}
    replays = sorted((workdir / "results/replay").glob("*.csv"))
    damaged_at = time.time_ns()
    os.truncate(truncated, len(kept[truncated]) // 2)
    swapped.write_bytes(kept[truncated])  # ring's trace beside recursive doubling's record

    done = run(workdir)
    assert done.returncode != 0
    expected = [
        rf"bad trace {RING_TRACE}: not a readable trace \(File is not a zip file\); "
        rf"removed it: {RERUN}",
        rf"bad trace {DOUBLING_TRACE}: 112 messages sent, the record counts 24; bytes sent "
        rf"per rank differ from the record's; 112 messages received, the record counts 24; "
        rf"bytes received per rank differ from the record's; removed it: {RERUN}",
    ]
    for pattern in expected:
        assert re.search(f"^{pattern}$", done.stderr, flags=re.MULTILINE), done.stderr[-3000:]
    assert not truncated.exists() and not swapped.exists()
    assert sorted((workdir / "results/replay").glob("*.csv")) == replays  # none deleted
    rebuilt = [
        path for folder in BUILT for path in (workdir / folder).rglob("*")
        if path.is_file() and path.stat().st_mtime_ns >= damaged_at
    ]  # fmt: skip
    assert rebuilt == []  # no replay ran

    redone = run(workdir)  # the same command: both runs are measured again
    assert redone.returncode == 0, redone.stderr[-4000:]
    for path, original in kept.items():
        assert trace_columns(path) == trace_columns(io.BytesIO(original))
    settled = run(workdir, "-n")
    assert "Nothing to be done" in settled.stdout + settled.stderr


def test_deleted_records_and_traces_are_measured_again(workdir):
    """Deleting a point's files is how one re-measures it: the plain command (whose `all`
    names every record and trace) measures it again, and everything that reads it reruns."""
    record, trace = workdir / TRUNCATED, workdir / RING_TRACE
    original = check_record(record).to_dict()
    record.unlink()
    trace.unlink()
    planned = subprocess.run(
        [*SNAKEMAKE, "-n"], cwd=workdir, capture_output=True, text=True, timeout=300
    )
    assert planned.returncode == 0, planned.stderr[-3000:]
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", planned.stdout, flags=re.MULTILINE))
    assert {"measure": "1", "aggregate": "1", "replay": "1", "costs": "1"}.items() <= jobs.items()

    done = run(workdir)
    assert done.returncode == 0, done.stderr[-4000:]
    assert check_record(record).to_dict()["rounds"] == original["rounds"] and trace.exists()
    settled = run(workdir, "-n")
    assert "Nothing to be done" in settled.stdout + settled.stderr
