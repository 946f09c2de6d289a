"""Closed-form counts of every algorithm, exact integers, independent of the implementations.

N ranks, M elements of s bytes; lg = log2; p' = 2^floor(lg N), rem = N - p'. `rounds` and
`bytes_critical` follow the single-port clock rules of collectives.transport.accounting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

COUNT_FIELDS = ("rounds", "messages", "bytes_total", "bytes_critical", "hotspot_bytes")


@dataclass(frozen=True)
class Counts:
    """What theory predicts for one (algorithm, N, M, itemsize)."""

    rounds: int
    messages: int
    bytes_total: int
    bytes_critical: int
    hotspot_bytes: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Textbook:
    """An algorithm's textbook cost shape: rounds and bytes_critical / (M s), in N."""

    rounds: str
    bandwidth: str


def _lg(n: int) -> int:
    """floor(log2 n) for n >= 1."""
    return n.bit_length() - 1


def naive(n: int, m: int, s: int) -> Counts:
    """Rank 0's ports serialize N-1 receives and N-1 sends of the whole vector."""
    every = 2 * (n - 1)
    return Counts(every, every, every * m * s, every * m * s, every * m * s)


def ring(n: int, m: int, s: int) -> Counts:
    """2(N-1) steps of one chunk; chunks differ by at most one element.

    Rank r sends every chunk but r+1 and r+2 and receives every chunk but r and r+1, so it
    moves 4M - (c_r + 2c_{r+1} + c_{r+2}) elements. With q = M mod N chunks of size
    floor(M/N)+1 leading, the smallest such window is 4 floor(M/N) + max(0, 3 - (N - q))
    when q > 0 (the small chunks are q..N-1), and 4M/N when q = 0.
    """
    if n == 1:
        return Counts(0, 0, 0, 0, 0)
    base, extra = divmod(m, n)
    biggest = base + (1 if extra else 0)
    lightest_window = 4 * base + (max(0, 3 - (n - extra)) if extra else 0)
    return Counts(
        rounds=2 * (n - 1),
        messages=2 * n * (n - 1),
        bytes_total=2 * (n - 1) * m * s,
        bytes_critical=2 * (n - 1) * biggest * s,
        hotspot_bytes=(4 * m - lightest_window) * s,
    )


def recursive_doubling(n: int, m: int, s: int) -> Counts:
    """lg p' whole-vector exchanges, plus a fold and an unfold round when rem > 0."""
    lg = _lg(n)
    p = 1 << lg
    rem = n - p
    fold = 2 if rem else 0
    return Counts(
        rounds=lg + fold,
        messages=2 * rem + p * lg,
        bytes_total=(2 * rem + p * lg) * m * s,
        bytes_critical=(lg + fold) * m * s,
        hotspot_bytes=(2 * lg + fold) * m * s,
    )


THEORY: dict[str, Callable[[int, int, int], Counts]] = {
    "naive": naive,
    "ring": ring,
    "recursive_doubling": recursive_doubling,
}

TEXTBOOK: dict[str, Textbook] = {
    "naive": Textbook(rounds="2(N-1)", bandwidth="2(N-1)"),
    "ring": Textbook(rounds="2(N-1)", bandwidth="2(N-1)/N"),
    "recursive_doubling": Textbook(rounds="log2 N", bandwidth="log2 N"),
}


def predict(algorithm: str, ranks: int, elements: int, itemsize: int) -> Counts:
    """The closed-form counts of `algorithm` on `ranks` ranks and `elements` elements."""
    return THEORY[algorithm](ranks, elements, itemsize)
