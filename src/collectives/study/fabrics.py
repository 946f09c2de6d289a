"""Fabrics as the config describes them: entries, measurement files, and the Fabric built.

An entry gives α and β (or bandwidth), or names point-to-point measurements
(`osu_latency`-style output or a bytes,seconds CSV) to fit, or the pipeline's own ping-pong,
or two such link classes with nodes (collectives.model.fabric).
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..model.fabric import Fabric, LinkClass
from ..model.fit import Points, fit_alpha_beta

FORMATS = ("osu", "csv")
STREAM_TESTS = re.compile(r"# OSU MPI (Bandwidth Test|Multiple Bandwidth / Message Rate)")


class FabricError(ValueError):
    """A fabric's description or measurement file is unusable."""


@dataclass
class _OsuTable:
    """One table of an OSU output: the benchmark's title line, its column header, and its
    data lines with their line numbers (parsed by whoever reads the table)."""

    title: str
    header: str
    lines: list[tuple[int, str]] = field(default_factory=list)

    def rows(self, path: Path, expected: str) -> list[tuple[int, float]]:
        """The (size, first value) rows; FabricError naming the line if one is malformed."""
        rows = []
        for number, raw in self.lines:
            fields = raw.split()
            try:
                rows.append((int(fields[0]), float(fields[1])))
            except (ValueError, IndexError):
                raise FabricError(f"{path}:{number}: expected '{expected}', got {raw!r}") from None
        return rows


def _osu_tables(path: Path) -> list[_OsuTable]:
    """Every table of an OSU Micro-Benchmarks output: a '# Size ...' header and the lines
    after it, up to the next benchmark's '# OSU ...' title; other '#' lines are comments."""
    tables: list[_OsuTable] = []
    title, current = "", None
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if line.startswith("# OSU"):
            title, current = line, None
        elif line.lower().startswith("# size"):
            current = _OsuTable(title, line)
            tables.append(current)
        elif line and not line.startswith("#") and current is not None:
            current.lines.append((number, raw))
    return tables


def read_osu_latency(path: Path, table: int = 1) -> Points:
    """Read the `table`-th latency table (1-based) of an OSU Micro-Benchmarks output.

    A table whose column header mentions 'Latency' (osu_latency, osu_multi_lat,
    osu_allreduce) holds rows 'size_bytes latency_us'. Other tables in the same file
    (osu_bw, osu_bibw, ...) are skipped.
    """
    tables = [t for t in _osu_tables(path) if "Latency" in t.header]
    if not tables:
        raise FabricError(f"{path}: no OSU latency table (a '# Size ... Latency (us)' header)")
    if not 1 <= table <= len(tables):
        raise FabricError(f"{path}: table {table} requested, the file has {len(tables)}")
    rows = tables[table - 1].rows(path, "size latency_us")
    return _points(path, [size for size, _ in rows], [us * 1e-6 for _, us in rows])


def read_osu_stream(path: Path) -> Points | None:
    """The per-message time of a stream of messages, from the first one-way bandwidth table
    of an OSU output (osu_bw, or osu_mbw_mr with one pair: many messages in flight), as
    size / bandwidth; None if the file has no such table. OSU's MB/s are 10^6 bytes/s."""
    stream = next((t for t in _osu_tables(path) if STREAM_TESTS.search(t.title)), None)
    if stream is None:
        return None
    rows = stream.rows(path, "size MB/s")
    return _points(path, [size for size, _ in rows], [size / (mbs * 1e6) for size, mbs in rows])


def read_csv_points(path: Path, size: str = "bytes") -> Points:
    """Read a CSV with a header naming the columns `size` ('bytes') and 'seconds'."""
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or not {size, "seconds"} <= set(reader.fieldnames):
            raise FabricError(f"{path}: the CSV needs a header with columns {size},seconds")
        try:
            rows = [(int(float(row[size])), float(row["seconds"])) for row in reader]
        except (TypeError, ValueError) as exc:
            raise FabricError(f"{path}: {exc}") from None
    return _points(path, [b for b, _ in rows], [s for _, s in rows])


def _points(path: Path, nbytes: list[int], seconds: list[float]) -> Points:
    if len(nbytes) < 2 or len(set(nbytes)) < 2:
        raise FabricError(f"{path}: need at least two distinct message sizes")
    times = np.asarray(seconds, dtype=float)
    if not np.all(np.isfinite(times)) or np.any(times <= 0) or min(nbytes) < 0:
        raise FabricError(f"{path}: sizes must be >= 0 and times positive")
    return Points(np.asarray(nbytes, dtype=float), times)


def read_measurements(path: Path, fmt: str | None = None, table: int = 1) -> Points:
    """Read a measurement file; the format defaults to csv for *.csv, else osu."""
    if not path.is_file():
        raise FabricError(f"{path}: file not found")
    fmt = fmt or ("csv" if path.suffix.lower() == ".csv" else "osu")
    if fmt not in FORMATS:
        raise FabricError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    return read_csv_points(path) if fmt == "csv" else read_osu_latency(path, table)


