"""The one registry of algorithm facts: implementation, theory, label, style, parameters.

Every place that needs a fact about an algorithm reads it here, so adding an algorithm is
one module in collectives.algorithms, one closed form in collectives.model.theory and one
entry below. What each MPI library calls an algorithm is that library's own fact
(collectives.run.libraries: one module per library). The textbook cost is read from the
Cost: line of the algorithm's docstring (terms of docs/glossary.md: latency α, bandwidth
nβ with n = M·s bytes, reduction Mγ).
"""

from __future__ import annotations

import difflib
import functools
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .algorithms import (
    binomial_tree,
    double_binary_tree,
    hierarchical,
    naive,
    nccl_ring,
    one_shot,
    rabenseifner,
    recursive_doubling,
    ring,
    two_shot,
)
from .model import theory
from .model.theory import Counts
from .model.topology import Topology
from .transport.dry import Roles, class_trace, dry_trace, role_trace
from .transport.trace import ClassTrace, Trace

Allreduce = Callable[..., np.ndarray]  # (comm: Communicator, x, **parameters) -> the sum
COST_LINE = re.compile(
    r"^Cost: (?P<latency>.+?) α \+ (?P<bandwidth>.+?) nβ \+ (?:(?P<reduction>.+) )?Mγ$"
)  # a term without a factor ('+ Mγ') has factor 1


@dataclass(frozen=True)
class Style:
    """How figures draw an algorithm: a marker, a line style (matplotlib's names or dash
    tuples) and a colour of the figures' palette: its index, or None for the first one no
    other algorithm names (the palette grows with the registry)."""

    colour: int | None
    marker: str
    dashes: str | tuple[int, tuple[int, ...]]


@dataclass(frozen=True)
class Cost:
    """The textbook cost latency·α + bandwidth·nβ + reduction·Mγ, each factor a formula in N."""

    latency: str
    bandwidth: str
    reduction: str


@dataclass(frozen=True)
class Parameter:
    """A parameter an algorithm takes. Its name is the keyword everywhere outside the
    implementation: the CLI's --name, the config's grid axis, the record's key; its letter
    names it in variant names ('G' in hierarchical-G8). An algorithm that takes it as
    another object (nodes of G ranks as a Topology) gets `convert(value)` as `keyword`."""

    name: str
    letter: str
    help: str
    default: int | None = None  # None: it must be given
    requirement: str = "at least 1"
    fits: Callable[[int, int], bool] = lambda value, ranks: value >= 1  # (value, N)
    keyword: str | None = None
    convert: Callable[[int], Any] = int

    def argument(self, value: int) -> tuple[str, Any]:
        """The implementation's keyword and argument for `value`."""
        return self.keyword or self.name, self.convert(value)


NODE_SIZE = Parameter(
    "ranks_per_node", "G", "ranks per node G (the run needs G dividing N)",
    requirement="at least 1 and dividing the ranks",
    fits=lambda value, ranks: value >= 1 and Topology(value).fits(ranks),
    keyword="nodes", convert=Topology,
)  # fmt: skip


CHUNK_BYTES = Parameter(
    "chunk_bytes", "K", "bytes of a chunk, the unit a pipeline step moves",
    requirement="at least 1",
)  # fmt: skip  # each pipelined algorithm gives it its own default


