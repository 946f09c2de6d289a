"""The one registry of algorithm facts: implementation, theory, label, style, parameters.

Every place that needs a fact about an algorithm reads it here, so adding an algorithm is
one module in collectives.algorithms, one closed form in collectives.model.theory and one
entry below. What each MPI library calls an algorithm is that library's own fact
(collectives.run.libraries: one module per library). The textbook cost is read from the
Cost: line of the algorithm's docstring (terms of docs/glossary.md: latency α, bandwidth
nβ with n = M·s bytes, reduction Mγ).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .algorithms import binomial_tree, hierarchical, naive, rabenseifner, recursive_doubling, ring
from .model import theory
from .model.theory import Counts
from .model.topology import Topology

Allreduce = Callable[..., np.ndarray]  # (comm: Communicator, x, **parameters) -> the sum
COST_LINE = re.compile(
    r"^Cost: (?P<latency>.+?) α \+ (?P<bandwidth>.+?) nβ \+ (?P<reduction>.+) Mγ$"
)


@dataclass(frozen=True)
class Style:
    """How figures draw an algorithm: a colour of seaborn's colour-blind palette, a marker
    and a line style (matplotlib's names or dash tuples)."""

    colour: int
    marker: str
    dashes: str | tuple[int, tuple[int, ...]]


@dataclass(frozen=True)
class Cost:
    """The textbook cost latency·α + bandwidth·nβ + reduction·Mγ, each factor a formula in N."""

    latency: str
    bandwidth: str
    reduction: str


@dataclass(frozen=True)
class Algorithm:
    """Everything the project knows about one algorithm."""

    name: str
    allreduce: Allreduce
    theory: Callable[..., Counts]  # (N, M, s, *parameters) -> the exact counts
    label: str
    style: Style
    parameters: tuple[str, ...] = field(default=())  # keyword arguments of allreduce
    # On nodes of G ranks: (N, M, s, G) -> per link class (intra, inter) the exact counts.
    theory_by_class: Callable[..., dict[str, dict[str, int]]] | None = None

    @property
    def description(self) -> str:
        """The first line of the algorithm module's docstring."""
        return _docstring(self).strip().splitlines()[0]

    @property
    def cost(self) -> Cost:
        """The textbook cost stated on the module docstring's Cost: line."""
        for line in _docstring(self).splitlines():
            found = COST_LINE.match(line.strip())
            if found:
                return Cost(**{key: _unwrap(value) for key, value in found.groupdict().items()})
        raise ValueError(
            f"{self.name}: its module docstring has no 'Cost: ... α + ... nβ + ... Mγ'"
        )

    def bind(self, **parameters: int) -> Callable[[Any, np.ndarray], np.ndarray]:
        """The all-reduce with its parameters given as its implementation takes them (a
        node size G, ranks_per_node, as the Topology of nodes of G ranks)."""
        arguments = {name: parameters[name] for name in self.parameters}
        if "ranks_per_node" in arguments:
            arguments["nodes"] = Topology(arguments.pop("ranks_per_node"))
        return functools.partial(self.allreduce, **arguments)

    def predict(self, ranks: int, elements: int, itemsize: int, **parameters: int) -> Counts:
        """The closed-form counts of one run."""
        return self.theory(ranks, elements, itemsize, *(parameters[p] for p in self.parameters))


def _docstring(algorithm: Algorithm) -> str:
    return sys.modules[algorithm.allreduce.__module__].__doc__ or ""


def _unwrap(formula: str) -> str:
    """'(2(G-1) + inter)' -> '2(G-1) + inter': drop one pair of parentheses around it all."""
    if not (formula.startswith("(") and formula.endswith(")")):
        return formula
    depth = 0
    for index, char in enumerate(formula):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(formula) - 1:
            return formula  # the first parenthesis closes before the end: '(N-1)/N'
    return formula[1:-1]


ALGORITHMS: dict[str, Algorithm] = {
    entry.name: entry
    for entry in (
        Algorithm(
            "naive", naive.allreduce, theory.naive, "naive (gather + broadcast)",
            Style(0, "o", "-"),
        ),
        Algorithm(
            "ring", ring.allreduce, theory.ring, "ring", Style(1, "s", "--"),
        ),
        Algorithm(
            "recursive_doubling", recursive_doubling.allreduce, theory.recursive_doubling,
            "recursive doubling", Style(2, "D", "-."),
        ),
        Algorithm(
            "rabenseifner", rabenseifner.allreduce, theory.rabenseifner, "Rabenseifner",
            Style(4, "^", ":"),
        ),
        Algorithm(
            "binomial_tree", binomial_tree.allreduce, theory.binomial_tree, "binomial tree",
            Style(5, "v", (0, (5, 1, 1, 1))),
        ),
        Algorithm(
            "hierarchical", hierarchical.allreduce, theory.hierarchical, "hierarchical",
            Style(7, "P", (0, (3, 1, 1, 1, 1, 1))),
            parameters=("ranks_per_node",), theory_by_class=theory.hierarchical_by_class,
        ),
    )
}  # fmt: skip


def get(name: str) -> Algorithm:
    """The algorithm called `name` (a variant name such as 'hierarchical-G8' names its
    algorithm); KeyError lists the valid names."""
    base = parse_variant(name)[0]
    try:
        return ALGORITHMS[base]
    except KeyError:
        raise KeyError(f"unknown algorithm {base!r}; valid: {', '.join(ALGORITHMS)}") from None


def variant_name(algorithm: str, ranks_per_node: int | None = None) -> str:
    """How the pipeline names an algorithm with its parameters: 'ring', 'hierarchical-G8'."""
    return algorithm if ranks_per_node is None else f"{algorithm}-G{ranks_per_node}"


def parse_variant(name: str) -> tuple[str, int | None]:
    """The inverse of variant_name: (algorithm, ranks_per_node)."""
    algorithm, _, group = name.partition("-G")
    return algorithm, int(group) if group else None