def kind_of(entry: dict[str, Any]) -> str:
    """'given', 'measured', 'pingpong' or 'structured'; FabricError if not exactly one."""
    kinds = [
        kind
        for kind, present in (
            ("given", "alpha" in entry or "beta" in entry or "bandwidth" in entry),
            ("measured", "measurements" in entry),
            ("pingpong", "pingpong" in entry),
            ("structured", "ranks_per_node" in entry or "intra" in entry or "inter" in entry),
        )
        if present
    ]
    if len(kinds) != 1:
        raise FabricError(
            "needs exactly one of: alpha with beta (or bandwidth); measurements; pingpong; "
            "ranks_per_node with intra and inter"
        )
    if kinds == ["structured"]:
        missing = [key for key in ("ranks_per_node", "intra", "inter") if key not in entry]
        if missing:
            raise FabricError(f"a two-level fabric also needs {', '.join(missing)}")
        for part in ("intra", "inter"):
            if _link_kind(entry[part]) is None:
                raise FabricError(f"{part}: needs alpha with beta (or bandwidth), or measurements")
    elif kinds == ["given"] and _link_kind(entry) is None:
        raise FabricError("a given fabric needs alpha and exactly one of beta or bandwidth")
    return kinds[0]


def _link_kind(spec: dict[str, Any]) -> str | None:
    if "measurements" in spec and not ({"alpha", "beta", "bandwidth"} & set(spec)):
        return "measured"
    if "alpha" in spec and ("beta" in spec) != ("bandwidth" in spec) and "measurements" not in spec:
        return "given"
    return None


def measured_parts(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The parts of a fabric entry fitted from a measurement file (itself, intra, inter)."""
    parts = [entry] + [entry[key] for key in ("intra", "inter") if isinstance(entry.get(key), dict)]
    return [part for part in parts if "measurements" in part]


def build(
    name: str,
    entry: dict[str, Any],
    base: Path,
    pingpong: Path | None = None,
    reductions: Path | None = None,
) -> Fabric:
    """The fabric a config entry describes; measurement paths are relative to `base`, and
    a ping-pong fabric is fitted from the CSV `pingpong` the pipeline measured, its gamma
    (unless given) from the slope of the timed additions in `reductions`."""
    kind = kind_of(entry)
    common = {
        "name": name,
        "description": entry.get("description", ""),
        "source": entry.get("source", ""),
        "gamma": float(entry.get("gamma", 0.0)),
    }
    if kind == "structured":
        return Fabric(
            kind=kind,
            link=_link(name, entry["inter"], base),
            intra=_link(name, entry["intra"], base),
            ranks_per_node=int(entry["ranks_per_node"]),
            nic_per_node=entry.get("nic_per_node"),
            **common,
        )
    if kind == "pingpong":
        if pingpong is None:
            raise FabricError(f"fabric {name}: no ping-pong measurements given")
        if reductions is not None and "gamma" not in entry:
            common["gamma"] = fit_alpha_beta(read_csv_points(reductions, "elements")).beta
        return Fabric(
            kind="measured", link=fitted_link(name, read_measurements(pingpong, "csv")), **common
        )
    return Fabric(kind=kind, link=_link(name, entry, base), **common)


def _link(name: str, spec: dict[str, Any], base: Path) -> LinkClass:
    if "measurements" in spec:
        path = base / spec["measurements"]
        points = read_measurements(path, spec.get("format"), spec.get("table", 1))
        stream = read_osu_stream(path) if spec.get("format", "osu") == "osu" else None
        return fitted_link(name, points, stream)
    beta = spec["beta"] if "beta" in spec else 1.0 / spec["bandwidth"]
    return LinkClass(alpha=float(spec["alpha"]), beta=float(beta), kind="given")


def fitted_link(name: str, points: Points, stream: Points | None = None) -> LinkClass:
    """A link fitted from measurements (and its per-message occupancy from a stream of
    messages, where measured); FabricError if the fit is unphysical."""
    fit = fit_alpha_beta(points)
    if fit.alpha <= 0 or fit.beta <= 0:
        raise FabricError(
            f"fabric {name}: the fit gives alpha={fit.alpha:.3g} s, beta={fit.beta:.3g} s/B; "
            "both must be positive (check the file and its units)"
        )
    return LinkClass(
        alpha=fit.alpha,
        beta=fit.beta,
        kind="measured",
        fit=fit,
        measurements={"bytes": points.nbytes.tolist(), "seconds": points.seconds.tolist()},
        occupancy=_occupancy(name, stream) if stream is not None else None,
    )


def _occupancy(name: str, stream: Points) -> tuple[float, float]:
    """(g, G) of a stream's per-message time g + G·bytes; FabricError if unphysical."""
    fit = fit_alpha_beta(stream)
    if fit.alpha < 0 or fit.beta <= 0:
        raise FabricError(
            f"fabric {name}: the bandwidth table gives g={fit.alpha:.3g} s, "
            f"G={fit.beta:.3g} s/B; g must be >= 0 and G positive"
        )
    return (fit.alpha, fit.beta)


def load_fabric(path: str | Path) -> Fabric:
    """A fabric as the `fabric` rule wrote it (results/fabrics/{name}.json)."""
    return Fabric.from_dict(json.loads(Path(path).read_text()))
