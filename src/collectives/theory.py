"""Closed-form counts of every algorithm, exact integers, independent of the implementations.

N ranks, M elements of s bytes; lg = log2; p' = 2^floor(lg N), rem = N - p'. `rounds` and
`bytes_critical` follow the single-port clock rules of collectives.transport.accounting.
The textbook alpha-beta forms (Thakur, Rabenseifner and Gropp 2005) agree: e.g. recursive
doubling lg p alpha + n lg p beta, Rabenseifner 2 lg p alpha + 2 (p-1)/p n beta.
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


def binomial_tree(n: int, m: int, s: int) -> Counts:
    """ceil(lg N) whole-vector steps up the tree and as many down; rank 0 in every one."""
    steps = (n - 1).bit_length()  # ceil(log2 N)
    return Counts(
        rounds=2 * steps,
        messages=2 * (n - 1),
        bytes_total=2 * (n - 1) * m * s,
        bytes_critical=2 * steps * m * s,
        hotspot_bytes=2 * steps * m * s,
    )


def rabenseifner(n: int, m: int, s: int) -> Counts:
    """Recursive halving then doubling over p' chunks, folded like recursive doubling.

    The p' chunks differ by at most one element, the first M mod p' being larger, so the
    first of the 2^k ranges of p'/2^k chunks is the heaviest: W_k = (p'/2^k) floor(M/p') +
    min(M mod p', p'/2^k). The critical path receives the heaviest kept half at every halving
    step (W_1 .. W_lg p') and sends the heaviest range back at every doubling step; the
    busiest rank (new rank 0) moves its whole current range W_0 .. W_{lg p' - 1} at every step
    of both phases. Folding adds a whole vector in and out.
    """
    lg = _lg(n)
    p = 1 << lg
    rem = n - p
    base, extra = divmod(m, p)

    def heaviest(level: int) -> int:
        width = p >> level
        return width * base + min(extra, width)

    fold = 2 * m if rem else 0
    return Counts(
        rounds=2 * lg + (2 if rem else 0),
        messages=2 * p * lg + 2 * rem,
        bytes_total=(2 * (p - 1) + 2 * rem) * m * s,
        bytes_critical=(2 * sum(heaviest(k) for k in range(1, lg + 1)) + fold) * s,
        hotspot_bytes=(2 * sum(heaviest(k) for k in range(lg)) + fold) * s,
    )


THEORY: dict[str, Callable[[int, int, int], Counts]] = {
    "naive": naive,
    "ring": ring,
    "recursive_doubling": recursive_doubling,
    "rabenseifner": rabenseifner,
    "binomial_tree": binomial_tree,
}

TEXTBOOK: dict[str, Textbook] = {
    "naive": Textbook(rounds="2(N-1)", bandwidth="2(N-1)"),
    "ring": Textbook(rounds="2(N-1)", bandwidth="2(N-1)/N"),
    "recursive_doubling": Textbook(rounds="log2 N", bandwidth="log2 N"),
    "rabenseifner": Textbook(rounds="2 log2 N", bandwidth="2(N-1)/N"),
    "binomial_tree": Textbook(rounds="2 log2 N", bandwidth="2 log2 N"),
}


def predict(algorithm: str, ranks: int, elements: int, itemsize: int) -> Counts:
    """The closed-form counts of `algorithm` on `ranks` ranks and `elements` elements."""
    return THEORY[algorithm](ranks, elements, itemsize)
