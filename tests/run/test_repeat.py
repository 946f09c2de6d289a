"""Measurements in several launches: a calibration's median and interval, launches that
disagree measured again or refused in one line, a bench's launches merged, and a budget
spent on the widest intervals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from collectives.run.measure import MeasurementError
from collectives.run.repeat import repeat

# A stand-in measurement: launch k (counted in a state file) writes its own times per size.
FAKE = """
import sys, pathlib
state, times = pathlib.Path(sys.argv[1]), [float(t) for t in sys.argv[2].split(",")]
launch = int(state.read_text()) if state.exists() else 0
state.write_text(str(launch + 1))
out = pathlib.Path(sys.argv[sys.argv.index("--output") + 1])
out.write_text("bytes,seconds\\n1,%g\\n1024,%g\\n" % (times[launch], 2 * times[launch]))
"""


def fake(tmp_path: Path, times: list[float]) -> list[str]:
    """A command whose successive launches report `times` at 1 B (twice that at 1 KiB)."""
    return [sys.executable, "-c", FAKE, str(tmp_path / "state"), ",".join(map(str, times))]


def test_the_median_of_three_launches_with_their_interval(tmp_path):
    output = tmp_path / "points.csv"
    assert repeat(fake(tmp_path, [1.2e-6, 1.0e-6, 1.1e-6]), output, "ping-pong local") == 3
    lines = output.read_text().splitlines()
    assert lines[0] == "bytes,seconds,low_s,high_s,launches"
    size, median, low, high, launches = lines[1].split(",")
    assert (int(size), int(launches)) == (1, 3)
    assert (float(median), float(low), float(high)) == pytest.approx((1.1e-6, 1.0e-6, 1.2e-6))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["points.csv", "state"]  # no parts


def test_one_launch_placed_badly_is_outvoted(tmp_path):
    # two ranks on one core make one launch 9x slower: the other two agree, the median holds
    output = tmp_path / "points.csv"
    repeat(fake(tmp_path, [1e-6, 9e-6, 1.1e-6]), output, "exchange")
    _, median, _, high, _ = output.read_text().splitlines()[1].split(",")
    assert float(median) == pytest.approx(1.1e-6) and float(high) == pytest.approx(9e-6)
    assert (tmp_path / "state").read_text() == "3"  # one attempt


def test_launches_without_a_majority_are_measured_again(tmp_path):
    # the first attempt's launches spread 1x, 3x, 9x; the second attempt's agree
    output = tmp_path / "points.csv"
    repeat(fake(tmp_path, [1e-6, 3e-6, 9e-6, 1e-6, 1.1e-6, 1e-6]), output, "exchange")
    assert float(output.read_text().splitlines()[1].split(",")[1]) == pytest.approx(1e-6)
    assert (tmp_path / "state").read_text() == "6"


def test_launches_that_never_agree_stop_the_run_naming_the_calibration(tmp_path):
    output = tmp_path / "points.csv"
    with pytest.raises(MeasurementError) as caught:
        repeat(fake(tmp_path, [1e-6, 5e-6] * 3), output, "exchange queue N=2", launches=2)
    message = str(caught.value)
    assert message.startswith("exchange queue N=2: its 2 launches disagree at 1 B, no majority")
    assert "(1e-06 to 5e-06 s)" in message and "3 attempts" in message
    assert "\n" not in message and not output.exists()


@pytest.mark.clock
def test_the_command_calibrates_a_real_ping_pong(tmp_path):
    output = tmp_path / "pingpong.csv"
    done = subprocess.run(
        [sys.executable, "-m", "collectives", "repeat", "--agreement", "50", "--output",
         str(output), "--", sys.executable, "-m", "collectives", "pingpong", "--transport",
         "queue", "--sizes", "1,4096", "--iterations", "20"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = np.loadtxt(output, delimiter=",", skiprows=1)
    assert list(table[:, 0]) == [1, 4096] and (table[:, 4] == 3).all()
    assert ((table[:, 2] <= table[:, 1]) & (table[:, 1] <= table[:, 3])).all()
    assert (table[:, 1] > 0).all()


def test_a_calibration_without_a_command_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "collectives", "repeat", "--output",
                           str(tmp_path / "x.csv")], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and "give the measurement's command after --" in done.stderr


# A stand-in measurement with a size option: each launch appends the sizes it was asked for.
NARROWED = """
import sys, pathlib
log = pathlib.Path(sys.argv[1])
sizes = sys.argv[sys.argv.index("--sizes") + 1]
launch = len(log.read_text().splitlines()) if log.exists() else 0
with log.open("a") as f:
    f.write(sizes + "\\n")
