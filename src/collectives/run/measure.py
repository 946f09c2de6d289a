"""One all-reduce on real processes: verified, compared with theory, as a Record.

Each rank is an OS process (forked, or one rank of an mpiexec job); the transport counts
every byte, message, round and reduction, numpy's sum checks every rank's result, and the
counts must equal the algorithm's closed form.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.random import default_rng  # imported once here, not in every forked rank

from .. import registry
from ..model import theory
from ..transport import Transport, get_transport
from ..transport.accounting import RunCounts
from ..transport.launch import Launch, RankFailure, RankRun
from ..transport.trace import Trace
from .record import DATA_KINDS, DEFAULT_TIMEOUT, DTYPES, MAX_RANKS, Record, versions

MAX_INPUT_MAGNITUDE = 64
# Per rank, copies of its vector a run touches: the input (the result in place), the warm
# heap and the working copy in its arena (transport/launch.py, transport/queue/links.py).
VECTORS_PER_RANK = 3


class UsageError(ValueError):
    """The request itself is invalid (bad ranks, elements, algorithm, dtype...)."""


class MeasurementError(RuntimeError):
    """The run failed: a rank failed, a result was wrong, or counts missed theory."""


@dataclass(frozen=True)
class Measured:
    """A verified run: its record and its message trace."""

    record: Record
    trace: Trace


def exact_integer_limit(dtype: np.dtype) -> int:
    """The largest n such that every integer in [-n, n] is exact in `dtype`."""
    if dtype.kind == "f":
        return 2 ** (np.finfo(dtype).nmant + 1)
    return int(np.iinfo(dtype).max)


def input_magnitude(dtype: np.dtype, ranks: int) -> int:
    """Bound K for integer inputs in [-K, K]: any partial sum of N of them is exact."""
    return max(1, min(MAX_INPUT_MAGNITUDE, exact_integer_limit(dtype) // ranks))


def make_input(out: np.ndarray, rank: int, seed: int, data: str, ranks: int) -> None:
    """Fill `out` with rank `rank`'s seeded input; it depends on (seed, rank) only."""
    rng = default_rng([seed, rank])
    if data == "normal":
        np.copyto(out, rng.standard_normal(out.size), casting="unsafe")
        return
    bound = input_magnitude(out.dtype, ranks)
    np.copyto(out, rng.integers(-bound, bound + 1, size=out.size, dtype=np.int16), casting="unsafe")


def validate(
    algorithm: str,
    ranks: int,
    elements: int,
    dtype: str,
    data: str,
    parameters: Mapping[str, int] | None = None,
) -> tuple[np.dtype, dict[str, int]]:
    """Check a request; UsageError says exactly what is wrong. Returns the numpy dtype and
    the algorithm's parameters, defaults filled in."""
    if algorithm not in registry.ALGORITHMS:
        raise UsageError(registry.unknown_algorithm(algorithm))
    np_dtype = validate_vectors(ranks, elements, dtype, data)
    try:
        resolved = registry.ALGORITHMS[algorithm].resolve(parameters or {}, ranks)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return np_dtype, resolved


def validate_vectors(ranks: int, elements: int, dtype: str, data: str) -> np.dtype:
    """Check the ranks and their vectors, whatever the algorithm; returns the numpy dtype."""
    if not 1 <= ranks <= MAX_RANKS:
        raise UsageError(f"ranks must be between 1 and {MAX_RANKS}, got {ranks}")
    if elements < 1:
        raise UsageError(f"elements must be at least 1, got {elements}")
    if dtype not in DTYPES:
        raise UsageError(f"unknown dtype {dtype!r}; valid dtypes: {', '.join(DTYPES)}")
    if data not in DATA_KINDS:
        raise UsageError(f"unknown data kind {data!r}; valid: {', '.join(DATA_KINDS)}")
    np_dtype = np.dtype(dtype)
    if data == "normal" and np_dtype.kind != "f":
        raise UsageError(f"--data normal needs a floating-point dtype, got {dtype}")
    return np_dtype


