"""The run record: one all-reduce run, verified and compared with theory, as JSON.

`collectives measure` writes one per run and `collectives bench` one per (entry, message
size) inside its document; docs/outputs.md lists the keys. A record of another version, one
missing a key, or one with a value of the wrong type is refused with the file named.
"""

from __future__ import annotations

import json
import os
import platform
import re
import types
import typing
from dataclasses import asdict, dataclass, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

RECORD_VERSION = 6
DTYPES = ("float64", "float32", "float16", "int64", "int32")
DATA_KINDS = ("int", "normal")
MAX_RANKS = 1024
DEFAULT_TIMEOUT = 600.0  # seconds, for one launch of ranks
# A timed run's untimed and fewest timed iterations on the command line: nccl-tests' own
# defaults (src/common.cu: warmup_iters = 5, iters = 20), what its users expect of `bench`.
# The pipeline's timed runs take theirs from the config schema (wallclock.warmup, .iterations).
DEFAULT_WARMUP, DEFAULT_ITERATIONS = 5, 20
DEFAULT_ROUNDS = 3  # the interleaved turns of each timed point in a launch
DEFAULT_MIN_TIME = 0.0  # seconds a timed point fills in each launch (OSU's -T); 0: iterations


class RecordError(ValueError):
    """A record file cannot be used: unreadable, of another version, incomplete, or (see
    collectives.study.aggregate.check_record) at odds with theory."""


def bus_bandwidth(algbw_GBps, ranks):
    """nccl-tests' bus bandwidth of an all-reduce: algbw · 2(N-1)/N, what each rank's links
    carry (numbers or arrays alike)."""
    return algbw_GBps * 2 * (ranks - 1) / ranks


@dataclass(frozen=True)
class Timing:
    """Wall-clock mode: the timed iterations of one entry at one size (nccl-tests' algbw
    and busbw conventions; each iteration's time is the mean over the ranks), in blocks
    (a round of a launch each) grouped by launch, and the median's bootstrap interval
    (run.timing: launches, then blocks)."""

    warmup: int
    iterations: int
    times_s: list[float]
    time_min_s: float
    time_median_s: float
    algbw_GBps: float
    busbw_GBps: float
    blocks: list[int]  # iterations per block, in the order of times_s
    launch_blocks: list[int]  # blocks per launch, in the same order
    launches: int
    low_s: float
    high_s: float


@dataclass(frozen=True)
class Record:
    """One run of one all-reduce (ours, or a library's in wall-clock mode).

    Counts are None for a library all-reduce, which this project cannot count; `trace` is
    the file name of the run's trace beside the record, once written.
    """

    algorithm: str
    parameters: dict[str, int]  # the algorithm's, defaults included (registry.Parameter)
    ranks: int
    elements: int
    dtype: str
    itemsize: int
    seed: int
    data: str
    transport: str
    library: bool
    rounds: int | None
    messages: int | None
    bytes_total: int | None
    bytes_critical: int | None
    hotspot_bytes: int | None
    bytes_sent: list[int] | None
    bytes_recv: list[int] | None
    elements_reduced: int | None
    trace: str | None
    theory: dict[str, int] | None
    link_classes: dict[str, Any] | None
    matches_theory: bool | None
    verified: bool
    max_abs_error: float
    ranks_agree: bool
    wrong_ranks: list[int]
    wall_seconds: float | None
    collective_seconds: float | None
    timing: Timing | None
    versions: dict[str, str]

    @property
    def message_bytes(self) -> int:
        """n = M·s, the bytes of each rank's vector."""
        return self.elements * self.itemsize

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data, its version first."""
        data = asdict(self)
        data["message_bytes"] = self.message_bytes
        return {"record_version": RECORD_VERSION, **data}

    @classmethod
    def from_dict(cls, data: Any, source: str = "record") -> Record:
        """Rebuild a record from to_dict(); RecordError names `source` and, in one line,
        everything wrong: another version, missing keys, values of the wrong type."""
        if not isinstance(data, dict):
            raise RecordError(f"{source}: not a JSON object")
        version = data.get("record_version")
        if version != RECORD_VERSION:
            raise RecordError(f"{source}: record_version {version!r}, expected {RECORD_VERSION}")
        problems = _shape_problems(data, cls)
        if problems:
            raise RecordError(f"{source}: {'; '.join(problems)}")
        values = {f.name: data[f.name] for f in fields(cls)}
        if values["timing"] is not None:
            values["timing"] = Timing(**values["timing"])
        return cls(**values)

    def with_trace(self, name: str) -> Record:
        """The same record naming its trace file."""
        return replace(self, trace=name)


def _shape_problems(data: dict[str, Any], kind: type) -> list[str]:
    """The keys of dataclass `kind` missing from JSON `data`, and the values not of their
    field's type (the dataclass is the schema)."""
    hints = typing.get_type_hints(kind)
    names = [f.name for f in fields(kind)]
    missing = [name for name in names if name not in data]
    problems = [f"missing {', '.join(missing)}"] if missing else []
    return problems + [
        f"{name} is {json.dumps(data[name])[:40]}, not {_type_name(hints[name])}"
        for name in names
        if name in data and not _conforms(data[name], hints[name])
    ]


def _conforms(value: Any, hint: Any) -> bool:
    """Whether a JSON value has the type `hint`: int (not bool), float (or int), str, bool,
    None, unions, list[...], dict[..., ...], Any, or a dataclass (a JSON object of it)."""
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, arm) for arm in arguments)
    if hint is type(None):
        return value is None
    if hint in (int, float):
        return isinstance(value, (int, float) if hint is float else int) and not isinstance(
            value, bool
        )
    if origin is list:
        return isinstance(value, list) and all(_conforms(item, arguments[0]) for item in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _conforms(key, arguments[0]) and _conforms(item, arguments[1])
            for key, item in value.items()
        )
    if is_dataclass(hint):
        return isinstance(value, dict) and not _shape_problems(value, hint)
    return isinstance(value, hint)


def _type_name(hint: Any) -> str:
    """'int | None', 'list[int]', 'Timing | None': a type as its annotation reads."""
    if isinstance(hint, type) and not typing.get_args(hint):
        return hint.__name__
    return re.sub(r"[\w.]+\.(\w+)", r"\1", str(hint))


def read_record(path: str | os.PathLike) -> Record:
    """Read one record file; RecordError names the file when it cannot be used."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise RecordError(f"{path}: {exc.strerror}") from None
    except ValueError as exc:
        raise RecordError(f"{path}: {exc}") from None
    return Record.from_dict(data, str(path))


def versions() -> dict[str, str]:
    """The software and machine a record came from."""
    import numpy

    from .. import __version__

    return {
        "collectives": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "platform": platform.platform(),
        "cpus": str(os.cpu_count()),
        "cores": str(len(os.sched_getaffinity(0))),  # the cores this process may run on
    }