@dataclass(frozen=True)
class Algorithm:
    """Everything the project knows about one algorithm."""

    name: str
    allreduce: Allreduce
    theory: Callable[..., Counts]  # (N, M, s, *parameters) -> the exact counts
    label: str
    style: Style
    parameters: tuple[Parameter, ...] = field(default=())  # theory takes them in this order
    max_ranks: int | None = None  # the most ranks the libraries that ship it run it on: the
    # grid stops there (it runs at any N when asked directly)
    held_vectors: Callable[[int], int] = lambda ranks: 0  # whole vectors a rank keeps at once
    # beyond those of every run (one-shot keeps its N-1 peers'): for the memory check
    # On nodes: (N, M, s, *parameters) -> per link class (intra, inter) the exact counts.
    theory_by_class: Callable[..., dict[str, dict[str, int]]] | None = None
    # (N, M, s, parameters) -> the shift of rank labels that maps its schedule onto itself
    # (every rank does what the rank `shift` before it does, its peers shifted alike), or
    # None: dry traces then hold one class per `shift` ranks (tests/test_registry.py checks
    # each declaration against the whole trace).
    shift: Callable[[int, int, int, Mapping[str, int]], int | None] = lambda *_: None
    # (N, parameters) -> per rank its role and its peers in order, where ranks of one role
    # run the same code with their peers in the same places: a dry trace without a shift
    # then runs one rank per role (tests/test_registry.py checks it against the whole).
    roles: Callable[[int, Mapping[str, int]], Roles] | None = None

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
                return Cost(
                    **{key: _unwrap(value or "1") for key, value in found.groupdict().items()}
                )
        raise ValueError(
            f"{self.name}: its module docstring has no 'Cost: ... α + ... nβ + ... Mγ'"
        )

    def default_of(self, name: str) -> int | None:
        """Its default for the parameter called `name` (None: a run must give it); KeyError
        if it takes no such parameter."""
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter.default
        raise KeyError(f"{self.name} takes no parameter {name!r}")

    @property
    def required(self) -> tuple[Parameter, ...]:
        """The parameters a run must give (those without a default)."""
        return tuple(p for p in self.parameters if p.default is None)

    def resolve(self, given: Mapping[str, int], ranks: int) -> dict[str, int]:
        """Every parameter of a run on `ranks` ranks, defaults filled in, in declared order;
        ValueError names a parameter that is missing, foreign or unfit for `ranks`."""
        declared = {p.name: p for p in self.parameters}
        foreign = [name for name in given if name not in declared]
        if foreign:
            takes = ", ".join(declared) or "no parameters"
            raise ValueError(f"{foreign[0]} does not apply to {self.name} (it takes {takes})")
        resolved = {}
        for parameter in self.parameters:
            value = given.get(parameter.name, parameter.default)
            if value is None or not parameter.fits(value, ranks):
                got = "none given" if value is None else f"got {value}"
                raise ValueError(
                    f"{self.name} needs {parameter.name} {parameter.requirement} (N={ranks}): {got}"
                )
            resolved[parameter.name] = value
        return resolved

    def bind(self, **parameters: int) -> Callable[[Any, np.ndarray], np.ndarray]:
        """The all-reduce with its (resolved) parameters as its implementation takes them."""
        arguments = dict(p.argument(parameters[p.name]) for p in self.parameters)
        return functools.partial(self.allreduce, **arguments)

    def on_nodes(self, ranks: int, ranks_per_node: int) -> dict[str, int]:
        """Its parameters on `ranks` ranks of nodes of `ranks_per_node`: its defaults, with
        that node size where it takes one; ValueError where it does not run there."""
        if not self.applies_at(ranks):
            raise ValueError(f"{self.name} runs on at most {self.max_ranks} ranks")
        given = {NODE_SIZE.name: ranks_per_node} if NODE_SIZE in self.parameters else {}
        return self.resolve(given, ranks)

    def at_defaults(self, ranks: int) -> Callable[[Any, np.ndarray], np.ndarray]:
        """The all-reduce on `ranks` ranks with every parameter at its default."""
        return self.bind(**self.resolve({}, ranks))

    def applies_at(self, ranks: int) -> bool:
        """Whether the libraries that ship it run it on `ranks` ranks (max_ranks)."""
        return self.max_ranks is None or ranks <= self.max_ranks

    def predict(self, ranks: int, elements: int, itemsize: int, **parameters: int) -> Counts:
        """The closed-form counts of one run (a parameter left out is at its default)."""
        return self.theory(ranks, elements, itemsize, *self._values(parameters, ranks))

    def predict_by_class(
        self, ranks: int, elements: int, itemsize: int, **parameters: int
    ) -> dict[str, dict[str, int]] | None:
        """Per link class the closed-form counts of a run on nodes; None off nodes."""
        if self.theory_by_class is None or NODE_SIZE not in self.parameters:
            return None
        return self.theory_by_class(ranks, elements, itemsize, *self._values(parameters, ranks))

    def trace(
        self,
        ranks: int,
        elements: int,
        itemsize: int,
        parameters: Mapping[str, int],
        topology: Topology,
    ) -> Trace | ClassTrace:
        """Its dry trace with these (resolved) parameters, by classes of ranks where its
        symmetry and the topology's (a shift by whole nodes) leave fewer classes than ranks
        (its own shift's representatives run, their events then copied out to whole
        nodes), else one rank per role where it declares roles."""
        allreduce = self.bind(**parameters)
        shift = self.shift(ranks, elements, itemsize, parameters)
        per_node = topology.ranks_per_node or 1
        period = math.lcm(shift, per_node) if shift else ranks
        if period < ranks and ranks % period == 0:  # the fewest representatives run
            return class_trace(allreduce, ranks, elements, itemsize, shift).widened(period)
        if self.roles is not None:
            return role_trace(allreduce, ranks, elements, itemsize, self.roles(ranks, parameters))
        return dry_trace(allreduce, ranks, elements, itemsize)

    def nodes(self, parameters: Mapping[str, int]) -> Topology | None:
        """The nodes a run with these parameters sits on, if the algorithm takes a node size."""
        return Topology(parameters[NODE_SIZE.name]) if NODE_SIZE in self.parameters else None

    def _values(self, parameters: Mapping[str, int], ranks: int) -> list[int]:
        return list(self.resolve(parameters, ranks).values())


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


