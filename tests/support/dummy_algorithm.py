"""Dummy all-reduces for the registry tests: the naive one under another name, and naive
recursive doubling piece by piece, which takes a parameter.

Cost: 2(N-1) α + 2(N-1) nβ + (N-1) Mγ
"""

from __future__ import annotations

import numpy as np

from collectives.algorithms import naive, recursive_doubling
from collectives.algorithms.partition import split_evenly
from collectives.comm import Communicator
from collectives.model import theory


def allreduce(comm: Communicator, x: np.ndarray) -> np.ndarray:
    """Gather to rank 0 and broadcast back, as naive does."""
    return naive.allreduce(comm, x)


def allreduce_in_pieces(comm: Communicator, x: np.ndarray, pieces: int) -> np.ndarray:
    """Recursive doubling on each of `pieces` parts in turn: a dummy with a parameter (a
    chunk count)."""
    result = comm.copy(x)
    for part in split_evenly(x.size, pieces):
        result[part] = recursive_doubling.allreduce(comm, x[part])
    return result


def in_pieces_theory(n: int, m: int, s: int, pieces: int) -> theory.Counts:
    """On N a power of two every rank finishes a piece in the same round, so the pieces'
    counts add up."""
    per_piece = [
        theory.recursive_doubling(n, part.stop - part.start, s).as_dict()
        for part in split_evenly(m, pieces)
    ]
    return theory.Counts(**{key: sum(c[key] for c in per_piece) for key in per_piece[0]})