def memory_needed(
    ranks: int, elements: int, itemsize: int, data: str, algorithm: str | None = None
) -> int:
    """Bytes a run touches at least: VECTORS_PER_RANK vectors per rank and those the
    algorithm keeps (registry's held_vectors), and numpy's exact sum of the inputs in 8-byte
    elements (with its error bound and |x| for real values)."""
    reference = elements * 8 * (3 if data == "normal" else 1)
    return ranks * vectors_per_rank(ranks, algorithm) * elements * itemsize + reference


def vectors_per_rank(ranks: int, algorithm: str | None) -> int:
    """Whole vectors a rank of a run holds at once."""
    entry = registry.ALGORITHMS.get(algorithm or "")
    return VECTORS_PER_RANK + (entry.held_vectors(ranks) if entry else 0)


def available_memory() -> int:
    """Bytes this machine can give a new run without swapping: MemAvailable, or where
    there is no /proc/meminfo the free physical pages."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def check_memory(
    ranks: int, elements: int, dtype: np.dtype, data: str, algorithm: str | None = None
) -> None:
    """UsageError, before anything is allocated, when the run needs more memory than this
    machine has available."""
    needed = memory_needed(ranks, elements, dtype.itemsize, data, algorithm)
    available = available_memory()
    if needed > available:
        vector = elements * dtype.itemsize
        raise UsageError(
            f"--elements {elements} needs about {_decimal_bytes(needed)} ({ranks} ranks × "
            f"{vectors_per_rank(ranks, algorithm)} vectors of {_decimal_bytes(vector)}, and "
            "the reference sum), "
            f"this machine has {_decimal_bytes(available)} available"
        )


def _decimal_bytes(nbytes: int) -> str:
    """12_000_000_000 -> '12 GB': bytes in decimal units, 3 significant digits."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes} B"


