"""Shared fixtures: every test must leave no rank process and no shared-memory segment."""

from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path

import pytest

SHM = Path("/dev/shm")


def child_pids(parent: int) -> list[int]:
    """PIDs of live (non-zombie) processes whose parent is `parent`."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            pids.append(int(stat.parent.name))
    return pids


def processes_mentioning(marker: str) -> list[int]:
    """PIDs whose command line contains `marker` (ranks inherit their parent's)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


@pytest.fixture(autouse=True)
def leaves_nothing_behind():
    """Fail any test after which a child process or a /dev/shm segment is left over."""
    before = set(SHM.iterdir()) if SHM.exists() else set()
    yield
    assert mp.active_children() == []
    assert child_pids(os.getpid()) == []
    after = set(SHM.iterdir()) if SHM.exists() else set()
    assert after <= before, f"shared-memory segments left behind: {after - before}"