def _equal_chunks(ranks: int, elements: int, _itemsize: int, _: Mapping[str, int]) -> int | None:
    """A shift of one rank where the N chunks are equal (ring, two-shot): rank r then sends
    rank 0's chunk sizes, r further on."""
    return 1 if elements % ranks == 0 else None


def _equal_channel_chunks(
    ranks: int, elements: int, _itemsize: int, parameters: Mapping[str, int]
) -> int | None:
    """NCCL's ring: a shift of one rank where every loop's C·N chunks are equal (each loop
    is a multiple of C·N elements, so the last one decides)."""
    return 1 if elements % (parameters["channels"] * ranks) == 0 else None


def _whole_nodes(
    ranks: int, elements: int, itemsize: int, parameters: Mapping[str, int]
) -> int | None:
    """Hierarchical: a shift of one node where its chunks and shards are equal and the
    shards cross nodes by ring (recursive doubling pairs ranks by XOR, not by a shift)."""
    group = parameters[NODE_SIZE.name]
    shard = elements // group
    by_ring = shard * itemsize >= hierarchical.RECURSIVE_DOUBLING_BELOW
    return group if elements % group == 0 and shard % (ranks // group) == 0 and by_ring else None


def _tree_roles(ranks: int, parameters: Mapping[str, int]) -> Roles:
    """Double binary tree: a rank's role is its place in each tree (a root or not, its
    number of children), its peers its parent and children in tree 0, then tree 1."""
    nodes = NODE_SIZE.argument(parameters[NODE_SIZE.name])[1]
    roles = []
    for rank in range(ranks):
        links = [
            double_binary_tree.tree_links(rank, ranks, nodes, tree)
            for tree in range(double_binary_tree.TREES)
        ]
        roles.append((
            tuple((parent is None, len(children)) for parent, children in links),
            tuple(p for parent, children in links for p in [parent, *children] if p is not None),
        ))  # fmt: skip
    return roles


# vLLM's custom all-reduce (vllm/distributed/device_communicators/custom_all_reduce.py,
# _SUPPORTED_WORLD_SIZES = [2, 4, 6, 8]) runs one- and two-shot on NVLink nodes of at most 8
# GPUs; the grid runs them at every N up to there.
VLLM_CUSTOM_ALLREDUCE_RANKS = 8

ALGORITHMS: dict[str, Algorithm] = {
    entry.name: entry
    for entry in (
        Algorithm(
            "naive", naive.allreduce, theory.naive, "naive (gather + broadcast)",
            Style(0, "o", "-"),
        ),
        Algorithm(
            "ring", ring.allreduce, theory.ring, "ring", Style(1, "s", "--"),
            shift=_equal_chunks,
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
            parameters=(NODE_SIZE,), theory_by_class=theory.hierarchical_by_class,
            shift=_whole_nodes,
        ),
        Algorithm(
            "nccl_ring", nccl_ring.allreduce, theory.nccl_ring, "NCCL ring",
            Style(8, "h", (0, (4, 2))),
            parameters=(
                Parameter("channels", "C", "rings the vector is split over",
                          default=nccl_ring.CHANNELS),
                replace(CHUNK_BYTES, default=nccl_ring.CHUNK_BYTES),
            ),
            shift=_equal_channel_chunks,
        ),
        Algorithm(
            "double_binary_tree", double_binary_tree.allreduce, theory.double_binary_tree,
            "double binary tree", Style(6, ">", (0, (2, 1, 2, 3))),
            parameters=(NODE_SIZE, replace(CHUNK_BYTES, default=double_binary_tree.CHUNK_BYTES)),
            roles=_tree_roles,
        ),
        Algorithm(
            "one_shot", one_shot.allreduce, theory.one_shot, "one-shot", Style(9, "<", (0, (1, 1))),
            max_ranks=VLLM_CUSTOM_ALLREDUCE_RANKS, held_vectors=lambda ranks: ranks - 1,
            shift=lambda *_: 1,  # whole vectors to every peer, rank r+k first
        ),
        Algorithm(
            "two_shot", two_shot.allreduce, theory.two_shot, "two-shot",
            Style(3, "p", (0, (6, 2, 1, 2))), max_ranks=VLLM_CUSTOM_ALLREDUCE_RANKS,
            held_vectors=lambda ranks: 1,  # the N copies of its own piece
            shift=_equal_chunks,
        ),
    )
}  # fmt: skip


def get(name: str) -> Algorithm:
    """The algorithm called `name` (a variant name such as 'hierarchical-G8' names its
    algorithm); KeyError lists the valid names."""
    base = name.split("-")[0]
    try:
        return ALGORITHMS[base]
    except KeyError:
        raise KeyError(unknown_algorithm(base)) from None


def unknown_algorithm(name: str) -> str:
    """What to tell of a name that is no algorithm: the closest name, and every one."""
    close = difflib.get_close_matches(name, ALGORITHMS, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown algorithm {name!r}; {hint}valid: {', '.join(ALGORITHMS)}"


def parameters_by_name() -> dict[str, Parameter]:
    """Every parameter some algorithm takes, by name: a name means one parameter, though
    each algorithm may give it its own default (`Algorithm.default_of`)."""
    return {p.name: p for entry in ALGORITHMS.values() for p in entry.parameters}


def variant_name(algorithm: str, parameters: Mapping[str, int] | None = None) -> str:
    """How the pipeline names an algorithm with its parameters: 'ring', 'hierarchical-G8';
    a parameter at its default is left out. A name the registry lacks stays as it is."""
    entry = ALGORITHMS.get(algorithm)
    given = parameters or {}
    tags = [
        f"-{p.letter}{given[p.name]}"
        for p in (entry.parameters if entry else ())
        if p.name in given and given[p.name] != p.default
    ]
    return algorithm + "".join(tags)


def parse_variant(name: str) -> tuple[str, dict[str, int]]:
    """The inverse of variant_name: (algorithm, the parameters its name gives). KeyError for
    a name variant_name would not write (a tag that names no parameter, a parameter at its
    default, tags out of declared order)."""
    algorithm, *tags = name.split("-")
    letters = {p.letter: p.name for p in ALGORITHMS[algorithm].parameters} if tags else {}
    given = {}
    for tag in tags:
        if tag[:1] not in letters or not tag[1:].isdigit():
            raise KeyError(f"{name!r}: {tag!r} names no parameter of {algorithm}")
        given[letters[tag[0]]] = int(tag[1:])
    if tags and variant_name(algorithm, given) != name:
        raise KeyError(f"{name!r}: not a variant name; it reads {variant_name(algorithm, given)!r}")
    return algorithm, given
