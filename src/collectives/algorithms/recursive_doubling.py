"""Recursive-doubling all-reduce: log2 N rounds, each exchanging the whole vector.

In round k every rank swaps its current partial sum with rank XOR 2^k and adds; after
log2 N rounds all hold the total. A non-power-of-two N is folded first (see folding).

Cost: log2 N α + log2 N nβ + log2 N Mγ
"""

from __future__ import annotations

import numpy as np

from ..comm import Communicator
from .folding import folded


def allreduce(comm: Communicator, x: np.ndarray) -> np.ndarray:
    """Fold to a power of two, exchange-and-add at distances 1, 2, 4, ..., unfold."""
    return folded(comm, x, exchange_and_add)


def exchange_and_add(group: Communicator, result: np.ndarray) -> None:
    """The power-of-two core: swap whole vectors at doubling distances, adding each."""
    distance = 1
    while distance < group.size:
        partner = group.rank ^ distance
        group.reduce_local(group.sendrecv(result, partner, partner), result)
        distance <<= 1
