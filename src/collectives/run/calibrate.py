"""A calibration measured in several launches, so that one disturbed launch cannot decide it.

A ping-pong or an exchange is launched `launches` times (each a fresh set of ranks, as the
timed runs are); per message size the calibration is the median of the launches' times, and
its interval the range of them (for three launches, an interval that holds the true median
three times in four). The launches agree at a size when most of them lie within `agreement`
times of their median: one launch the scheduler placed badly (two ranks on one core) is
outvoted, not averaged in. Launches without such a majority at some size are measured
again, up to `attempts` times; then the run stops with one line naming the calibration,
the size and the spread.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from .files import write_text
from .measure import MeasurementError

DEFAULT_LAUNCHES = 3
DEFAULT_AGREEMENT = 2.0  # how far from the launches' median most of them must lie
DEFAULT_ATTEMPTS = 3


def calibrate(
    command: list[str],
    output: Path,
    what: str,
    launches: int = DEFAULT_LAUNCHES,
    agreement: float = DEFAULT_AGREEMENT,
    attempts: int = DEFAULT_ATTEMPTS,
) -> np.ndarray:
    """Run `command` (a ping-pong or exchange writing a bytes,seconds CSV to the path given
    after it as --output) `launches` times; write the median per size with its range as
    low_s and high_s, and return the launches' times (launches x sizes)."""
    if launches < 1 or attempts < 1 or agreement < 1:
        raise ValueError("launches and attempts must be >= 1 and agreement >= 1")
    for _ in range(attempts):
        sizes, times = _launched(command, output, launches)
        median = np.median(times, axis=0)
        near = (times <= median * agreement) & (times >= median / agreement)
        split = np.flatnonzero(near.sum(axis=0) * 2 <= launches)
        if not len(split):
            rows = "".join(
                f"{int(size)},{median:.9e},{low:.9e},{high:.9e},{launches}\n"
                for size, median, low, high in zip(
                    sizes, np.median(times, axis=0), times.min(axis=0), times.max(axis=0),
                    strict=True,
                )
            )  # fmt: skip
            write_text(output, "bytes,seconds,low_s,high_s,launches\n" + rows)
            return times
    worst = split[0]
    raise MeasurementError(
        f"{what}: its {launches} launches disagree at {int(sizes[worst])} B, no majority "
        f"within {agreement:g}x of their median ({times[:, worst].min():.3g} to "
        f"{times[:, worst].max():.3g} s) in {attempts} attempts: the machine is too busy"
    )


def _launched(command: list[str], output: Path, launches: int) -> tuple[np.ndarray, np.ndarray]:
    """Each launch's times per size, from its own CSV beside `output` (removed after)."""
    runs, sizes = [], None
    for index in range(launches):
        part = output.with_name(f"{output.name}.launch{index}")
        try:
            done = subprocess.run([*command, "--output", str(part)], check=False)
            if done.returncode != 0:
                raise MeasurementError(f"launch {index + 1} exited with {done.returncode}")
            table = np.loadtxt(part, delimiter=",", skiprows=1, ndmin=2)
        finally:
            part.unlink(missing_ok=True)
        sizes = table[:, 0]
        runs.append(table[:, 1])
    return sizes, np.array(runs)
