"""Wall-clock mode: the collective alone, timed, beside the library all-reduces it rivals.

One launch runs every (message size, algorithm) on the same ranks: after `warmup` untimed
iterations, `iterations` timed ones, each started together after a barrier and timed on
every rank; an iteration's time is the mean over the ranks, as osu_allreduce's "Avg
Latency" (so the clusters' osu_allreduce logs and these runs read the same way), and a
record reports the median and minimum over the timed iterations. The peers run in the
same processes on the same inputs: MPI_Allreduce (whatever the MPI library selects; the
mpi transport only) and torch.distributed's Gloo backend on CPU. Every result is checked
against the exact sum; our algorithms' counts (of the last iteration) against theory.
algbw = bytes / time and busbw = algbw * 2(N-1)/N, the nccl-tests conventions.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import registry
from ..transport.accounting import COUNT_FIELDS, LEDGER_FIELDS, RunCounts
from ..transport.launch import RankFailure
from .libraries import short_version
from .measure import (
    MeasurementError,
    UsageError,
    compare_with_theory,
    make_input,
    started_ranks,
    transport_named,
    validate,
    validate_vectors,
)
from .record import (
    DEFAULT_ITERATIONS,
    DEFAULT_TIMEOUT,
    DEFAULT_WARMUP,
    Record,
    Timing,
    bus_bandwidth,
    versions,
)

PEERS = {"mpi": "MPI_Allreduce", "gloo": "gloo"}
BENCH_VERSION = 2

Step = tuple[Callable[[], object], Callable[[], np.ndarray]]  # (untimed reset, timed call)


def bench(
    algorithm_names: Sequence[str],
    ranks: int | None,
    sizes: Sequence[int],
    *,
    dtype: str = "float64",
    warmup: int = DEFAULT_WARMUP,
    iterations: int = DEFAULT_ITERATIONS,
    peers: Sequence[str] = (),
    transport: str = "queue",
    parameters: Mapping[str, int] | None = None,
    seed: int = 0,
    timeout: float = DEFAULT_TIMEOUT,
) -> dict[str, Any] | None:
    """Time every algorithm and peer at every size on one set of ranks.

    `parameters` gives values of the algorithms' parameters; each algorithm takes those it
    declares. Returns the bench document (its `records` one Record per (entry, size), with
    its timing) on the root; None on the other ranks of an MPI job.
    """
    ranks_on = transport_named(transport)
    ranks = started_ranks(ranks_on, ranks)
    setup = _Setup(ranks, np.dtype(dtype), warmup, iterations, tuple(peers), transport, seed)
    chosen = _check_request(setup, algorithm_names, sizes, parameters or {})
    names = [*algorithm_names, *(PEERS[p] for p in peers)]
    width = iterations + 1 + len(LEDGER_FIELDS)  # times, verified, ledger: per entry and size
    made: list[str] = []  # the Gloo store's directory, in the process that made it

    def make_store() -> str:
        made.append(tempfile.mkdtemp(prefix="collectives-gloo-"))
        return made[0]

    store = ranks_on.from_root(make_store) if "gloo" in peers else None
    if "gloo" in peers:
        import torch.distributed  # noqa: F401  imported once, before forking ranks
    program = functools.partial(_time_all, setup, chosen, sizes, width, store)
    try:
        run = ranks_on.launch(
            ranks, lambda rank: None, program,
            results=ranks_on.result_array((ranks, len(sizes) * len(names) * width), np.float64),
            largest_message=max(sizes) * setup.dtype.itemsize, timeout=timeout,
        )  # fmt: skip
    except RankFailure as exc:
        raise MeasurementError(f"bench N={ranks}: {exc}") from None
    finally:
        for directory in made:  # the root's launch returns once every rank is done with it
            shutil.rmtree(directory, ignore_errors=True)
    if run is None:
        return None
    cells = run.results.reshape(ranks, len(sizes), len(names), width)
    records = [
        _record(name, chosen.get(name), size, cells[:, s, e], setup)
        for s, size in enumerate(sizes)
        for e, name in enumerate(names)
    ]
    failed = [f"{r.algorithm} M={r.elements}" for r in records if not r.verified]
    if failed:
        raise MeasurementError(f"bench N={ranks}: wrong sums from {', '.join(failed)}")
    return _document(setup, records)


def _document(setup: _Setup, records: list[Record]) -> dict[str, Any]:
    """The bench document: the run's settings, the software, one record per entry and size."""
    return {
        "bench_version": BENCH_VERSION,
        "transport": setup.transport,
        "ranks": setup.ranks,
        "dtype": setup.dtype.name,
        "warmup": setup.warmup,
        "iterations": setup.iterations,
        "peers": list(setup.peers),
        "libraries": _library_versions(setup.peers),
        "versions": versions(),
        "records": [record.to_dict() for record in records],
    }


