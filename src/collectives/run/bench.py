"""Wall-clock mode: the collective alone, timed, beside the library all-reduces it rivals.

One launch runs every (message size, algorithm) on the same ranks. At each size, every
entry first runs `warmup` untimed iterations, which also tell how long one takes; then the
entries take turns, `rounds` times over, each turn a block of timed iterations (so the
points compared at a size share every period of the machine's speed). A point gets at least
`iterations` timed iterations and, OSU-style, enough to fill `min_time` seconds; every rank
agrees on the count. Each iteration is started together after a barrier and timed on every
rank; its time is the mean over the ranks, as osu_allreduce's "Avg Latency" (so the
clusters' osu_allreduce logs and these runs read the same way). A record reports the
median and minimum over the timed iterations and the median's interval (run.timing); more
launches of the same points merge into one record (merge_documents). The peers run in the
same processes on the same inputs: MPI_Allreduce (whatever the MPI library selects; the mpi
transport only) and torch.distributed's Gloo backend on CPU. With `switch`, MPI_Allreduce
also runs once per named algorithm, the library told through MPI_T which to run
(libraries.switch): entry MPI_Allreduce[ring], and MPI_Allreduce[default] for its own
choice. Every result is checked
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
from dataclasses import asdict, dataclass
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
    DEFAULT_MIN_TIME,
    DEFAULT_ROUNDS,
    DEFAULT_TIMEOUT,
    DEFAULT_WARMUP,
    Record,
    Timing,
    bus_bandwidth,
    versions,
)
from .timing import median_interval

PEERS = {"mpi": "MPI_Allreduce", "gloo": "gloo"}
BENCH_VERSION = 3
MAX_BLOCK = 100  # the most timed iterations in one block, however fast the entry

Step = tuple[Callable[[], object], Callable[[], np.ndarray]]  # (untimed reset, timed call)


def bench(
    algorithm_names: Sequence[str],
    ranks: int | None,
    sizes: Sequence[int],
    *,
    dtype: str = "float64",
    warmup: int = DEFAULT_WARMUP,
    iterations: int = DEFAULT_ITERATIONS,
    rounds: int = DEFAULT_ROUNDS,
    min_time: float = DEFAULT_MIN_TIME,
    peers: Sequence[str] = (),
    switch: Sequence[str] = (),
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
    setup = _Setup(ranks, np.dtype(dtype), warmup, iterations, rounds, min_time, tuple(peers),
                   transport, seed, tuple(switch))  # fmt: skip
    chosen = _check_request(setup, algorithm_names, sizes, parameters or {})
    names = [*algorithm_names, *(PEERS[p] for p in peers), *map(switched_entry, switch)]
    # per entry and size: each block's times, each block's length, verified, the ledger
    width = setup.rounds * (setup.block_limit + 1) + 1 + len(LEDGER_FIELDS)
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


TABLE_HEADER = (
    "#       size         count      type   redop  algorithm              time   algbw   busbw"
    " #wrong\n"
    "#        (B)    (elements)                                           (us)  (GB/s)  (GB/s)"
)


def format_table(document: Mapping[str, Any]) -> str:
    """A bench document as nccl-tests prints its results: one row per size and algorithm,
    the median time, algbw and busbw (nccl-tests' definitions), and the ranks whose sum was
    wrong; a header naming the run, a footer with the average busbw."""
    lines = [
        f"# collectives bench: {document['ranks']} ranks over {document['transport']}, "
        f"{document['dtype']}, medians of at least {document['iterations']} timed "
        f"iterations after {document['warmup']} warm-up, {document['launches']} launch(es)",
        "#",
        TABLE_HEADER,
    ]
    busbw = []
    for record in document["records"]:
        timing = record["timing"]
        busbw.append(timing["busbw_GBps"])
        lines.append(
            f"{record['message_bytes']:>12} {record['elements']:>13} {record['dtype']:>9}"
            f"    sum  {record['algorithm']:<19}{timing['time_median_s'] * 1e6:>9.2f}"
            f"{timing['algbw_GBps']:>8.2f}{timing['busbw_GBps']:>8.2f}"
            f"{len(record['wrong_ranks']):>7}"
        )
    if busbw:
        lines.append(f"# Avg bus bandwidth    : {sum(busbw) / len(busbw):.4f}")
    return "\n".join(lines)


def _document(setup: _Setup, records: list[Record]) -> dict[str, Any]:
    """The bench document: the run's settings, the software, one record per entry and size."""
    return {
        "bench_version": BENCH_VERSION,
        "transport": setup.transport,
        "ranks": setup.ranks,
        "dtype": setup.dtype.name,
        "warmup": setup.warmup,
        "iterations": setup.iterations,
        "rounds": setup.rounds,
        "min_time_s": setup.min_time,
        "launches": 1,
        "peers": list(setup.peers),
        "switch": list(setup.switch),
        "libraries": _library_versions([*setup.peers, *(["mpi"] if setup.switch else [])]),
        "versions": versions(),
        "records": [record.to_dict() for record in records],
    }


def _time_all(setup, chosen, sizes, width, store, comm, _prepared) -> np.ndarray:
    """One rank's program: every entry at every size, warmed up, then timed in interleaved
    blocks; per (size, entry) a cell of the blocks' times (zero-padded), their lengths,
    whether the result was the exact sum, and the ledger of its last iteration."""
    ranks, np_dtype, rounds, limit = setup.ranks, setup.dtype, setup.rounds, setup.block_limit
    steps, close = _steps(comm, chosen, setup, store)
    agree = registry.get("ring").at_defaults(ranks)  # every rank's estimate, summed exactly
    row = np.zeros(len(sizes) * len(steps) * width)
    cells = row.reshape(len(sizes), len(steps), width)
    for s, size in enumerate(sizes):
        x = np.empty(size, dtype=np_dtype)
        make_input(x, comm.rank, setup.seed, "int", ranks)
        x.flags.writeable = False
        expected = _exact_sum(ranks, size, np_dtype, setup.seed)
        entries = [make_step(x) for make_step in steps]
        warm = [np.min(_timed(comm, *entry, max(setup.warmup, 1))[0]) for entry in entries]
        # in whole microseconds, so that the sum is exact and every rank gets the same counts
        mean_us = agree(comm, np.round(np.array(warm) * 1e6)) / ranks
        repeats = [setup.block_length(us / 1e6) for us in mean_us]
        for turn in range(rounds):
            for e in np.roll(np.arange(len(entries)), -turn):  # who goes first rotates
                block, result = _timed(comm, *entries[e], repeats[e])
                cell = cells[s, e]
                cell[turn * limit : turn * limit + len(block)] = block
                if turn == rounds - 1:  # the entry's last iteration: its sum and counts
                    cell[rounds * limit : rounds * (limit + 1)] = repeats[e]
                    cell[rounds * (limit + 1)] = np.array_equal(result, expected)
                    cell[rounds * (limit + 1) + 1 :] = comm.ledger.as_row()
    close()
    return row


def _timed(comm, reset, call, repeats: int) -> tuple[np.ndarray, object]:
    """`repeats` iterations, each after its reset and a barrier: their times and the last
    iteration's result."""
    times = np.empty(repeats)
    result = None
    for index in range(repeats):
        reset()
        comm.barrier()
        started = time.perf_counter()
        result = call()
        times[index] = time.perf_counter() - started
    return times, result


@dataclass(frozen=True)
class _Setup:
    """What every entry of one bench run shares."""

    ranks: int
    dtype: np.dtype
    warmup: int
    iterations: int
    rounds: int
    min_time: float
    peers: tuple[str, ...]
    transport: str
    seed: int
    switch: tuple[str, ...] = ()

    @property
    def block_limit(self) -> int:
        """The most iterations a block may hold: what `iterations` asks, or MAX_BLOCK."""
        return max(MAX_BLOCK, math.ceil(self.iterations / self.rounds))

    def block_length(self, seconds_each: float) -> int:
        """Timed iterations per block of an entry taking `seconds_each`: its share of
        `iterations`, or of `min_time` where that asks for more, up to block_limit."""
        if seconds_each <= 0:  # faster than the clock's microsecond: as many as a block holds
            return (
                self.block_limit if self.min_time > 0 else math.ceil(self.iterations / self.rounds)
            )
        fill = math.ceil(self.min_time / self.rounds / seconds_each)
        wanted = max(math.ceil(self.iterations / self.rounds), fill)
        return min(wanted, self.block_limit)


def _check_request(
    setup: _Setup,
    algorithm_names: Sequence[str],
    sizes: Sequence[int],
    parameters: Mapping[str, int],
) -> dict[str, dict[str, int]]:
    """UsageError for anything that cannot run, before any rank starts; each algorithm's
    parameters, defaults filled in."""
    ranks, dtype, peers = setup.ranks, setup.dtype.name, setup.peers
    if not algorithm_names and not peers and not setup.switch:
        raise UsageError("nothing to time: give algorithms, peers or algorithms to switch")
    if not sizes:
        raise UsageError("give at least one message size")
    repeated = _listed_twice(algorithm_names)
    if repeated:
        raise UsageError(f"{repeated} is listed twice in the algorithms")
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
    if setup.rounds < 1 or not setup.min_time >= 0:
        raise UsageError(
            f"need rounds >= 1 and min-time >= 0, got {setup.rounds} and {setup.min_time:g}"
        )
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        raise UsageError(f"unknown peer {unknown[0]!r}; valid peers: {', '.join(PEERS)}")
    if ("mpi" in peers or setup.switch) and dtype == "float16":
        raise UsageError("MPI has no float16 sum; use another dtype with MPI_Allreduce")
    if ("mpi" in peers or setup.switch) and setup.transport != "mpi":
        raise UsageError("MPI_Allreduce (the mpi peer, --switch) needs --transport mpi")
    if "mpi" in peers and setup.switch:
        raise UsageError("--switch steers MPI_Allreduce itself: switch to `default` instead of "
                         "adding the mpi peer")  # fmt: skip
    check_switch(setup.switch)
    if "gloo" in peers:
        try:
            import torch.distributed as dist
        except ImportError:
            raise UsageError("the gloo peer needs torch: pip install 'collectives[gloo]'") from None
        if not dist.is_available() or not dist.is_gloo_available():
            raise UsageError("this torch build has no Gloo backend")
    return chosen


def switched_entry(algorithm: str) -> str:
    """The entry of MPI_Allreduce switched to `algorithm`: 'MPI_Allreduce[ring]'."""
    return f"{PEERS['mpi']}[{algorithm}]"


def switched_algorithm(entry: str) -> str | None:
    """The algorithm a switched entry names; None for any other entry."""
    prefix = f"{PEERS['mpi']}["
    return entry[len(prefix) : -1] if entry.startswith(prefix) and entry.endswith("]") else None


def check_switch(algorithms: Sequence[str]) -> None:
    """UsageError unless this job's MPI library can switch to every one of `algorithms`."""
    if not algorithms:
        return
    from .libraries import LibraryError
    from .libraries.switch import running_kind, switch_values

    repeated = _listed_twice(algorithms)
    if repeated:
        raise UsageError(f"{repeated} is listed twice in --switch")
    try:
        switch_values(running_kind(), algorithms)
    except LibraryError as exc:
        raise UsageError(str(exc)) from None


def _listed_twice(names: Sequence[str]) -> str | None:
    """The first name (alphabetically) listed more than once; None if none is."""
    return min((name for name in names if names.count(name) > 1), default=None)


def _steps(comm, chosen, setup, store) -> tuple[list[Callable[[np.ndarray], Step]], Callable]:
    """For each entry, a function of the input giving its untimed reset and timed call; and
    what releases what the entries hold."""
    steps, closing = [], []
    for name, parameters in chosen.items():
        allreduce = registry.ALGORITHMS[name].bind(**parameters)
        steps.append(lambda x, f=allreduce: (comm.restart_counts, lambda: f(comm, x)))
    for peer in setup.peers:
        if peer == "mpi":
            steps.append(functools.partial(_mpi_allreduce, comm.world, comm.restart_counts))
        else:
            steps.append(_gloo_allreduce_factory(comm, store))
            closing.append(_leave_gloo)
    if setup.switch:
        from .libraries.switch import Switcher

        switcher = Switcher(setup.switch, comm.world)
        for algorithm in setup.switch:
            reset = functools.partial(_switched_reset, comm, switcher, algorithm)
            on = switcher.communicators[algorithm]
            steps.append(functools.partial(_mpi_allreduce, on, reset))
        closing.append(switcher.close)
    return steps, lambda: [close() for close in closing]


def _switched_reset(comm, switcher, algorithm: str) -> None:
    """A switched entry's untimed reset: tell the library which algorithm runs next."""
    switcher.select(algorithm)
    comm.restart_counts()


def _mpi_allreduce(communicator, reset: Callable[[], object], x: np.ndarray) -> Step:
    """MPI_Allreduce(x, out, MPI_SUM) on `communicator` (the job's MPI_COMM_WORLD, or a
    switched algorithm's)."""
    from mpi4py import MPI

    out = np.empty_like(x)

    def call() -> np.ndarray:
        communicator.Allreduce(x, out, op=MPI.SUM)
        return out

    return reset, call


def _leave_gloo() -> None:
    """Leave the Gloo process group the bench joined."""
    import torch.distributed as dist

    dist.destroy_process_group()


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
    ranks, dtype, rounds, limit = setup.ranks, setup.dtype, setup.rounds, setup.block_limit
    blocks = cells[0, rounds * limit : rounds * (limit + 1)].astype(int)
    times = cells[:, : rounds * limit].reshape(ranks, rounds, limit)
    per_iteration = np.concatenate(  # osu_allreduce's "Avg Latency": the mean over ranks
        [times[:, turn, :length].mean(axis=0) for turn, length in enumerate(blocks)]
    )
    nbytes = size * dtype.itemsize
    timing = make_timing(per_iteration, [int(b) for b in blocks], [len(blocks)], setup.warmup,
                         nbytes, ranks)  # fmt: skip
    counted = dict.fromkeys(
        [*COUNT_FIELDS, "bytes_sent", "bytes_recv", "elements_reduced", "theory",
         "link_classes", "matches_theory"]
    )  # fmt: skip
    if ours:
        counts = RunCounts.from_ledgers(cells[:, rounds * (limit + 1) + 1 :].astype(np.int64))
        counted = compare_with_theory(
            name, counts, None, ranks, size, dtype.itemsize, parameters
        ).fields
    right = cells[:, rounds * (limit + 1)].astype(bool)
    return Record(
        algorithm=name, parameters=parameters or {}, ranks=ranks, elements=size, dtype=dtype.name,
        itemsize=dtype.itemsize, seed=setup.seed, data="int", transport=setup.transport,
        library=not ours, **counted, trace=None, verified=bool(right.all()),
        max_abs_error=0.0 if right.all() else math.nan, ranks_agree=bool(right.all()),
        wrong_ranks=[int(r) for r in np.flatnonzero(~right)], wall_seconds=None,
        collective_seconds=None, timing=timing, versions=versions(),
    )  # fmt: skip


def make_timing(
    times: np.ndarray,
    blocks: list[int],
    launch_blocks: list[int],
    warmup: int,
    nbytes: int,
    ranks: int,
) -> Timing:
    """The Timing of one point from its per-iteration times in blocks of launches: median,
    minimum, the median's interval, and nccl-tests' bandwidths at the median."""
    median, low, high = median_interval(times, blocks, launch_blocks)
    algbw = nbytes / median / 1e9
    return Timing(
        warmup=warmup, iterations=len(times), times_s=[float(t) for t in times],
        time_min_s=float(np.min(times)), time_median_s=median, algbw_GBps=algbw,
        busbw_GBps=bus_bandwidth(algbw, ranks), blocks=blocks, launch_blocks=launch_blocks,
        launches=len(launch_blocks),
        low_s=low, high_s=high,
    )  # fmt: skip


def merge_documents(documents: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Launches of the same bench merged: per (entry, size), every launch's blocks in one
    record (its median and interval over all of them, launch by launch); counts and sums
    from the first launch that ran the point, every launch's sums checked. A point missing
    from a later launch (one re-run for its interval alone) keeps the blocks it has."""
    first = documents[0]
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    for document in documents:
        if (document["transport"], document["ranks"]) != (first["transport"], first["ranks"]):
            raise ValueError("launches of different benches cannot be merged")
        for record in document["records"]:
            key = (record["algorithm"], record["elements"])
            if key not in merged:
                merged[key] = {**record, "timing": {**record["timing"]}}
            else:
                timing = merged[key]["timing"]
                for field in ("times_s", "blocks", "launch_blocks"):
                    timing[field] = timing[field] + record["timing"][field]
                merged[key]["verified"] = merged[key]["verified"] and record["verified"]
    records = []
    for record in merged.values():
        timing = record["timing"]
        timing = make_timing(
            np.array(timing["times_s"]), timing["blocks"], timing["launch_blocks"],
            timing["warmup"], record["message_bytes"], record["ranks"],
        )  # fmt: skip
        records.append(Record.from_dict({**record, "timing": asdict(timing)}).to_dict())
    launches = max(record["timing"]["launches"] for record in records)
    return {**first, "launches": launches, "records": records}


def _library_versions(peers: Sequence[str]) -> dict[str, str]:
    found = {}
    if "mpi" in peers:
        from mpi4py import MPI

        found["mpi"] = short_version(MPI.Get_library_version().splitlines()[0])
    if "gloo" in peers:
        import torch

        found["gloo"] = f"torch {torch.__version__}"
    return found
