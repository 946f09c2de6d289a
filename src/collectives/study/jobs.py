"""What the pipeline's jobs ask for: a measure job's memory, and the timing stage's budget.
wallclock.budget is shared by every timing job (ping-pongs, exchanges, benches, library
runs) in proportion to the points it times times its ranks, so that a job's extra launches
cost what its share of the machine buys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..registry import parse_variant
from ..run.measure import memory_needed
from ..run.pingpong import PINGPONG_RANKS
from .config import Plan, Wallclock
from .grid import expand_axis
from .tuning import FORCED, forced_algorithms, setting_options, switch_option, tuning_keys

LAUNCHER_MB = 200  # the Python process that launches the ranks
RANK_PROCESS_MB = 40  # one rank's interpreter with numpy, before its vectors


def measure_memory_mb(variant: str, ranks: int, elements: int, dtype: str, data: str) -> int:
    """The megabytes a measure job of `variant` touches: what its run's own memory check
    counts (run.measure.memory_needed), its rank processes and the launching one."""
    itemsize = np.dtype(dtype).itemsize
    needed = memory_needed(ranks, elements, itemsize, data, parse_variant(variant)[0])
    return int(LAUNCHER_MB + ranks * RANK_PROCESS_MB + needed / 1e6)


def timing_ranks(ranks: str | None) -> int:
    """How many ranks a timing job runs: its N (a bench or an exchange), else a
    ping-pong's pair."""
    return int(ranks) if ranks is not None else PINGPONG_RANKS


def pingpong_sizes(settings: Mapping[str, Any]) -> list[int]:
    """The message sizes of a ping-pong fabric's `pingpong` settings."""
    return expand_axis(settings["sizes"])


def exchange_keys(wallclock: Wallclock | None) -> list[tuple[str, int]]:
    """Every timed (transport, N): each has an exchange benchmark and a bench."""
    if wallclock is None:
        return []
    return [(t, n) for t in wallclock.transports for n in wallclock.ranks]


def bench_points(wallclock: Wallclock, transport: str) -> int:
    """The points a bench on `transport` times: our algorithms and the library peers, at
    every size."""
    entries = len(wallclock.algorithms) + len(wallclock.peers_for(transport))
    return entries * len(wallclock.elements)


def library_points(plan: Plan, library: str, setting: str) -> int:
    """The points a library run times: MPI_Allreduce alone, or (FORCED) switched to each
    forced algorithm, at every size."""
    forced = forced_algorithms(plan.algorithms, list(plan.libraries), library)
    entries = len(forced) if setting == FORCED else 1
    return entries * len(plan.wallclock.elements)


def library_tuning_keys(
    plan: Plan, settings: list[str] | None = None
) -> list[tuple[str, str, int]]:
    """Every timed (library, setting, N) of the plan's tuning (none without a wallclock
    section or libraries)."""
    if not (plan.wallclock and plan.libraries):
        return []
    return tuning_keys(
        plan.algorithms, list(plan.libraries), plan.wallclock.library_ranks, settings
    )


def total_weight(plan: Plan, pingpongs: Mapping[str, Mapping[str, Any]]) -> int:
    """Every timing job's points x ranks, summed. `pingpongs`: each ping-pong fabric's
    settings by name."""
    wallclock = plan.wallclock
    if wallclock is None:
        return 0
    calibrations = [len(pingpong_sizes(s)) * PINGPONG_RANKS for s in pingpongs.values()]
    exchanges = [
        len(pingpong_sizes(pingpongs[wallclock.fabrics[t]])) * n
        for t, n in exchange_keys(wallclock)
    ]
    benches = [bench_points(wallclock, t) * n for t, n in exchange_keys(wallclock)]
    library_runs = [library_points(plan, lib, s) * n for lib, s, n in library_tuning_keys(plan)]
    return sum(calibrations + exchanges + benches + library_runs)


def budget_share(
    plan: Plan, pingpongs: Mapping[str, Mapping[str, Any]], points: int, ranks: int
) -> float | None:
    """Seconds of wallclock.budget for a job timing `points` points on `ranks` ranks: its
    share of every timing job's points x ranks (None without a wallclock section: its
    launches only)."""
    if plan.wallclock is None:
        return None
    return plan.wallclock.budget * points * ranks / total_weight(plan, pingpongs)


def bench_protocol(wallclock: Wallclock) -> str:
    """The timing protocol's options of `collectives bench`."""
    return (
        f"--warmup {wallclock.warmup} --iterations {wallclock.iterations}"
        f" --rounds {wallclock.rounds} --min-time {wallclock.min_time}"
    )


def budget_option(share: float | None) -> str:
    """`--budget SECONDS` of `collectives repeat` (nothing without a share: its launches
    only)."""
    return "" if share is None else f"--budget {share:.1f}"


def calibration_options(settings: Mapping[str, Any], share: float | None) -> str:
    """`collectives repeat`'s launches, agreement and budget for a ping-pong or an
    exchange, from its ping-pong's settings."""
    return (
        f"--launches {settings['launches']} --agreement {settings['agreement']}"
        f" {budget_option(share)} --narrow=--sizes"
    )


def bench_options(wallclock: Wallclock, share: float | None) -> str:
    """`collectives repeat`'s launches, budget and noise bound for a bench or a library run."""
    return (
        f"--launches {wallclock.launches} {budget_option(share)}"
        f" --bound {wallclock.noise_bound} --narrow=--elements"
    )


def library_options(entry: Mapping[str, str], descriptor: str) -> str:
    """`collectives library` options for a library entry: install its package beside its
    descriptor (resources/mpi/{library}/), or find it at its prefix (default: this
    environment)."""
    if "package" in entry:
        prefix = descriptor.removesuffix(".json")
        return f"--package {entry['package']} --prefix {prefix}"
    return f"--prefix {entry['prefix']}" if "prefix" in entry else ""


def library_command(
    plan: Plan, descriptor: str, library: str, setting: str, ranks: int,
    selection: list[str] | None, seed: int, timeout_minutes: int,
) -> str:  # fmt: skip
    """One library run's measurement: its bench under the library's mpiexec with the
    setting's options (FORCED: switching among the forced algorithms)."""
    wallclock = plan.wallclock
    switch = switch_option(plan.algorithms, list(plan.libraries), library, setting)
    return (
        f"collectives mpiexec --library {descriptor} --ranks {ranks}"
        f" {setting_options(setting, selection)} -- bench --transport mpi --ranks {ranks}"
        f" {switch or '--peers mpi'} --elements {','.join(map(str, wallclock.elements))}"
        f" --dtype {plan.dtype} --seed {seed} {bench_protocol(wallclock)}"
        f" --timeout {timeout_minutes}m"
    )
