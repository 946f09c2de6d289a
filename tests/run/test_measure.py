"""The measure entry point: the record it returns, its inputs, its checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from collectives.run import measure as measure_module
from collectives.run.measure import (
    MeasurementError,
    UsageError,
    available_memory,
    exact_integer_limit,
    input_magnitude,
    make_input,
    measure,
    memory_needed,
)
from tests.support.runs import run_record

RECORD_KEYS = {
    "record_version", "algorithm", "ranks", "elements", "dtype", "itemsize", "seed", "data",
    "transport", "rounds", "messages", "bytes_total", "bytes_critical", "bytes_sent",
    "bytes_recv", "hotspot_bytes", "elements_reduced", "theory", "matches_theory", "verified",
    "max_abs_error", "ranks_agree", "wrong_ranks", "wall_seconds", "collective_seconds",
    "versions", "trace", "parameters", "link_classes", "message_bytes", "library", "timing",
}  # fmt: skip


def test_record_has_every_documented_key():
    record = run_record("recursive_doubling", 8, 1024)
    assert set(record) == RECORD_KEYS
    assert (record["rounds"], record["bytes_total"]) == (3, 196608)
    assert set(record["theory"]) == {
        "rounds", "messages", "bytes_total", "bytes_critical", "hotspot_bytes",
    }  # fmt: skip
    assert len(record["bytes_sent"]) == len(record["bytes_recv"]) == 8
    assert record["collective_seconds"] <= record["wall_seconds"]


def test_inputs_are_seeded_per_rank_and_exact_in_every_dtype():
    a, b = np.empty(1000, np.float16), np.empty(1000, np.float16)
    make_input(a, 3, 7, "int", 1024)
    make_input(b, 3, 7, "int", 1024)
    assert np.array_equal(a, b)
    make_input(b, 4, 7, "int", 1024)
    assert not np.array_equal(a, b)
    # N values of magnitude K never leave float16's exact integers.
    assert 1024 * input_magnitude(np.dtype(np.float16), 1024) <= exact_integer_limit(
        np.dtype(np.float16)
    )
    assert np.all(np.abs(a) <= input_magnitude(np.dtype(np.float16), 1024))


def test_float16_sum_of_many_ranks_is_exact():
    record = run_record("ring", 17, 333, dtype="float16")
    assert record["verified"] and record["max_abs_error"] == 0


def test_real_valued_inputs_are_checked_with_a_tolerance():
    record = run_record("ring", 5, 1000, dtype="float32", data="normal", seed=3)
    assert record["verified"]
    assert record["data"] == "normal"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ranks": 0}, "ranks must be between 1 and 1024"),
        ({"ranks": 1025}, "ranks must be between 1 and 1024"),
        ({"elements": 0}, "elements must be at least 1"),
        ({"algorithm": "tree"}, "valid: naive, ring, recursive_doubling"),
        ({"dtype": "complex64"}, "valid dtypes: float64"),
        ({"data": "uniform"}, "unknown data kind"),
        ({"dtype": "int32", "data": "normal"}, "needs a floating-point dtype"),
        ({"timeout": 0}, "timeout must be positive"),
        ({"fault": "crash:99"}, "outside 0..3"),
    ],
)
def test_bad_requests_raise_usage_errors(kwargs, message):
    request = {"algorithm": "ring", "ranks": 4, "elements": 8, **kwargs}
    with pytest.raises(UsageError, match=message):
        measure(**request)


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("corrupt:2", "verification failed: rank 2 holds a wrong sum"),
        ("extra:0", "measured counts differ from theory: rounds 15 .theory 14., messages 113"),
        ("crash:1", "rank 1 failed: RuntimeError: injected crash"),
    ],
)
def test_failed_runs_raise_measurement_errors(fault, message):
    with pytest.raises(MeasurementError, match=message):
        measure("ring", 8, 1024, fault=fault, timeout=5)


def test_many_ranks_within_descriptor_and_memory_limits():
    record = run_record("recursive_doubling", 256, 1 << 16)  # 256 ranks, few messages
    assert record["verified"] and record["matches_theory"]


@pytest.mark.parametrize(
    ("data", "needed"), [("int", 8 * 3 * 8_000_000 + 8_000_000), ("normal", 216_000_000)]
)
def test_what_a_run_needs_is_checked_against_what_the_machine_has(data, needed, monkeypatch):
    assert memory_needed(8, 1_000_000, 8, data) == needed
    monkeypatch.setattr(measure_module, "available_memory", lambda: needed - 1)
    message = (
        rf"needs about {needed / 1e6:.3g} MB \(8 ranks × 3 vectors of 8 MB, and the reference "
        r"sum\), this machine has 2\d\d MB"
    )
    with pytest.raises(UsageError, match=message):
        measure("ring", 8, 1_000_000, data=data)
    monkeypatch.setattr(measure_module, "available_memory", lambda: needed)
    assert measure("ring", 8, 1_000_000, data=data).record.verified


def test_available_memory_is_what_the_kernel_says():
    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        pytest.skip("no /proc/meminfo")
    line = next(x for x in meminfo.read_text().splitlines() if x.startswith("MemAvailable:"))
    assert abs(available_memory() - int(line.split()[1]) * 1024) < 2**30  # it moves a little


def test_one_shot_needs_room_for_every_peer_vector():
    extra = memory_needed(8, 1000, 8, "int", "one_shot") - memory_needed(8, 1000, 8, "int", "ring")
    assert extra == 8 * 7 * 1000 * 8  # each of 8 ranks keeps its 7 peers' vectors