def _time_all(setup, chosen, sizes, width, store, comm, _prepared) -> np.ndarray:
    """One rank's program: every entry at every size, timed; per (size, entry) a cell of
    the iteration times, whether the result was the exact sum, and the last ledger."""
    iterations, ranks, np_dtype = setup.iterations, setup.ranks, setup.dtype
    steps = _steps(comm, chosen, setup.peers, store)
    row = np.zeros(len(sizes) * len(steps) * width)
    cells = iter(row.reshape(-1, width))
    for size in sizes:
        x = np.empty(size, dtype=np_dtype)
        make_input(x, comm.rank, setup.seed, "int", ranks)
        x.flags.writeable = False
        expected = _exact_sum(ranks, size, np_dtype, setup.seed)
        for make_step in steps:
            reset, call = make_step(x)
            times = []
            for index in range(setup.warmup + iterations):
                reset()
                comm.barrier()
                started = time.perf_counter()
                result = call()
                if index >= setup.warmup:
                    times.append(time.perf_counter() - started)
            cell = next(cells)
            cell[:iterations] = times
            cell[iterations] = np.array_equal(result, expected)
            cell[iterations + 1 :] = comm.ledger.as_row()
    if "gloo" in setup.peers:
        import torch.distributed as dist

        dist.destroy_process_group()
    return row


@dataclass(frozen=True)
class _Setup:
    """What every entry of one bench run shares."""

    ranks: int
    dtype: np.dtype
    warmup: int
    iterations: int
    peers: tuple[str, ...]
    transport: str
    seed: int


def _check_request(
    setup: _Setup,
    algorithm_names: Sequence[str],
    sizes: Sequence[int],
    parameters: Mapping[str, int],
) -> dict[str, dict[str, int]]:
    """UsageError for anything that cannot run, before any rank starts; each algorithm's
    parameters, defaults filled in."""
    ranks, dtype, peers = setup.ranks, setup.dtype.name, setup.peers
    if not algorithm_names and not peers:
        raise UsageError("nothing to time: give algorithms or peers")
    if not sizes:
        raise UsageError("give at least one message size")
    repeated = sorted({name for name in algorithm_names if algorithm_names.count(name) > 1})
    if repeated:
        raise UsageError(f"{repeated[0]} is listed twice in the algorithms")
    unused = set(parameters)
    chosen = {}
    for name in algorithm_names:
        entry = registry.ALGORITHMS.get(name)
        declared = {p.name for p in entry.parameters} if entry else set()
        given = {key: value for key, value in parameters.items() if key in declared}
        unused -= set(given)
        chosen[name] = validate(name, ranks, min(sizes), dtype, "int", given)[1]
    if unused:
        raise UsageError(f"{sorted(unused)[0]} applies to none of {', '.join(algorithm_names)}")
    validate_vectors(ranks, min(sizes), dtype, "int")
    if setup.warmup < 0 or setup.iterations < 1:
        raise UsageError(
            f"need warmup >= 0 and iterations >= 1, got {setup.warmup} and {setup.iterations}"
        )
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        raise UsageError(f"unknown peer {unknown[0]!r}; valid peers: {', '.join(PEERS)}")
    if "mpi" in peers and dtype == "float16":
        raise UsageError("MPI has no float16 sum; use another dtype with the mpi peer")
    if "mpi" in peers and setup.transport != "mpi":
        raise UsageError("the mpi peer (MPI_Allreduce) needs --transport mpi")
    if "gloo" in peers:
        try:
            import torch.distributed as dist
        except ImportError:
            raise UsageError("the gloo peer needs torch: pip install 'collectives[gloo]'") from None
        if not dist.is_available() or not dist.is_gloo_available():
            raise UsageError("this torch build has no Gloo backend")
    return chosen