# 1 B: spread in the first launches, steady after; 1 KiB: steady throughout
noisy = {1: 3e-6 if launch in (1, 2) else 1e-6, 1024: 5e-6}
out = pathlib.Path(sys.argv[sys.argv.index("--output") + 1])
rows = "".join(f"{s},{noisy[int(s)]}\\n" for s in sizes.split(","))
out.write_text("bytes,seconds\\n" + rows)
"""


def test_a_budget_buys_launches_of_the_widest_sizes_only(tmp_path):
    log = tmp_path / "asked"
    command = [sys.executable, "-c", NARROWED, str(log), "--sizes", "1,1024"]
    output = tmp_path / "points.csv"
    launches = repeat(command, output, "ping-pong", agreement=5, budget=30, narrow="--sizes")
    asked = log.read_text().split()
    assert asked[:3] == ["1,1024"] * 3 and set(asked[3:]) == {"1"} and launches == len(asked)
    assert 3 < launches < 100  # until 1 B's interval narrowed below the bound
    table = np.loadtxt(output, delimiter=",", skiprows=1)
    assert list(table[:, 4]) == [len(asked), 3]  # only 1 B was measured again
    no_budget = tmp_path / "once.csv"
    log.unlink()
    assert repeat(command, no_budget, "ping-pong", agreement=5, budget=0, narrow="--sizes") == 3


def test_a_bench_in_launches_merges_each_points_blocks(tmp_path):
    output = tmp_path / "bench.json"
    command = [sys.executable, "-m", "collectives", "bench", "--algorithms", "ring", "--ranks",
               "2", "--elements", "1,64", "--warmup", "1", "--iterations", "3"]  # fmt: skip
    assert repeat(command, output, "bench", launches=2) == 2
    document = json.loads(output.read_text())
    assert document["launches"] == 2 and len(document["records"]) == 2
    for record in document["records"]:
        timing = record["timing"]
        assert timing["launches"] == 2 and timing["blocks"] == [1] * 6
        assert timing["launch_blocks"] == [3, 3]
        assert len(timing["times_s"]) == timing["iterations"] == 6
        assert timing["low_s"] <= timing["time_median_s"] <= timing["high_s"]
        assert record["verified"] and record["matches_theory"]


# Launch k writes its own (1 B, 1 KiB) times: a busy machine's first attempt (slower at 1 B
# than at 1 KiB) gives a line that falls; the second attempt's is a link's.
FALLING = """
import sys, pathlib
state = pathlib.Path(sys.argv[1])
launch = int(state.read_text()) if state.exists() else 0
state.write_text(str(launch + 1))
small, large = (9e-6, 2e-6) if launch < 3 else (1e-6, 2e-6)
out = pathlib.Path(sys.argv[sys.argv.index("--output") + 1])
out.write_text("bytes,seconds\\n1,%g\\n1024,%g\\n" % (small, large))
"""


def test_a_calibration_whose_line_falls_is_measured_again(tmp_path):
    output = tmp_path / "points.csv"
    command = [sys.executable, "-c", FALLING, str(tmp_path / "state")]
    assert repeat(command, output, "ping-pong local") == 3
    assert (tmp_path / "state").read_text() == "6"
    assert float(output.read_text().splitlines()[1].split(",")[1]) == pytest.approx(1e-6)


def test_a_line_that_always_falls_stops_the_run_in_one_line(tmp_path):
    output = tmp_path / "points.csv"
    command = [sys.executable, "-c", FALLING.replace("launch < 3", "True"), str(tmp_path / "s")]
    with pytest.raises(MeasurementError) as caught:
        repeat(command, output, "ping-pong local", attempts=2)
    message = str(caught.value)
    assert message.startswith("ping-pong local: the line through its medians has alpha=")
    assert "beta=-" in message and "2 attempts" in message
    assert "\n" not in message and not output.exists()


# A stand-in bench: logs its name, then writes the bench document it is given.
COPIED = """
import sys, pathlib, shutil
with open(sys.argv[1], "a") as log:
    log.write(sys.argv[2] + "\\n")
shutil.copy(sys.argv[3], sys.argv[sys.argv.index("--output") + 1])
"""


def test_benches_compared_are_launched_in_turns_the_first_rotating(tmp_path):
    template = tmp_path / "one.json"
    bench = [sys.executable, "-m", "collectives", "bench", "--algorithms", "ring", "--ranks",
             "2", "--elements", "1", "--warmup", "1", "--iterations", "3"]  # fmt: skip
    assert repeat(bench, template, "bench", launches=1) == 1
    log = tmp_path / "order"
    commands = [[sys.executable, "-c", COPIED, str(log), name, str(template)] for name in "abc"]
    outputs = [tmp_path / f"{name}.json" for name in "abc"]
    argv = [sys.executable, "-m", "collectives", "repeat", "--launches", "3"]
    for output in outputs:
        argv += ["--output", str(output)]
    argv += ["--", *commands[0], "::", *commands[1], "::", *commands[2]]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert log.read_text().split() == [*"abc", *"bca", *"cab"]
    blocks = json.loads(template.read_text())["records"][0]["timing"]["blocks"]
    for output in outputs:
        document = json.loads(output.read_text())
        assert (
            document["launches"] == 3 and document["records"][0]["timing"]["blocks"] == blocks * 3
        )
    argv[argv.index("--output") : argv.index("--output") + 2] = []  # one output too few
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "one --output per measurement" in done.stderr
