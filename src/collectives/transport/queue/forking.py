"""Start one OS process per rank, supervise them, and collect what they measured.

Ranks are forked explicitly with os.fork (never spawned: a spawned child would re-import
the caller, and forking lets ranks inherit their inputs and links for free; multiprocessing's
Process would poll every earlier child at each start, quadratic in the ranks). The parent is a
supervisor: it releases all ranks at once after their untimed preparation, watches every
rank's process sentinel, and on the first failure (an exception, a signal, a timeout) kills
the whole group and raises RankFailure naming the rank and the cause. Nothing outlives a
launch: children are reaped on every path, and all shared memory is anonymous.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import math
import multiprocessing as mp
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import libc
from ..accounting import LEDGER_FIELDS, RunCounts
from ..launch import Prepare, Program, RankFailure, RankRun, warm_heap
from ..trace import Trace
from .endpoint import DONE, RUNNING, QueueComm
from .faults import Fault
from .links import Links, SpinBarrier, prefault, shared_array

ERROR_BYTES = 1024  # room for each rank's one-line failure description
_FORK = mp.get_context("fork")


def launch(
    size: int,
    prepare: Prepare,
    program: Program,
    *,
    results: np.ndarray,
    largest_message: int,
    timeout: float,
    fault: Fault | None = None,
    on_ready: Callable[[], None] | None = None,
) -> RankRun:
    """Run `program` on `size` forked ranks and return their results and counts.

    `largest_message` (bytes) sizes the staging slots. Each rank calls prepare(rank)
    (untimed) and waits; once all are ready the parent calls
    on_ready() and releases them at once. Each then runs program(comm, prepared) and
    stores the returned array in results[rank], a shared array (see shared_array). The
    caller may let prepare put the inputs in `results` itself, as MPI_IN_PLACE does:
    written only after the program returns, each slot then needs no fresh memory.
    """
    _ensure_descriptors(size)
    libc.release_free_heap()  # ranks then allocate fresh pages, not copies of freed ones
    started = time.perf_counter()
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    links = Links(size, largest_message)
    job = _Job(
        links=links, shared=_SharedState(size, results),
        ready_fd=ready_w, go_fd=go_r, traces=tempfile.mkdtemp(prefix="collectives-trace-"),
        barrier=SpinBarrier(size) if links.spin else _SleepingBarrier(size),
        parent=os.getpid(), fault=fault,
        largest_message=largest_message, prepare=prepare, program=program,
    )  # fmt: skip
    procs: list[_RankProcess] = []
    gc.freeze()  # ranks then do not copy-on-write the parent's objects to collect them
    sys.stdout.flush()
    sys.stderr.flush()  # or ranks would inherit, and repeat, unwritten output
    try:
        for rank in range(size):
            procs.append(_RankProcess(functools.partial(_rank_main, job, rank)))
        job.links.close()
        for fd in (ready_w, go_r):
            os.close(fd)
        ready_w = go_r = -1
        deadline = started + timeout
        _await_ready(procs, ready_r, job.shared, deadline, timeout)
        if on_ready is not None:
            on_ready()
        os.write(go_w, b"g" * size)
        _await_exit(procs, job.shared, deadline, timeout)
        return _collect(job, size, started)
    finally:
        gc.unfreeze()
        for proc in procs:
            proc.kill()
            proc.reap()
        if job.links.read_fds:
            job.links.close()
        for fd in (ready_r, ready_w, go_r, go_w):
            if fd >= 0:
                os.close(fd)
        shutil.rmtree(job.traces, ignore_errors=True)


@dataclass
class _Job:
    """What every forked rank inherits from its supervisor."""

    links: Links
    shared: _SharedState
    ready_fd: int  # a rank writes one byte here once prepared
    go_fd: int  # and waits for one byte here
    traces: str  # a directory where each rank leaves its events
    barrier: SpinBarrier | _SleepingBarrier
    parent: int
    fault: Fault | None
    largest_message: int
    prepare: Prepare
    program: Program


def _rank_main(job: _Job, rank: int) -> None:
    """One rank: prepare untimed, wait for the start, run, leave everything in shared memory."""
    _become_rank(job.parent)
    shared = job.shared
    injector = job.fault if job.fault is not None and job.fault.rank == rank else None
    comm = QueueComm(
        rank, job.links, shared.status, functools.partial(job.barrier.wait, rank),
        on_first_use=injector.on_first_use if injector else None,
    )  # fmt: skip
    try:
        warm_heap(job.largest_message)  # first-touch page faults now, untimed
        prefault(job.links.slots[rank])
        prefault(job.links.arenas[rank, : job.largest_message])  # the working copy's room
        prefault(shared.results[rank])
        prepared = job.prepare(rank)
        os.write(job.ready_fd, b"r")
        os.read(job.go_fd, 1)
        shared.times[rank, 0] = time.perf_counter()
        result = job.program(comm, prepared)
        if injector:
            injector.after_program(comm, result)
        shared.times[rank, 1] = time.perf_counter()
        shared.results[rank] = result
        shared.ledgers[rank] = comm.ledger.as_row()
        np.save(os.path.join(job.traces, f"{rank}.npy"), comm.ledger.event_array())
        shared.status[rank] = DONE
    except BaseException as exc:  # report anything, including SystemExit, then fail
        shared.record_error(rank, exc)
        os._exit(1)
    os._exit(0)  # everything is in shared memory: skip interpreter and mp teardown


def _collect(job: _Job, size: int, started: float) -> RankRun:
    """Every rank's outcome, once all have exited cleanly."""
    shared = job.shared
    events = [np.load(os.path.join(job.traces, f"{rank}.npy")) for rank in range(size)]
    return RankRun(
        results=shared.results,
        counts=RunCounts.from_ledgers(shared.ledgers),
        trace=Trace.from_ranks(events),
        collective_seconds=float((shared.times[:, 1] - shared.times[:, 0]).max()),
        wall_seconds=time.perf_counter() - started,
    )


