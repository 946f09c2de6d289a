"""Byte and time quantities as people read them: 4 KiB, 3.5 MiB, 250 ms, 3 us."""

from __future__ import annotations


def format_bytes(value: float, _pos: object = None) -> str:
    """1 -> '1 B', 4096 -> '4 KiB', 1048576 -> '1 MiB' (3 significant digits)."""
    if value <= 0:
        return "0"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} B"


def format_seconds(value: float, _pos: object = None) -> str:
    """A duration with a readable unit, 3 significant digits: 3e-6 -> '3 us'."""
    if value <= 0:
        return "0"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0e} s"
