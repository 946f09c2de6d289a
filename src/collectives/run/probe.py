"""Which all-reduce algorithm an MPI library ran: read off its local reductions.

Every all-reduce algorithm adds a characteristic set of vector pieces on each rank: at N a
power of two and M elements per rank, recursive doubling adds log₂N whole vectors,
Rabenseifner log₂N halving pieces (M/2, M/4, ... M/N), the ring N−1 pieces of M/N. An MPI
library calls a user-defined operation for each local reduction it makes, so a commutative
user-defined sum, which records the length of every piece it is handed, shows which
algorithm ran. A library's selection may depend on the operation: the files exported here
condition on communicator size, message size, element count and commutativity, so a
commutative user sum takes the branch MPI_SUM takes, except in MPICH's Rabenseifner
ranges: MPICH runs Rabenseifner for built-in operations only, and the file sends a user
sum to recursive doubling there. Every size is also all-reduced with MPI_SUM and both
results are checked against the exact sum.

Run under a library's launcher: `mpiexec -n N collectives probe --elements 16,4096`. With
`switch`, every size is probed once per algorithm the library is told through MPI_T to run
(libraries.switch), as a switched bench times them.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import registry
from ..transport.dry import dry_trace
from ..transport.trace import REDUCE
from .libraries import KINDS, Library, LibraryError, short_version


def signature(algorithm: str, ranks: int, elements: int) -> list[int] | None:
    """The sorted lengths of the pieces every rank adds under `algorithm` (at its defaults),
    read from the pieces its dry trace reduces; None where its ranks add different pieces
    (a root's, or a schedule N does not divide evenly)."""
    if ranks < 2:
        return None
    trace = dry_trace(registry.get(algorithm).at_defaults(ranks), ranks, elements, 8)
    bounds = zip(trace.offsets[:-1], trace.offsets[1:], strict=True)
    added = [sorted(trace.amount[a:b][trace.kind[a:b] == REDUCE].tolist()) for a, b in bounds]
    return added[0] if all(pieces == added[0] for pieces in added) else None


# The algorithms an MPI library can be told to run (and that take no parameter a run must
# give): a library's reductions are matched against each one's.
PROBED = tuple(
    name
    for name, entry in registry.ALGORITHMS.items()
    if not entry.required and any(kind.algorithm_id(name) for kind in KINDS.values())
)


def identify(ranks: int, elements: int, pieces: Sequence[Sequence[int]]) -> list[str]:
    """The algorithms whose signature every rank's pieces match: none, one, or at N = 2
    both the ring and Rabenseifner (there they are one algorithm: halve, swap, add)."""
    return [
        algorithm
        for algorithm in PROBED
        if registry.get(algorithm).applies_at(ranks)
        and (expected := signature(algorithm, ranks, elements)) is not None
        and all(sorted(p) == expected for p in pieces)
    ]


def probe(
    elements: Sequence[int], seed: int = 0, switch: Sequence[str] = ()
) -> dict[str, Any] | None:
    """The rank program: per size (and switched algorithm), each rank's reduction pieces and
    whether both sums were exact; the document on rank 0, None elsewhere."""
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    switcher = None
    if switch:
        from .libraries.switch import Switcher

        switcher = Switcher(switch, world)
    pieces: list[int] = []

    def add(incoming, inout, datatype) -> None:
        source = np.frombuffer(incoming, dtype=np.float64)
        target = np.frombuffer(inout, dtype=np.float64)
        target += source
        pieces.append(source.size)

    recorded_sum = MPI.Op.Create(add, commute=True)
    rows = []
    try:
        for size in elements:
            x = np.random.default_rng([seed, world.rank]).integers(-64, 64, size).astype(float)
            exact = np.zeros(size)
            for rank in range(world.size):
                exact += np.random.default_rng([seed, rank]).integers(-64, 64, size)
            for algorithm in switch or [None]:
                communicator = switcher.select(algorithm) if switcher else world
                out = np.empty_like(x)
                communicator.Allreduce(x, out, op=MPI.SUM)
                right = bool(np.array_equal(out, exact))
                # warm-up: a library may switch late
                communicator.Allreduce(x, out, op=recorded_sum)
                pieces.clear()
                world.Barrier()
                communicator.Allreduce(x, out, op=recorded_sum)
                right = right and bool(np.array_equal(out, exact))
                everyone = world.gather((list(pieces), right), root=0)
                if world.rank == 0:
                    seen = [p for p, _ in everyone]
                    rows.append({
                        "elements": size, "switched": algorithm, "pieces": seen,
                        "verified": all(r for _, r in everyone),
                        "algorithms": identify(world.size, size, seen),
                    })  # fmt: skip
    finally:
        recorded_sum.Free()
        if switcher:
            switcher.close()
    if world.rank != 0:
        return None
    library = short_version(MPI.Get_library_version().splitlines()[0])
    return {"ranks": world.size, "library": library, "sizes": rows}


def observe(
    library: Library, ranks: int, elements: Sequence[int], steering: Mapping[str, str] = (),
    timeout: float = 300, switch: Sequence[str] = (),
) -> dict[str, Any]:  # fmt: skip
    """Launch the probe under `library` with `steering` set (switching among `switch`); its
    document."""
    argv = ["probe", "--elements", ",".join(str(m) for m in elements)]
    if switch:
        argv += ["--switch", ",".join(switch)]
    try:
        result = library.collectives(ranks, argv, steering, capture_output=True, text=True,
                                     timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise LibraryError(f"{library.facts.title} probe at N={ranks} timed out") from None
    if result.returncode != 0:
        reason = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise LibraryError(f"{library.facts.title} probe at N={ranks} failed: {reason}")
    return json.loads(result.stdout)
