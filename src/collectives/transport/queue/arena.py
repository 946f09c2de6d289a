"""Working buffers in shared memory, so a receiver can read a large message in place.

Each rank owns a region of one anonymous shared mapping made before the ranks are forked,
so every rank sees every region at the same address. A buffer the algorithm takes from it
(Communicator.copy, the role of MPI_Alloc_mem) is sent with one copy: the receiver adds or
copies straight out of the sender's region, and the send completes when it says it is done.
Buffers return to the region when their array (and every view of it) is gone; a request the
region cannot hold gets ordinary memory, which travels through the staging slots instead.
"""

from __future__ import annotations

import bisect
import weakref

import numpy as np

ALIGN = 64  # a cache line: buffers never share one


class Arena:
    """First-fit allocation of one rank's region of shared memory."""

    def __init__(self, region: np.ndarray) -> None:
        self._memory = memoryview(region).cast("B")
        self._start = region.ctypes.data
        self._end = self._start + region.nbytes
        self._free: list[tuple[int, int]] = [(0, region.nbytes)] if region.nbytes else []

    def empty(self, count: int, dtype: np.dtype) -> np.ndarray | None:
        """An uninitialized array of `count` elements in the region, or None if full."""
        nbytes = count * np.dtype(dtype).itemsize
        need = -(-max(nbytes, 1) // ALIGN) * ALIGN
        for index, (offset, size) in enumerate(self._free):
            if size >= need:
                if size == need:
                    del self._free[index]
                else:
                    self._free[index] = (offset + need, size - need)
                # frombuffer on a memoryview: views of the array keep the array alive, so
                # the buffer is returned only once nothing refers to any part of it
                array = np.frombuffer(self._memory[offset : offset + nbytes], dtype=dtype)
                weakref.finalize(array, self._release, offset, need)
                return array
        return None

    def offset_of(self, buf: np.ndarray) -> int | None:
        """Where a contiguous array lies in the region, or None if it lies elsewhere."""
        address = buf.__array_interface__["data"][0]
        if self._start <= address and address + buf.nbytes <= self._end:
            return address - self._start
        return None

    def _release(self, offset: int, size: int) -> None:
        """Give a buffer back, merging it with free neighbours."""
        index = bisect.bisect(self._free, (offset, size))
        if index < len(self._free) and offset + size == self._free[index][0]:
            size += self._free.pop(index)[1]
        if index > 0 and self._free[index - 1][0] + self._free[index - 1][1] == offset:
            offset, size = self._free[index - 1][0], self._free[index - 1][1] + size
            index -= 1
            del self._free[index]
        self._free.insert(index, (offset, size))
