"""The `collectives` command as a user runs it: records, the seed's table, errors, faults."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import uuid

import pytest

from collectives.registry import ALGORITHMS
from collectives.run.measure import available_memory, memory_needed
from tests.support.processes import processes_mentioning


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


def test_an_output_in_a_missing_directory_is_made_as_help_says(tmp_path):
    out = tmp_path / "new" / "dir" / "r.json"
    done = cli("measure", "--algorithm", "ring", "--ranks", "2", "--elements", "2",
               "--output", str(out))  # fmt: skip
    assert done.returncode == 0 and json.loads(out.read_text())["verified"]
    assert (out.parent / "r.trace.npz").exists()
    helped = " ".join(cli("measure", "--help").stdout.split())
    assert "write the record here (atomically, creating missing directories)" in helped
    assert "write the message trace (.npz) here, creating missing directories" in helped


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_run_too_big_for_this_machine_is_one_line_exit_2(tmp_path):
    out = tmp_path / "r.json"
    done = cli("measure", "--algorithm", "ring", "--ranks", "8", "--elements", "1000000000000",
               "--output", str(out))  # fmt: skip
    assert done.returncode == 2 and list(tmp_path.iterdir()) == []
    assert re.fullmatch(
        r"collectives: error: --elements 1000000000000 needs about 200 TB \(8 ranks × 3 vectors"
        r" of 8 TB, and the reference sum\), this machine has [0-9.]+ [kMGT]?B available\n",
        done.stderr,
    )


WRITERS = {
    "--output": ["measure", "--algorithm", "ring", "--ranks", "2", "--elements", "8"],
    "--trace": ["measure", "--algorithm", "ring", "--ranks", "2", "--elements", "8"],
    "--reduce-output": ["pingpong", "--sizes", "1", "--output", "{ok}"],
}
OUTPUT_COMMANDS = [
    ["bench", "--algorithms", "ring", "--ranks", "2", "--elements", "8"],
    ["pingpong", "--sizes", "1"],
    ["exchange", "--sizes", "1"],
    ["library", "--kind", "mpich"],
]


@pytest.mark.parametrize(
    ("command", "flag"),
    [(args, flag) for flag, args in WRITERS.items()]
    + [(args, "--output") for args in OUTPUT_COMMANDS],
    ids=lambda value: value if isinstance(value, str) else value[0],
)
def test_an_output_that_cannot_be_written_is_one_line_exit_2_before_any_run(
    command, flag, tmp_path
):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker / "out.json"  # under a regular file: no directory can be made there
    args = [arg.replace("{ok}", str(tmp_path / "ok.csv")) for arg in command]
    done = cli(*args, flag, str(target))
    assert done.returncode == 2
    assert done.stderr == (
        f"collectives: error: {flag} {target}: cannot write there ({blocker}: Not a directory)\n"
    )
    assert sorted(tmp_path.iterdir()) == [blocker]  # nothing ran, nothing written


def test_an_output_on_a_read_only_filesystem_is_one_line_exit_2(tmp_path):
    mounted = subprocess.run(["unshare", "--map-root-user", "--mount", "true"],
                             capture_output=True)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip("no mount namespace here: cannot make a read-only filesystem")
    out = tmp_path / "sub" / "r.json"
    script = (
        f"mount --bind -o ro {tmp_path} {tmp_path} && exec {sys.executable} -m collectives "
        f"measure --algorithm ring --ranks 8 --elements 1024 --output {out}"
    )
    done = subprocess.run(["unshare", "--map-root-user", "--mount", "sh", "-c", script],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        f"collectives: error: --output {out}: cannot write there "
        f"({tmp_path}: Read-only file system)\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_memory_the_machine_refuses_is_one_line_exit_1(tmp_path):
    elements = 100_000_000  # 800 MB a rank; two ranks' vectors are mapped past the limit
    if available_memory() < memory_needed(2, elements, 8, "int"):
        pytest.skip("this machine has too little memory for the request to be valid")
    limit = 1_500_000_000

    def address_space() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    out = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, "-m", "collectives", "measure", "--algorithm", "ring", "--ranks", "2",
         "--elements", str(elements), "--output", str(out)],
        capture_output=True, text=True, timeout=60, preexec_fn=address_space,
    )  # fmt: skip
    assert done.returncode == 1 and list(tmp_path.iterdir()) == []
    assert done.stderr == "collectives: failed: [Errno 12] Cannot allocate memory\n"


def test_bench_prints_nccl_tests_table_and_the_record_on_request(tmp_path):
    common = ("bench", "--algorithms", "ring,recursive_doubling", "--ranks", "2", "--elements",
              "1,1024", "--warmup", "0", "--iterations", "1", "--rounds", "1")  # fmt: skip
    out = tmp_path / "bench.json"
    done = cli(*common, "--output", str(out))
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    header = [line for line in done.stdout.splitlines() if line.startswith("#       size")]
    assert header and header[0].split()[1:] == ["size", "count", "type", "redop", "algorithm",
                                                 "time", "algbw", "busbw", "#wrong"]  # fmt: skip
    rows = [line.split() for line in done.stdout.splitlines() if not line.startswith("#")]
    assert [(int(r[0]), int(r[1]), r[4]) for r in rows] == [
        (rec["message_bytes"], rec["elements"], rec["algorithm"]) for rec in document["records"]
    ]
    for row, record in zip(rows, document["records"], strict=True):
        assert float(row[5]) == pytest.approx(record["timing"]["time_median_s"] * 1e6, abs=0.01)
        assert row[8] == "0" and record["verified"]
    printed = cli(*common, "--json")
    assert printed.returncode == 0 and json.loads(printed.stdout)["ranks"] == 2


def test_version_and_a_misspelt_algorithm_get_their_answers():
    done = cli("--version")
    assert done.returncode == 0 and re.fullmatch(r"collectives \d+\.\d+\.\d+\n", done.stdout)
    for command in (("measure", "--algorithm", "rign"), ("bench", "--algorithms", "rign")):
        wrong = cli(*command, "--ranks", "2", "--elements", "4")
        assert wrong.returncode == 2
        assert "unknown algorithm 'rign'; did you mean ring? valid: naive" in wrong.stderr
