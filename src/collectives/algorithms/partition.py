"""How vectors are cut into chunks, shared by the chunked algorithms."""

from __future__ import annotations

from itertools import accumulate, pairwise


def split_evenly(length: int, parts: int) -> list[slice]:
    """Cut range(length) into `parts` contiguous slices as evenly as possible.

    The first length % parts slices get one element more (numpy.array_split's rule);
    when length < parts the trailing slices are empty.
    """
    base, extra = divmod(length, parts)
    sizes = [base + (1 if index < extra else 0) for index in range(parts)]
    return [slice(lo, hi) for lo, hi in pairwise(accumulate(sizes, initial=0))]


def chunk_start(length: int, parts: int, index: int) -> int:
    """Where slice `index` of split_evenly(length, parts) starts (`length` for index =
    parts), without making the others: a range of chunks costs one step, not `parts`."""
    base, extra = divmod(length, parts)
    return index * base + min(index, extra)