class _RankProcess:
    """One forked rank as its supervisor sees it: a pid, and a sentinel (the read end of a
    pipe whose write end only the rank holds) that becomes readable when the rank exits."""

    def __init__(self, run: Callable[[], None]) -> None:
        sentinel, keep_open = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                run()
            finally:
                os._exit(1)
        os.close(keep_open)
        self.sentinel = sentinel
        self.exitcode: int | None = None  # negative: killed by that signal

    def kill(self) -> None:
        """SIGKILL the rank unless it has been reaped."""
        if self.exitcode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def reap(self) -> int:
        """Wait for the rank to exit (once) and return its exit code."""
        if self.exitcode is None:
            _, status = os.waitpid(self.pid, 0)
            self.exitcode = os.waitstatus_to_exitcode(status)
            os.close(self.sentinel)
        return self.exitcode


class _SleepingBarrier:
    """A barrier whose waiting ranks sleep in the kernel: for ranks that share cores."""

    def __init__(self, size: int) -> None:
        self._barrier = _FORK.Barrier(size)

    def wait(self, _rank: int) -> None:
        """Return once every rank is here."""
        self._barrier.wait()


class _SharedState:
    """Per-rank slots in shared memory that ranks fill and the supervisor reads."""

    def __init__(self, size: int, results: np.ndarray) -> None:
        self.results = results
        self.ledgers = shared_array((size, len(LEDGER_FIELDS)), np.int64)
        self.times = shared_array((size, 2), np.float64)
        self.status = shared_array(size, np.int64)
        self.status[:] = RUNNING
        self.errors = shared_array((size, ERROR_BYTES), np.uint8)

    def record_error(self, rank: int, exc: BaseException) -> None:
        """Store a one-line description of why `rank` failed."""
        frames = traceback.extract_tb(exc.__traceback__)
        where = (
            f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
        )
        text = f"{type(exc).__name__}: {exc}{where}".encode()[:ERROR_BYTES]
        self.errors[rank, : len(text)] = np.frombuffer(text, np.uint8)

    def error(self, rank: int) -> str:
        return bytes(self.errors[rank]).rstrip(b"\0").decode(errors="replace")


