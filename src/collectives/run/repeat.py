"""A timed measurement in several launches, so that one disturbed launch cannot decide it.

A ping-pong, an exchange or a bench is launched `launches` times (each a fresh set of
ranks, as the timed runs are) and the launches are merged: per point the median of every
launch's times, with its bootstrap interval (run.timing; a ping-pong's or exchange's
launch is one block per size, its median).

A calibration (a ping-pong or exchange, written as CSV) must agree with itself: at every
size most launches lie within `agreement` times of their median, so that one launch the
scheduler placed badly (two ranks on one core) is outvoted, not averaged in, and the line
α + β·bytes through its medians must be one a link could have, as the fabric's fit asks
(a busy machine can tilt a few noisy points into a line that falls). Launches without such a
majority, or with such a line, are measured again, up to `attempts` times; then the run
stops with one line naming the calibration and what was wrong. A bench (JSON) is merged
as it is: its noisy points are marked downstream, not refused.

Benches compared with each other (a library at its default and with two selection files)
are launched interleaved (`interleave`): launch after launch in turns, who goes first
rotating, so that every period of the machine's speed falls on each of them alike.

With a `budget` (seconds for the whole measurement) and the option that lists the sizes
(`narrow`), what is left after the first launches buys more launches of the sizes whose
intervals are the widest relative to their medians, while any is wider than `bound` and
another launch fits in what remains.
"""

from __future__ import annotations

import json
import math
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..model.fit import Points, least_squares, line_problem
from .files import write_json, write_text
from .measure import MeasurementError
from .timing import median_interval, relative_width

DEFAULT_LAUNCHES = 3
DEFAULT_AGREEMENT = 2.0  # how far from the launches' median most of them must lie
DEFAULT_ATTEMPTS = 3
DEFAULT_BOUND = 0.2  # an interval wider than this share of its median is worth a launch more

Launch = dict[int, float] | dict[str, Any]  # a calibration's {bytes: seconds}, or a bench


def repeat(
    command: list[str],
    output: Path,
    what: str,
    launches: int = DEFAULT_LAUNCHES,
    agreement: float = DEFAULT_AGREEMENT,
    attempts: int = DEFAULT_ATTEMPTS,
    budget: float | None = None,
    narrow: str | None = None,
    bound: float = DEFAULT_BOUND,
) -> int:
    """Run `command` (which writes its result to the path given after it as --output)
    `launches` times, then as the budget allows; write the merged result to `output` (CSV
    for a calibration, JSON for a bench); return how many launches ran."""
    if launches < 1 or attempts < 1 or agreement < 1 or (budget is not None and budget < 0):
        raise ValueError("launches and attempts must be >= 1, agreement >= 1, budget >= 0")
    if output.suffix == ".json":
        return interleave([command], [output], launches, budget, narrow, bound)[0]
    started = time.monotonic()
    for _ in range(attempts):
        parts = [_launched(command, output, index, False) for index in range(launches)]
        split = _split_sizes(parts, agreement)
        falling = None if split else _unphysical_line(parts)
        if not split and not falling:
            break
    else:
        if falling:
            raise MeasurementError(
                f"{what}: {falling} in {attempts} attempts of {launches} launches: "
                "the machine is too busy"
            )
        worst = [part[split[0]] for part in parts]
        raise MeasurementError(
            f"{what}: its {launches} launches disagree at {split[0]} B, no majority within "
            f"{agreement:g}x of their median ({min(worst):.3g} to {max(worst):.3g} s) in "
            f"{attempts} attempts: the machine is too busy"
        )
    full_launch = (time.monotonic() - started) / len(parts)  # the costliest kind of launch
    while budget is not None and narrow is not None:
        chosen = _widest(parts, False, bound)
        if not chosen or time.monotonic() - started + full_launch > budget:
            break
        parts.append(_launched(_narrowed(command, narrow, chosen), output, len(parts), False))
    write_text(output, _calibration_csv(parts))
    return len(parts)


def interleave(
    commands: Sequence[list[str]],
    outputs: Sequence[Path],
    launches: int = DEFAULT_LAUNCHES,
    budget: float | None = None,
    narrow: str | None = None,
    bound: float = DEFAULT_BOUND,
) -> list[int]:
    """Launch benches in turns, `launches` rounds (the first of each round rotating), then
    rounds of the sizes whose intervals are wider than `bound`, while the budget (seconds,
    for all of them) fits another round; write each bench's merged document to its output
    once all are done; return how many launches each had."""
    if len(commands) != len(outputs) or not commands:
        raise ValueError("give one --output per measurement")
    if any(output.suffix != ".json" for output in outputs) and len(commands) > 1:
        raise ValueError("only benches (JSON outputs) are interleaved")
    if launches < 1 or (budget is not None and budget < 0):
        raise ValueError("launches must be >= 1, budget >= 0")
    started = time.monotonic()
    parts: list[list[Launch]] = [[] for _ in commands]

    def launch_round(turn: int, sizes: Sequence[list[int] | None]) -> None:
        """Each command once (narrowed to its sizes; None: all, []: not this round), the
        first rotating with the turn."""
        for index in np.roll(np.arange(len(commands)), -turn):
            command, chosen = commands[index], sizes[index]
            if chosen == []:
                continue
            if chosen is not None:
                command = _narrowed(command, narrow, chosen)
            parts[index].append(_launched(command, outputs[index], len(parts[index]), True))

    for turn in range(launches):
        launch_round(turn, [None] * len(commands))
    full_round = (time.monotonic() - started) / launches  # the costliest kind of round
    turn = launches
    while budget is not None and narrow is not None:
        sizes = [_widest(part, True, bound) for part in parts]
        if not any(sizes) or time.monotonic() - started + full_round > budget:
            break
        launch_round(turn, sizes)
        turn += 1
    from .bench import merge_documents  # the bench's own record format

    for part, output in zip(parts, outputs, strict=True):
        write_json(output, merge_documents(part))
    return [len(part) for part in parts]


