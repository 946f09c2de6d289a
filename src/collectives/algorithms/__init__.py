"""The registry of all-reduce algorithms: name -> allreduce(comm, x) -> ndarray.

Each algorithm is one module with one function of that signature (as in MPICH's
src/mpi/coll/allreduce/), written against collectives.comm.Communicator only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from ..comm import Communicator
from . import binomial_tree, naive, rabenseifner, recursive_doubling, ring

Allreduce = Callable[[Communicator, np.ndarray], np.ndarray]

ALGORITHMS: dict[str, Allreduce] = {
    "naive": naive.allreduce,
    "ring": ring.allreduce,
    "recursive_doubling": recursive_doubling.allreduce,
    "rabenseifner": rabenseifner.allreduce,
    "binomial_tree": binomial_tree.allreduce,
}


def get(name: str) -> Allreduce:
    """The algorithm called `name`; KeyError lists the valid names."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise KeyError(f"unknown algorithm {name!r}; valid: {', '.join(ALGORITHMS)}") from None


def describe(name: str) -> str:
    """The first line of an algorithm's module docstring."""
    return (sys.modules[ALGORITHMS[name].__module__].__doc__ or "").strip().splitlines()[0]
