"""Shared fixtures: every test must leave no rank process and no shared-memory segment."""

from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path

import pytest

from tests.support.processes import child_pids

SHM = Path("/dev/shm")


@pytest.fixture(autouse=True)
def leaves_nothing_behind():
    """Fail any test after which a child process or a /dev/shm segment is left over."""
    before = set(SHM.iterdir()) if SHM.exists() else set()
    yield
    assert mp.active_children() == []
    assert child_pids(os.getpid()) == []
    after = set(SHM.iterdir()) if SHM.exists() else set()
    assert after <= before, f"shared-memory segments left behind: {after - before}"