def _widest(parts: Sequence[Launch], bench: bool, bound: float) -> list[int]:
    """The sizes worth another launch: the third of them (at least one) whose intervals are
    widest, among those wider than `bound`, in order of size."""
    widths = _widths(parts, bench)
    widest = sorted((s for s, w in widths.items() if w > bound), key=lambda s: -widths[s])
    return sorted(widest[: math.ceil(len(widths) / 3)])


def _launched(command: list[str], output: Path, index: int, bench: bool) -> Launch:
    """One launch's result, from its own file beside `output` (removed after)."""
    part = output.with_name(f"{output.name}.launch{index}")
    try:
        done = subprocess.run([*command, "--output", str(part)], check=False)
        if done.returncode != 0:
            raise MeasurementError(f"launch {index + 1} exited with {done.returncode}")
        if bench:
            return json.loads(part.read_text())
        table = np.loadtxt(part, delimiter=",", skiprows=1, ndmin=2)
        return {int(size): float(seconds) for size, seconds in table[:, :2]}
    finally:
        part.unlink(missing_ok=True)


def _split_sizes(parts: Sequence[dict[int, float]], agreement: float) -> list[int]:
    """The sizes at which no majority of the launches lies within `agreement` of their
    median."""
    split = []
    for size in parts[0]:
        times = np.array([part[size] for part in parts])
        median = np.median(times)
        near = (times <= median * agreement) & (times >= median / agreement)
        if near.sum() * 2 <= len(parts):
            split.append(size)
    return split


def _unphysical_line(parts: Sequence[dict[int, float]]) -> str | None:
    """The line α + β·bytes through the launches' medians where no link could have it (the
    fabric's fit refuses it: model.fit.line_problem); None where one could, or where fewer
    than two sizes leave no line."""
    medians = {size: float(np.median(times)) for size, times in _samples(parts).items()}
    if len(medians) < 2:
        return None
    sizes = sorted(medians)
    points = Points(np.array(sizes, dtype=float), np.array([medians[s] for s in sizes]))
    alpha, beta = least_squares(points)
    if line_problem(alpha, beta) is None:
        return None
    return f"the line through its medians has alpha={alpha:.3g} s, beta={beta:.3g} s/B"


def _samples(parts: Sequence[dict[int, float]]) -> dict[int, list[float]]:
    """Each size's launch medians, over the launches that measured it."""
    found: dict[int, list[float]] = {}
    for part in parts:
        for size, seconds in part.items():
            found.setdefault(size, []).append(seconds)
    return found


def _widths(parts: Sequence[Launch], bench: bool) -> dict[int, float]:
    """Per size, the widest relative interval of its points, as the launches so far give."""
    if not bench:
        return {
            size: relative_width(*median_interval(times, [1] * len(times)))
            for size, times in _samples(parts).items()
        }
    from .bench import merge_documents

    widths: dict[int, float] = {}
    for record in merge_documents(parts)["records"]:
        timing = record["timing"]
        width = relative_width(timing["time_median_s"], timing["low_s"], timing["high_s"])
        widths[record["elements"]] = max(widths.get(record["elements"], 0.0), width)
    return widths


def _narrowed(command: list[str], option: str, sizes: Sequence[int]) -> list[str]:
    """`command` with the value after `option` (its comma-separated sizes) set to `sizes`."""
    if option not in command[:-1]:
        raise ValueError(f"the measurement's command has no {option} to narrow")
    at = command.index(option) + 1
    return [*command[:at], ",".join(map(str, sizes)), *command[at + 1 :]]


def _calibration_csv(parts: Sequence[dict[int, float]]) -> str:
    """bytes, the median over launches, its interval, and how many launches measured it."""
    rows = []
    for size, times in sorted(_samples(parts).items()):
        median, low, high = median_interval(times, [1] * len(times))
        rows.append(f"{size},{median:.9e},{low:.9e},{high:.9e},{len(times)}\n")
    return "bytes,seconds,low_s,high_s,launches\n" + "".join(rows)
