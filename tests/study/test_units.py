"""Readable quantities."""

from collectives.study.units import format_bytes, format_seconds


def test_units():
    assert format_bytes(1) == "1 B"
    assert format_bytes(4096) == "4 KiB"
    assert format_bytes(3 * 2**20 + 2**19) == "3.5 MiB"
    assert format_bytes(0) == "0"
    assert format_seconds(3e-6) == "3 us"
    assert format_seconds(0.25) == "250 ms"
    assert format_seconds(1.70905e-6) == "1.71 us"