def transport_named(name: str):
    """The transport called `name`, or UsageError naming the valid ones."""
    try:
        return get_transport(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def started_ranks(transport: Transport, ranks: int | None) -> int:
    """The ranks asked for, or (mpi) the ranks mpiexec started; UsageError if neither."""
    ranks = ranks if ranks is not None else transport.started_ranks()
    if ranks is None:
        raise UsageError("the number of ranks is required")
    return ranks


def measure(
    algorithm: str,
    ranks: int | None,
    elements: int,
    dtype: str = "float64",
    seed: int = 0,
    data: str = "int",
    timeout: float = DEFAULT_TIMEOUT,
    fault: str | None = None,
    parameters: Mapping[str, int] | None = None,
    transport: str = "queue",
) -> Measured | None:
    """Run one all-reduce on `ranks` processes; return its verified record and its trace.

    `transport` is "queue" (forked ranks) or "mpi" (this process is one rank of an mpiexec
    job; `ranks` None means all of them). Every rank calls it; the root returns the
    Measured run and the other MPI ranks None. Raises UsageError for an invalid request and
    MeasurementError when a rank fails, a result differs from numpy's sum, or a measured
    count differs from theory.
    """
    ranks_on = transport_named(transport)
    ranks = started_ranks(ranks_on, ranks)
    np_dtype, parameters = validate(algorithm, ranks, elements, dtype, data, parameters)
    check_memory(ranks, elements, np_dtype, data, algorithm)
    if timeout <= 0:
        raise UsageError(f"timeout must be positive, got {timeout}")
    launch = ranks_on.launch
    if fault:
        if ranks_on.faulty is None:
            raise UsageError(f"fault injection is a testing aid the {transport} transport lacks")
        try:
            launch = ranks_on.faulty(fault, ranks)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    where = f"{algorithm} N={ranks} M={elements} {dtype}"
    run, reference = _launch(ranks_on, launch, algorithm, parameters, ranks, elements, np_dtype,
                             seed, data, timeout, where)  # fmt: skip
    if run is None:
        return None  # an MPI rank other than the root: the root writes the record
    check = _verify(run.results, **reference)
    if not check["verified"]:
        raise MeasurementError(f"{where}: verification failed: {_describe_failure(check)}")
    compared = compare_with_theory(
        algorithm, run.counts, run.trace, ranks, elements, np_dtype.itemsize, parameters
    )
    if compared.mismatches:
        detail = ", ".join(f"{f} {m} (theory {t})" for f, (m, t) in compared.mismatches.items())
        raise MeasurementError(f"{where}: measured counts differ from theory: {detail}")
    record = Record(
        algorithm=algorithm, parameters=parameters, ranks=ranks, elements=elements,
        dtype=dtype, itemsize=np_dtype.itemsize, seed=seed, data=data, transport=transport,
        library=False, **compared.fields, trace=None, **check,
        wall_seconds=run.wall_seconds, collective_seconds=run.collective_seconds, timing=None,
        versions=versions(),
    )  # fmt: skip
    return Measured(record, run.trace)


def _launch(transport: Transport, launch: Launch, algorithm, parameters, ranks, elements,
            np_dtype, seed, data, timeout, where,
            ) -> tuple[RankRun | None, dict[str, np.ndarray]]:  # fmt: skip
    """Start the ranks on their seeded inputs; the run, and numpy's sum of the inputs."""
    allreduce = registry.ALGORITHMS[algorithm].bind(**parameters)
    # Inputs and results share one array (MPI_IN_PLACE): a rank's result overwrites its
    # input once its algorithm returns, after the parent has summed the inputs.
    vectors = transport.result_array((ranks, elements), np_dtype)
    reference: dict[str, np.ndarray] = {}

    def prepare(rank: int) -> np.ndarray:
        make_input(vectors[rank], rank, seed, data, ranks)
        mine = vectors[rank].view()
        mine.flags.writeable = False  # an algorithm must not change its input
        return mine

    def sum_inputs() -> None:
        reference.update(_reference(vectors, data))

    try:
        run = launch(
            ranks, prepare, allreduce, results=vectors,
            largest_message=elements * np_dtype.itemsize, timeout=timeout, on_ready=sum_inputs,
        )  # fmt: skip
    except RankFailure as exc:
        raise MeasurementError(f"{where}: {exc}") from None
    return run, reference


@dataclass(frozen=True)
class Comparison:
    """A run's counts beside the closed form: the record's count fields, and what differs."""

    fields: dict
    mismatches: dict[str, tuple[int, int]]


@dataclass(frozen=True)
class TheoryCheck:
    """Measured counts beside the closed form: theory's counts (and per link class, for an
    algorithm on nodes), and every count that differs, as (measured, theory) by field
    ('intra.rounds' for a link class's)."""

    theory: theory.Counts
    by_class: dict[str, dict[str, int]] | None
    mismatches: dict[str, tuple[int, int]]


def check_counts(
    algorithm: str,
    measured: dict[str, int],
    ranks: int,
    elements: int,
    itemsize: int,
    parameters: dict,
    measured_by_class: dict[str, dict[str, int]] | None = None,
) -> TheoryCheck:
    """The one check of counts against the closed form, for a run as it ends (measure,
    bench) and for a record where it is read (study.aggregate): the COUNT_FIELDS of
    `measured`, and for an algorithm on nodes theory's per-link-class counts, compared with
    `measured_by_class` where that is given."""
    entry = registry.ALGORITHMS[algorithm]
    predicted = entry.predict(ranks, elements, itemsize, **parameters)
    mismatches = {
        field: (measured[field], value)
        for field, value in predicted.as_dict().items()
        if measured[field] != value
    }
    by_class = entry.predict_by_class(ranks, elements, itemsize, **parameters)
    if by_class is not None and measured_by_class is not None:
        mismatches |= {
            f"{link}.{field}": (measured_by_class.get(link, {}).get(field), value)
            for link, fields in by_class.items()
            for field, value in fields.items()
            if measured_by_class.get(link, {}).get(field) != value
        }
    return TheoryCheck(predicted, by_class, mismatches)


def compare_with_theory(
    algorithm: str,
    counts: RunCounts,
    trace: Trace | None,
    ranks: int,
    elements: int,
    itemsize: int,
    parameters: dict,
) -> Comparison:
    """Every measured count against the algorithm's closed form (per link class too, for an
    algorithm on nodes, when the trace is given): the record fields rounds ...
    matches_theory, and the mismatches."""
    entry = registry.ALGORITHMS[algorithm]
    measured = {field: getattr(counts, field) for field in theory.COUNT_FIELDS}
    nodes = entry.nodes(parameters)
    by_class = None
    if entry.theory_by_class and nodes is not None and trace is not None:
        from ..model.replay import by_link_class  # only runs on nodes: keep the start lean

        by_class = by_link_class(trace, nodes)
    checked = check_counts(algorithm, measured, ranks, elements, itemsize, parameters, by_class)
    mismatches = checked.mismatches
    classes = None if by_class is None else {"measured": by_class, "theory": checked.by_class}
    fields = {
        **measured,
        "bytes_sent": counts.bytes_sent,
        "bytes_recv": counts.bytes_recv,
        "elements_reduced": counts.elements_reduced,
        "theory": checked.theory.as_dict(),
        "link_classes": classes,
        "matches_theory": not mismatches,
    }
    return Comparison(fields, mismatches)


def _reference(inputs: np.ndarray, data: str) -> dict[str, np.ndarray]:
    """numpy's sum of the inputs, and how far any correct summation order may stray from it.

    Integer-valued inputs make every summation order exact (tolerance 0); real-valued
    inputs get the classic bound (N-1) eps sum|x| for any order of N-1 additions.
    """
    exact = np.float64 if inputs.dtype.kind == "f" else np.int64
    reference = np.add.reduce(inputs, axis=0, dtype=exact)
    if data != "normal":
        return {"reference": reference, "tolerance": np.zeros(1)}
    eps = float(np.finfo(inputs.dtype).eps)
    magnitude = np.add.reduce(np.abs(inputs, dtype=np.float64), axis=0)
    return {"reference": reference, "tolerance": (len(inputs) - 1) * eps * magnitude}


def _verify(results: np.ndarray, reference: np.ndarray, tolerance: np.ndarray) -> dict:
    """Compare every rank's result with the reference, and the ranks' bits with each other."""
    bits = results.view(f"u{results.dtype.itemsize}")
    exact = not np.any(tolerance)
    expected_bits = reference.astype(results.dtype).view(bits.dtype) if exact else None
    error = np.empty(results.shape[1], dtype=reference.dtype)
    wrong, max_error = [], 0.0
    for rank, result in enumerate(results):
        if exact and np.array_equal(bits[rank], expected_bits):
            continue  # bit-identical to the exact sum: error 0
        np.subtract(result, reference, out=error, casting="unsafe")
        np.abs(error, out=error)
        max_error = max(max_error, float(error.max(initial=0)))
        if np.any(error > tolerance):
            wrong.append(rank)
    all_exact = exact and not wrong and max_error == 0
    agree = all_exact or all(np.array_equal(bits[r], bits[0]) for r in range(1, len(bits)))
    return {
        "verified": not wrong,
        "max_abs_error": max_error,
        "ranks_agree": agree,
        "wrong_ranks": wrong,
    }


def _describe_failure(check: dict) -> str:
    """Describe a failed verification: which ranks hold a wrong sum, and by how much."""
    wrong = check["wrong_ranks"]
    shown = ", ".join(map(str, wrong[:8])) + (" ..." if len(wrong) > 8 else "")
    who = f"rank {shown} holds a wrong sum" if len(wrong) == 1 else f"ranks {shown} hold wrong sums"
    return (
        f"{who} (max abs error {check['max_abs_error']:g} against numpy's sum; "
        f"ranks agree: {check['ranks_agree']})"
    )
