"""The registry of all-reduce algorithms: name -> allreduce(comm, x, **parameters).

Each algorithm is one module with one function of that signature (as in MPICH's
src/mpi/coll/allreduce/), written against collectives.comm.Communicator only; PARAMETERS
names the keyword arguments of the few that take any.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from . import binomial_tree, hierarchical, naive, rabenseifner, recursive_doubling, ring

Allreduce = Callable[..., np.ndarray]  # (comm: Communicator, x, **parameters) -> the sum

ALGORITHMS: dict[str, Allreduce] = {
    "naive": naive.allreduce,
    "ring": ring.allreduce,
    "recursive_doubling": recursive_doubling.allreduce,
    "rabenseifner": rabenseifner.allreduce,
    "binomial_tree": binomial_tree.allreduce,
    "hierarchical": hierarchical.allreduce,
}

# Algorithms that take parameters, and which (keyword arguments of their allreduce).
PARAMETERS: dict[str, tuple[str, ...]] = {"hierarchical": ("ranks_per_node",)}


def get(name: str) -> Allreduce:
    """The algorithm called `name`; KeyError lists the valid names."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise KeyError(f"unknown algorithm {name!r}; valid: {', '.join(ALGORITHMS)}") from None


def describe(name: str) -> str:
    """The first line of an algorithm's module docstring."""
    return (sys.modules[ALGORITHMS[name].__module__].__doc__ or "").strip().splitlines()[0]


def variant_name(algorithm: str, ranks_per_node: int | None = None) -> str:
    """How the pipeline names an algorithm with its parameters: 'ring', 'hierarchical-G8'."""
    return algorithm if ranks_per_node is None else f"{algorithm}-G{ranks_per_node}"


def parse_variant(name: str) -> tuple[str, int | None]:
    """The inverse of variant_name: (algorithm, ranks_per_node)."""
    algorithm, _, group = name.partition("-G")
    return algorithm, int(group) if group else None