def _become_rank(parent: int) -> None:
    """Make a freshly forked rank die with its supervisor and leave signals to it."""
    libc.die_with_parent()
    if os.getppid() != parent:
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    gc.disable()  # a rank is short-lived and makes no cycles worth a collection


def _ensure_descriptors(size: int) -> None:
    """Every rank holds both ends of every inbox, and the supervisor a sentinel per rank:
    make sure the fd limit allows it."""
    needed = 4 * size + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise RankFailure(
                f"{size} ranks need about {needed} open files; the hard limit is {hard}"
            )
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def _await_ready(
    procs: list[_RankProcess],
    ready_fd: int,
    shared: _SharedState,
    deadline: float,
    timeout: float,
) -> None:
    """Wait until every rank has prepared, failing fast if one dies first."""
    pending = len(procs)
    sentinels = {proc.sentinel: rank for rank, proc in enumerate(procs)}
    watch = _Watch([ready_fd, *sentinels])
    while pending:
        ready = watch.wait(deadline)
        if not ready:
            raise RankFailure(f"ranks did not start within the {timeout:g} s timeout")
        for fd in ready:
            if fd == ready_fd:
                pending -= len(os.read(ready_fd, pending))
            else:
                _raise_for(sentinels[fd], procs[sentinels[fd]], shared)


def _await_exit(
    procs: list[_RankProcess], shared: _SharedState, deadline: float, timeout: float
) -> None:
    """Wait for every rank to exit; the first abnormal exit or the timeout fails the run."""
    sentinels = {proc.sentinel: rank for rank, proc in enumerate(procs)}
    watch = _Watch(list(sentinels))
    while sentinels:
        ready = watch.wait(deadline)
        if not ready:
            raise RankFailure(_describe_timeout(shared, timeout))
        for fd in ready:
            rank = sentinels.pop(fd)
            watch.forget(fd)
            if procs[rank].reap() != 0 or shared.status[rank] != DONE:
                _raise_for(rank, procs[rank], shared)


class _Watch:
    """Descriptors registered once with poll, however many times they are waited on."""

    def __init__(self, fds: list[int]) -> None:
        self._poll = select.poll()
        for fd in fds:
            self._poll.register(fd, select.POLLIN)

    def wait(self, deadline: float) -> list[int]:
        """The descriptors readable (or closed) before the deadline; [] at the deadline."""
        return [fd for fd, _ in self._poll.poll(math.ceil(_remaining(deadline) * 1000))]

    def forget(self, fd: int) -> None:
        self._poll.unregister(fd)


def _raise_for(rank: int, proc: _RankProcess, shared: _SharedState) -> None:
    code = proc.reap()
    if code < 0:
        raise RankFailure(f"rank {rank} was killed by signal {signal.Signals(-code).name}")
    cause = shared.error(rank) or f"exited with status {code}"
    raise RankFailure(f"rank {rank} failed: {cause}")


def _describe_timeout(shared: _SharedState, timeout: float) -> str:
    """Name the ranks that hung (busy, not waiting on a message) and who waited on whom."""
    status = shared.status
    busy = [r for r in range(len(status)) if status[r] == RUNNING]
    waiting = {r: int(status[r]) for r in range(len(status)) if status[r] >= 0}
    parts = []
    if busy:
        parts.append(f"rank {_ranks(busy)} made no progress (not waiting on any message)")
    if waiting:
        chains = ", ".join(f"{r} on {w}" for r, w in list(waiting.items())[:8])
        more = " ..." if len(waiting) > 8 else ""
        parts.append(f"{len(waiting)} rank(s) blocked waiting ({chains}{more})")
    return f"timed out after {timeout:g} s: " + "; ".join(parts or ["no rank finished"])


def _ranks(ranks: list[int]) -> str:
    return ", ".join(map(str, ranks[:8])) + (" ..." if len(ranks) > 8 else "")


def _remaining(deadline: float) -> float:
    return max(0.0, deadline - time.perf_counter())
