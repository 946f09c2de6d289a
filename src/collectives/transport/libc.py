"""The few Linux/glibc calls the transport makes through ctypes, loaded once.

Each is an optimization or a safety net, never required: elsewhere they do nothing.
"""

from __future__ import annotations

import ctypes
import signal

try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL(None, use_errno=True)
except OSError:  # no C library to load (not a POSIX system)
    _LIBC = None

_PR_SET_PDEATHSIG = 1
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD_MAX = 32 << 20  # the largest mmap threshold glibc accepts on 64-bit
_MADV_POPULATE_WRITE = 23  # Linux >= 5.14


def _call(name: str, *args: object) -> int | None:
    function = getattr(_LIBC, name, None)
    return None if function is None else function(*args)


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux prctl)."""
    _call("prctl", _PR_SET_PDEATHSIG, signal.SIGKILL)


def release_free_heap() -> None:
    """Return free heap memory to the kernel (glibc malloc_trim)."""
    _call("malloc_trim", 0)


def keep_freed_heap() -> None:
    """Make glibc serve large blocks from the heap and keep freed ones (mallopt)."""
    _call("mallopt", _M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX)
    _call("mallopt", _M_TRIM_THRESHOLD, 1 << 30)


def populate(address: int, length: int) -> bool:
    """Fault in a range of pages in one call (madvise MADV_POPULATE_WRITE); False if not."""
    return _call("madvise", ctypes.c_void_p(address), length, _MADV_POPULATE_WRITE) == 0
