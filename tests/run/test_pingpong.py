"""The local fabric's ping-pong over the queue transport, and its command."""

from __future__ import annotations

import csv
import subprocess
import sys

import numpy as np
import pytest

from collectives.run.pingpong import exchange, pingpong


def test_one_way_times_are_positive_and_grow_with_size():
    sizes, seconds = pingpong([1 << 26, 1, 0], iterations=20, warmup=2)
    assert list(sizes) == [0, 1, 1 << 26]
    assert np.all(seconds > 0)
    # 64 MiB (milliseconds even at memory speed) must take longer than an empty message,
    # whose median a descheduled rank on a busy 2-CPU machine can stretch to ~2 ms
    assert seconds[-1] > seconds[0]


def test_bad_arguments():
    with pytest.raises(ValueError, match="non-negative"):
        pingpong([-1])
    with pytest.raises(ValueError, match="iterations"):
        pingpong([1], iterations=0)


def test_command_writes_a_csv_the_fabric_reader_accepts(tmp_path):
    out = tmp_path / "local.csv"
    done = subprocess.run(
        [sys.executable, "-m", "collectives", "pingpong", "--sizes", "1,1024,65536",
         "--iterations", "10", "--output", str(out)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert [int(r["bytes"]) for r in rows] == [1, 1024, 65536]
    bad = subprocess.run(
        [sys.executable, "-m", "collectives", "pingpong", "--sizes", "1,x", "--output", str(out)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_exchange_rounds_are_timed_per_size(ranks):
    sizes, seconds = exchange([1, 1 << 24], ranks, iterations=10, warmup=2)
    assert list(sizes) == [1, 1 << 24] and np.all(seconds > 0)
    # 16 MiB each way takes longer than a byte, even when ranks outnumber the cores and
    # each message waits for a wake-up (a MiB is copied in about the time of one)
    assert seconds[-1] > seconds[0]


def test_exchange_command(tmp_path):
    out = tmp_path / "exchange.csv"
    done = subprocess.run(
        [sys.executable, "-m", "collectives", "exchange", "--ranks", "4", "--sizes", "8,4096",
         "--iterations", "10", "--output", str(out)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [int(r["bytes"]) for r in csv.DictReader(out.open())] == [8, 4096]
    bad = subprocess.run(
        [sys.executable, "-m", "collectives", "exchange", "--ranks", "1", "--sizes", "8",
         "--output", str(out)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "at least 2 ranks" in bad.stderr
