"""Processes on this machine, as /proc lists them."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

PROC = Path("/proc")
SHM = Path("/dev/shm")
WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # None unless under pytest-xdist
# The lock file of a machine that pytest runs share (CI runs the cluster test beside the
# suite): each run holds it as its workers do, and none can tell its /dev/shm segments from
# the other's, so each test's check of them is left to the caller.
SHARED_MACHINE = os.environ.get("COLLECTIVES_TEST_MACHINE")


def _pids() -> list[int]:
    """PIDs listed in /proc now (any may be gone by the time it is read: a glob of /proc
    can fail on one that vanishes while it is walked, os.listdir cannot)."""
    return [int(name) for name in os.listdir(PROC) if name.isdigit()]


def child_pids(parent: int) -> list[int]:
    """PIDs of live (non-zombie) processes whose parent is `parent`."""
    pids = []
    for pid in _pids():
        try:
            fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            pids.append(pid)
    return pids


def processes_mentioning(marker: str) -> list[int]:
    """PIDs whose command line contains `marker` (ranks inherit their parent's)."""
    found = []
    for pid in _pids():
        try:
            if marker.encode() in (PROC / str(pid) / "cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


def segments() -> set[Path]:
    """The shared-memory segments (files and directories) in /dev/shm now."""
    return set(SHM.iterdir()) if SHM.exists() else set()


class _Machine:
    """This worker's hold on the lock file that the workers of one pytest-xdist run share:
    shared while a test runs, exclusive while clocks are read; nested holds restore the
    outer one (flock converts the one lock of this open file)."""

    def __init__(self) -> None:
        self.file: IO[str] | None = None
        self.held: list[int] = []  # the modes held, innermost last

    @contextmanager
    def hold(self, path: str, alone: bool) -> Iterator[None]:
        """The machine shared with the other workers' tests, or had `alone`."""
        if self.file is None:
            self.file = open(path, "a")
        outer = self.held[-1] if self.held else fcntl.LOCK_UN
        mode = fcntl.LOCK_EX if alone or outer == fcntl.LOCK_EX else fcntl.LOCK_SH
        fcntl.flock(self.file, mode)
        self.held.append(mode)
        try:
            yield
        finally:
            self.held.pop()
            fcntl.flock(self.file, outer)


_MACHINE = _Machine()


@contextmanager
def machine(config: pytest.Config, alone: bool) -> Iterator[None]:
    """Under pytest-xdist or beside another run, the machine shared with the other tests, or
    had `alone` (they wait, and it waits for theirs to end); otherwise nothing to share."""
    lock = config.workerinput["machine_lock"] if WORKER else SHARED_MACHINE  # type: ignore[attr-defined]
    if lock is None:
        yield
        return
    with _MACHINE.hold(lock, alone):
        yield
