"""Processes on this machine, as /proc lists them."""

from __future__ import annotations

from pathlib import Path


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
