"""nccl-tests output (all_reduce_perf and its siblings), read as its users read it.

A log is what the tool prints, possibly through srun (every line prefixed with its task
label, "0: "): a settings line, a "# Using devices" block naming each rank's host and GPU,
a column header, one row per message size with an out-of-place and an in-place group of
time (µs), algbw and busbw (GB/s) and error count, and a summary ("# Avg bus bandwidth").
Newer versions add a root column and "Group" in the device lines, and name the library
they ran ("nccl-library=22005"; with NCCL_DEBUG=INFO, "NCCL version 2.20.5"; rccl-tests,
"RCCL version : 2.22.3-develop:f5b15f2" in a banner of HIP and ROCm versions). Logs
copied from web pages may lack the header blocks; the rows alone are enough.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

from .fabrics import FabricError, measurement_text

SRUN_LABEL = re.compile(r"^\s*\d+:\s?")  # srun --label's "TASK: " before every line
DEVICE = re.compile(
    r"#\s*Rank\s+(?P<rank>\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(?P<host>\S+)\s+"
    r"device\s+(?P<device>\d+)\s+\[[^\]]*\]\s+(?P<model>.+?)\s*$"
)
LIBRARY_LINE = re.compile(r"\b(?P<library>NCCL|RCCL) version\s*:?\s*(?P<release>\d+\.\d+\.\d+)")
LIBRARY_CODE = re.compile(r"\b(?P<library>nccl|rccl)-library=(?P<code>\d{5,})")  # 2.20.5: 22005
NOT_A_ROW = re.compile(  # the library's lines, and rccl-tests' banner ("HIP version  : 6.3...")
    r"\b[NR]CCL (?:INFO|WARN)\b|\b[NR]CCL version\b"
    r"|^(?:rccl-tests: Version|HIP version|ROCm version|Hostname|Librccl path)\b"
)
SETTING = re.compile(r"([A-Za-z][\w ]*?):?\s+(-?\d+)")  # "warmup iters: 5", "nGpus 1"
ITEMSIZE = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "half": 2,
            "float": 4, "double": 8, "bfloat16": 2, "f8e4m3": 1, "f8e5m2": 1}  # fmt: skip
COLUMNS = ["bytes", "count", "type", "redop", "out_of_place_s", "out_of_place_algbw_GBps",
           "out_of_place_busbw_GBps", "in_place_s", "in_place_algbw_GBps",
           "in_place_busbw_GBps"]  # fmt: skip


@dataclass(frozen=True)
class NcclTestsLog:
    """One nccl-tests run: its rows (COLUMNS, times in seconds) and what its header says:
    the settings (nThread, nGpus, iters, ...), each rank's host and GPU where the log has a
    "# Using devices" block, and the printed average busbw where it has the summary."""

    path: Path
    values: list[list] = field(repr=False)  # the rows, as COLUMNS
    settings: dict[str, int] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)  # by rank
    gpus: list[str] = field(default_factory=list)  # by rank
    average_busbw_GBps: float | None = None
    library: tuple[str, str] | None = None  # (nccl or rccl, release) where the log names it

    @cached_property
    def rows(self) -> pd.DataFrame:
        """The rows as a table (pandas is imported here, not by the config check)."""
        import pandas as pd

        return pd.DataFrame(self.values, columns=COLUMNS)

    @property
    def ranks(self) -> int | None:
        """Ranks in the run, where the devices block lists them."""
        return len(self.hosts) or None

    @property
    def nodes(self) -> int | None:
        """Distinct hosts in the run, where the devices block lists them."""
        return len(set(self.hosts)) or None


def read_nccl_tests(path: Path) -> NcclTestsLog:
    """Parse one nccl-tests log; FabricError names the file and line of anything malformed."""
    lines = [SRUN_LABEL.sub("", raw, count=1) for raw in measurement_text(path).splitlines()]
    settings: dict[str, int] = {}
    devices: dict[int, tuple[str, str]] = {}
    header: list[str] | None = None
    rows, average = [], None
    libraries: set[tuple[str, str]] = set()
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        libraries.update(_library(stripped))
        if NOT_A_ROW.search(stripped):
            continue
        if stripped.startswith("#"):
            found = DEVICE.match(stripped)
            if found:
                devices[int(found["rank"])] = (found["host"], found["model"])
            elif "nThread" in stripped:
                settings = {key: int(value) for key, value in SETTING.findall(stripped)}
            elif re.match(r"#\s+size\s+count", stripped):
                header = stripped.lstrip("#").split()
            elif stripped.startswith("# Avg bus bandwidth"):
                average = _number(path, number, stripped.split(":")[-1])
            continue
        if header is None:
            raise FabricError(f"{path}:{number}: a row before the column header ('# size count')")
        rows.append(_row(path, number, stripped.split(), header))
    if not rows:
        raise FabricError(f"{path}: no nccl-tests rows (a '# size count type redop ...' table)")
    operations = sorted({row[3] for row in rows})
    if len(operations) > 1:
        raise FabricError(f"{path}: one reduction operation a log, found {', '.join(operations)}")
    if len(libraries) > 1:
        named = ", ".join(f"{name} {release}" for name, release in sorted(libraries))
        raise FabricError(f"{path}: the log names more than one library release ({named})")
    ranks = sorted(devices)
    if ranks and ranks != list(range(len(ranks))):
        raise FabricError(f"{path}: the devices block lists ranks {ranks}, not 0..N-1")
    return NcclTestsLog(
        path=path,
        values=rows,
        settings=settings,
        hosts=[devices[r][0] for r in ranks],
        gpus=[devices[r][1] for r in ranks],
        average_busbw_GBps=average,
        library=next(iter(libraries), None),
    )


def _library(line: str) -> list[tuple[str, str]]:
    """The library releases a log line names: NCCL's own banner or nccl-tests' code."""
    named = [(m["library"].lower(), m["release"]) for m in LIBRARY_LINE.finditer(line)]
    for found in LIBRARY_CODE.finditer(line):
        code = int(found["code"])  # major x 10000 + minor x 100 + patch (NCCL_VERSION_CODE)
        named.append((found["library"], f"{code // 10000}.{code // 100 % 100}.{code % 100}"))
    return named


def read_call_floor(path: Path, up_to_bytes: int) -> float:
    """The per-call floor (µs) of a one-GPU all-reduce timing: the median, over every run
    and size up to `up_to_bytes`, of the per-call medians (a table of 'size(B) count iters
    median_us ...' rows under its '#' header, as the shipped H200 measurement has)."""
    header: list[str] | None = None
    medians = []
    for number, line in enumerate(measurement_text(path).splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            if "median_us" in stripped:
                header = stripped.lstrip("#").split()
            continue
        if not stripped or header is None:
            continue
        fields = stripped.split()
        if len(fields) != len(header):
            raise FabricError(f"{path}:{number}: {len(fields)} fields where the header has "
                              f"{len(header)} ({' '.join(header)})")  # fmt: skip
        size = _number(path, number, fields[0])
        if size <= up_to_bytes:
            medians.append(_number(path, number, fields[header.index("median_us")]))
    if not medians:
        raise FabricError(f"{path}: no 'median_us' rows up to {up_to_bytes} bytes")
    medians.sort()
    middle = len(medians) // 2
    return medians[middle] if len(medians) % 2 else (medians[middle - 1] + medians[middle]) / 2


def _row(path: Path, number: int, fields: list[str], header: list[str]) -> list:
    """One size's row as COLUMNS: the leading columns by the header's names, then the
    out-of-place and in-place groups (time, algbw, busbw, errors), whatever the version."""
    leading = header.index("time")  # size count type redop [root]
    if len(fields) != len(header):
        raise FabricError(
            f"{path}:{number}: {len(fields)} fields where the header has {len(header)} "
            f"({' '.join(header)})"
        )
    size, count = (int(_number(path, number, fields[i])) for i in (0, 1))
    groups = [fields[leading : leading + 4], fields[leading + 4 : leading + 8]]
    timed = [
        value
        for time_us, algbw, busbw, _errors in groups
        for value in (
            _number(path, number, time_us) * 1e-6,
            _number(path, number, algbw),
            _number(path, number, busbw),
        )
    ]
    if fields[2] not in ITEMSIZE:
        raise FabricError(
            f"{path}:{number}: unknown type {fields[2]!r}; known: {', '.join(ITEMSIZE)}"
        )
    return [size, count, fields[2], fields[3], *timed]


def _number(path: Path, number: int, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise FabricError(f"{path}:{number}: {text.strip()!r} is not a number") from None