def _steps(comm, chosen, peers, store) -> list[Callable[[np.ndarray], Step]]:
    """For each entry, a function of the input giving its untimed reset and timed call."""
    steps = []
    for name, parameters in chosen.items():
        allreduce = registry.ALGORITHMS[name].bind(**parameters)
        steps.append(lambda x, f=allreduce: (comm.restart_counts, lambda: f(comm, x)))
    for peer in peers:
        if peer == "mpi":
            steps.append(functools.partial(_mpi_allreduce, comm))
        else:
            steps.append(_gloo_allreduce_factory(comm, store))
    return steps


def _mpi_allreduce(comm, x: np.ndarray) -> Step:
    """MPI_Allreduce(x, out, MPI_SUM) on the job's MPI_COMM_WORLD."""
    from mpi4py import MPI

    out = np.empty_like(x)

    def call() -> np.ndarray:
        comm.world.Allreduce(x, out, op=MPI.SUM)
        return out

    return comm.restart_counts, call


def _gloo_allreduce_factory(comm, store: str | None) -> Callable[[np.ndarray], Step]:
    """Join a Gloo process group over a FileStore and return the step maker."""
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        store=dist.FileStore(os.path.join(store, "store"), comm.size),
        rank=comm.rank,
        world_size=comm.size,
    )

    def step(x: np.ndarray) -> Step:
        source = torch.from_numpy(x.copy())
        work = source.clone()

        def call() -> np.ndarray:
            dist.all_reduce(work)  # in place, SUM
            return work.numpy()

        return (lambda: (work.copy_(source), comm.restart_counts())), call

    return step


@functools.cache
def _exact_sum_cached(ranks: int, size: int, dtype: str, seed: int) -> np.ndarray:
    exact = np.zeros(size, dtype=np.int64)
    one = np.empty(size, dtype=np.dtype(dtype))
    for rank in range(ranks):
        make_input(one, rank, seed, "int", ranks)
        exact += one.astype(np.int64)
    return exact.astype(dtype)


def _exact_sum(ranks: int, size: int, dtype: np.dtype, seed: int) -> np.ndarray:
    """The all-reduce's exact result: integer-valued inputs make every order exact."""
    return _exact_sum_cached(ranks, size, dtype.name, seed)


def _record(
    name: str, parameters: dict[str, int] | None, size: int, cells: np.ndarray, setup: _Setup
) -> Record:
    """One entry at one size: its Record, with its timing; counts for ours only (those
    with `parameters`; a library's all-reduce has None)."""
    ours = parameters is not None
    iterations, ranks, dtype = setup.iterations, setup.ranks, setup.dtype
    per_iteration = cells[:, :iterations].mean(axis=0)  # osu_allreduce's "Avg Latency"
    median = float(np.median(per_iteration))
    algbw = size * dtype.itemsize / median / 1e9
    timing = Timing(
        warmup=setup.warmup, iterations=iterations, times_s=[float(t) for t in per_iteration],
        time_min_s=float(per_iteration.min()), time_median_s=median, algbw_GBps=algbw,
        busbw_GBps=bus_bandwidth(algbw, ranks),
    )  # fmt: skip
    counted = dict.fromkeys(
        [*COUNT_FIELDS, "bytes_sent", "bytes_recv", "elements_reduced", "theory",
         "link_classes", "matches_theory"]
    )  # fmt: skip
    if ours:
        counts = RunCounts.from_ledgers(cells[:, iterations + 1 :].astype(np.int64))
        counted = compare_with_theory(
            name, counts, None, ranks, size, dtype.itemsize, parameters
        ).fields
    right = cells[:, iterations].astype(bool)
    return Record(
        algorithm=name, parameters=parameters or {}, ranks=ranks, elements=size, dtype=dtype.name,
        itemsize=dtype.itemsize, seed=setup.seed, data="int", transport=setup.transport,
        library=not ours, **counted, trace=None, verified=bool(right.all()),
        max_abs_error=0.0 if right.all() else math.nan, ranks_agree=bool(right.all()),
        wrong_ranks=[int(r) for r in np.flatnonzero(~right)], wall_seconds=None,
        collective_seconds=None, timing=timing, versions=versions(),
    )  # fmt: skip


def _library_versions(peers: Sequence[str]) -> dict[str, str]:
    found = {}
    if "mpi" in peers:
        from mpi4py import MPI

        found["mpi"] = short_version(MPI.Get_library_version().splitlines()[0])
    if "gloo" in peers:
        import torch

        found["gloo"] = f"torch {torch.__version__}"
    return found
