"""Fabrics as the config describes them: entries, measurement files, and the Fabric built.

An entry gives α and β (or bandwidth), or names point-to-point measurements
(`osu_latency`-style output or a bytes,seconds CSV) to fit, or the pipeline's own ping-pong,
or two such link classes with nodes (collectives.model.fabric).
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..model.fabric import Fabric, LinkClass
from ..model.fit import MAX_BANDWIDTH, Points, fit_alpha_beta, least_squares, line_problem
from ..model.topology import Topology

FORMATS = ("osu", "csv")
# The largest relative miss of a fitted line α + β·bytes at a measured point that passes
# without a word: a single line through a latency curve with an eager/rendezvous switch
# misses by 30-70% (the shipped osu_latency files), a line that misses by more than half
# describes the link poorly. An entry's `max_fit_error` accepts more, knowingly.
MAX_FIT_ERROR = 0.5
STREAM_TESTS = re.compile(
    r"# OSU MPI (Bandwidth Test|Multiple Bandwidth / Message Rate|Bi-Directional Bandwidth Test)"
)
BIDIRECTIONAL = "Bi-Directional"  # osu_bibw: its MB/s are both directions' sum


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
                row = int(fields[0]), float(fields[1])
            except (ValueError, IndexError):
                raise FabricError(f"{path}:{number}: expected '{expected}', got {raw!r}") from None
            rows.append(checked_row(path, number, *row))
        return rows


def measurement_text(path: Path) -> str:
    """A measurement file's text, decoded by one rule: UTF-16 or UTF-8 where a byte-order
    mark says so, else UTF-8, else Latin-1 (OSU output is ASCII, so only a comment can hold
    such a byte, and every byte is a Latin-1 character). FabricError names the file and the
    offset of a NUL byte without a byte-order mark (UTF-16 saved without one)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FabricError(f"{path}: file not found") from None
    except OSError as exc:
        raise FabricError(f"{path}: cannot read it ({exc.strerror})") from None
    for mark, encoding in ((codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
                           (codecs.BOM_UTF8, "utf-8-sig")):  # fmt: skip
        if data.startswith(mark):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise FabricError(
                    f"{path}: not {encoding.upper()} text despite its byte-order mark "
                    f"(byte {exc.start}: {exc.reason})"
                ) from None
    if b"\0" in data:
        raise FabricError(
            f"{path}: a NUL byte at offset {data.index(0)}: UTF-16 without a byte-order mark "
            "or not a text file; save it as UTF-8"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _osu_tables(path: Path) -> list[_OsuTable]:
    """Every table of an OSU Micro-Benchmarks output: a '# Size ...' header and the lines
    after it, up to the next benchmark's '# OSU ...' title; other '#' lines are comments."""
    tables: list[_OsuTable] = []
    title, current = "", None
    for number, raw in enumerate(measurement_text(path).splitlines(), start=1):
        line = raw.strip()
        if line.startswith("# OSU"):
            title, current = line, None
        elif line.lower().startswith("# size"):
            current = _OsuTable(title, line)
            tables.append(current)
        elif line and not line.startswith("#") and current is not None:
            current.lines.append((number, raw))
    return tables


def read_osu_latency(path: Path, table: int | None = None) -> Points:
    """Read the `table`-th latency table (1-based) of an OSU Micro-Benchmarks output, or its
    only one when `table` is None (FabricError listing them if there are several).

    A table whose column header mentions 'Latency' (osu_latency, osu_multi_lat,
    osu_allreduce) holds rows 'size_bytes latency_us'. Other tables in the same file
    (osu_bw, osu_bibw, ...) are skipped.
    """
    tables = [t for t in _osu_tables(path) if "Latency" in t.header]
    if not tables:
        raise FabricError(f"{path}: no OSU latency table (a '# Size ... Latency (us)' header)")
    rows = _chosen(path, tables, table, "latency", "table").rows(path, "size latency_us")
    return _points(path, [size for size, _ in rows], [us * 1e-6 for _, us in rows])


def osu_latency_at(path: Path, nbytes: int, table: int | None = None) -> float:
    """The one-way seconds an OSU latency table (as read_osu_latency chooses it) gives at
    `nbytes`; a single row is enough. FabricError where the table has no such row."""
    tables = [t for t in _osu_tables(path) if "Latency" in t.header]
    if not tables:
        raise FabricError(f"{path}: no OSU latency table (a '# Size ... Latency (us)' header)")
    rows = _chosen(path, tables, table, "latency", "table").rows(path, "size latency_us")
    at = [us for size, us in rows if size == nbytes]
    if not at:
        raise FabricError(f"{path}: no {nbytes}-byte row in its latency table")
    return at[0] * 1e-6


def read_osu_stream(path: Path, table: int | None = None) -> Points | None:
    """The per-message time of a stream of messages, from the `table`-th bandwidth table
    (1-based) of an OSU output (osu_bw, osu_mbw_mr with one pair: many messages in flight;
    osu_bibw, read as the sum of both directions), or its only one when `table` is None, as
    size / one direction's bandwidth; None if the file has no such table. OSU's MB/s are
    10^6 bytes/s."""
    tables = [t for t in _osu_tables(path) if STREAM_TESTS.search(t.title)]
    if not tables:
        if table is not None:
            raise FabricError(f"{path}: bandwidth_table {table} requested, the file has none "
                              "(an osu_bw, osu_mbw_mr or osu_bibw table)")  # fmt: skip
        return None
    chosen = _chosen(path, tables, table, "bandwidth", "bandwidth_table")
    directions = 2 if BIDIRECTIONAL in chosen.title else 1
    rows = chosen.rows(path, "size MB/s")
    seconds = [size * directions / (mbs * 1e6) for size, mbs in rows]
    return _points(path, [size for size, _ in rows], seconds)


def _chosen(
    path: Path, tables: list[_OsuTable], number: int | None, what: str, key: str
) -> _OsuTable:
    """The `number`-th of a file's tables of one kind, or its only one; FabricError naming
    the config key to set, and listing the tables, where that is not one table."""
    if number is None and len(tables) == 1:
        return tables[0]
    if number is not None and 1 <= number <= len(tables):
        return tables[number - 1]
    listed = "; ".join(
        f"{index} = {(table.title or table.header)!r} ({len(table.lines)} rows)"
        for index, table in enumerate(tables, start=1)
    )
    if number is None:
        raise FabricError(f"{path}: {len(tables)} {what} tables; choose one with {key}: {listed}")
    raise FabricError(f"{path}: {key} {number} requested, the file has {len(tables)}: {listed}")


def read_csv_points(path: Path, size: str = "bytes", seconds: str = "seconds") -> Points:
    """Read a CSV with a header naming the columns `size` ('bytes') and `seconds` (or a
    calibration's interval bound, 'low_s' or 'high_s')."""
    with io.StringIO(measurement_text(path), newline="") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or not {size, seconds} <= set(reader.fieldnames):
            raise FabricError(f"{path}: the CSV needs a header with columns {size},{seconds}")
        rows = []
        for row in reader:
            try:
                parsed = int(float(row[size])), float(row[seconds])
            except (TypeError, ValueError) as exc:
                raise FabricError(f"{path}:{reader.line_num}: {exc}") from None
            rows.append(checked_row(path, reader.line_num, *parsed))
    return _points(path, [b for b, _ in rows], [s for _, s in rows])


def checked_row(path: Path, line: int, size: int, value: float) -> tuple[int, float]:
    """A measured row, once its size is at least 0 and its value a positive number;
    FabricError naming the file and the line otherwise."""
    if size < 0:
        raise FabricError(f"{path}:{line}: a message size of {size} bytes; sizes are >= 0")
    if not math.isfinite(value) or value <= 0:
        raise FabricError(f"{path}:{line}: {value:g} is not a positive time or rate")
    return size, value


def _points(path: Path, nbytes: list[int], seconds: list[float]) -> Points:
    if len(nbytes) < 2 or len(set(nbytes)) < 2:
        raise FabricError(f"{path}: need at least two distinct message sizes")
    return Points(np.asarray(nbytes, dtype=float), np.asarray(seconds, dtype=float))


def read_measurements(path: Path, fmt: str | None = None, table: int | None = None) -> Points:
    """Read a measurement file; the format defaults to csv for *.csv, else osu (its
    `table`-th latency table, read_osu_latency)."""
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
            ("structured", bool({"ranks_per_node", "intra", "inter", "rails"} & set(entry))),
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
        try:
            Topology(entry["ranks_per_node"], entry.get("nic_per_node"), entry.get("rails", False))
        except ValueError as exc:
            raise FabricError(str(exc)) from None
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
        return Fabric.on_nodes(
            intra=link_class(entry["intra"], base),
            inter=link_class(entry["inter"], base),
            ranks_per_node=int(entry["ranks_per_node"]),
            nic_per_node=entry.get("nic_per_node"),
            rails=bool(entry.get("rails", False)),
            **common,
        )
    if kind == "pingpong":
        if pingpong is None:
            raise FabricError(f"fabric {name}: no ping-pong measurements given")
        if reductions is not None and "gamma" not in entry:
            common["gamma"] = fit_alpha_beta(read_csv_points(reductions, "elements")).beta
        return Fabric(
            kind="measured",
            link=fitted_link(str(pingpong), read_measurements(pingpong, "csv")),
            **common,
        )
    return Fabric(kind=kind, link=link_class(entry, base), **common)


def link_parts(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The link classes of a fabric entry that is not a ping-pong, by where they sit in
    it: '' for a flat one, 'intra' and 'inter' for a two-level one."""
    if kind_of(entry) == "structured":
        return {part: entry[part] for part in ("intra", "inter")}
    return {"": entry}


def link_class(spec: dict[str, Any], base: Path) -> LinkClass:
    """One link class: as given, or fitted from its measurement file (relative to `base`)."""
    if "measurements" not in spec:
        return given_link(spec)
    return fitted_link(*_read_link(spec, base))


def screen_link(spec: dict[str, Any], base: Path) -> str | None:
    """What link_class checks, without the fit's statistics (quick enough for the config
    check on every Snakemake invocation): FabricError naming the file and the reason; the
    fit's warning (fit_warning), if any."""
    if "measurements" not in spec:
        given_link(spec)
        return None
    label, points, stream = _read_link(spec, base)
    alpha, beta = line_through(label, points)
    if stream is not None:
        _occupancy(label, stream)
    return fit_warning(label, points, alpha, beta, spec.get("max_fit_error", MAX_FIT_ERROR))


def fit_warning(
    label: str, points: Points, alpha: float, beta: float, bound: float = MAX_FIT_ERROR
) -> str | None:
    """One line, starting with `label`, where the line α + β·bytes misses a measured point
    by more than `bound` (relative to the measured time); None where it does not."""
    misses = np.abs(points.seconds - (alpha + beta * points.nbytes)) / points.seconds
    worst = int(np.argmax(misses))
    miss = float(misses[worst])
    if miss <= bound:
        return None
    return (
        f"{label}: the fitted line α + β·n misses the measured time at "
        f"{int(points.nbytes[worst])} B by "
        f"{miss:.0%}, beyond the {bound:.0%} a fit may miss: its α-β costs are rough "
        f"(max_fit_error: {math.ceil(miss * 20) / 20:g} accepts it)"
    )


def run_fit_warning(name: str, entry: dict[str, Any], fabric: Fabric) -> str | None:
    """fit_warning of a fabric the pipeline measured and fitted itself (a ping-pong)."""
    link = fabric.link
    points = Points(*(np.asarray(link.measurements[k]) for k in ("bytes", "seconds")))
    bound = entry.get("max_fit_error", MAX_FIT_ERROR)
    return fit_warning(f"fabrics.{name}", points, link.alpha, link.beta, bound)


def given_link(spec: dict[str, Any]) -> LinkClass:
    """A link class from its α and β (or bandwidth), refused above MAX_BANDWIDTH."""
    beta = float(spec["beta"] if "beta" in spec else 1.0 / spec["bandwidth"])
    if 1.0 / beta > MAX_BANDWIDTH:
        raise FabricError(
            f"a bandwidth of {1.0 / beta:.3g} B/s is above {MAX_BANDWIDTH:.0e} B/s (10 TB/s), "
            "more than any link carries (beta is in seconds per byte, bandwidth in bytes/s)"
        )
    crossbar = bool(spec.get("crossbar", False))
    return LinkClass(alpha=float(spec["alpha"]), beta=beta, kind="given", crossbar=crossbar)


def _read_link(spec: dict[str, Any], base: Path) -> tuple[str, Points, Points | None]:
    """A measured link class's file (as the config names it), its latency points, and the
    stream of messages of its bandwidth table where an OSU file has one."""
    path = base / spec["measurements"]
    points = read_measurements(path, spec.get("format"), spec.get("table"))
    osu = spec.get("format", "csv" if path.suffix.lower() == ".csv" else "osu") == "osu"
    stream = read_osu_stream(path, spec.get("bandwidth_table")) if osu else None
    return str(path), points, stream


def line_through(label: str, points: Points) -> tuple[float, float]:
    """α and β of the relative least-squares line through `points`; FabricError (starting
    with `label`) where no link could have them, or the fit could not say how sure it is."""
    sizes = len(set(points.nbytes.tolist()))
    if sizes < 3:
        raise FabricError(
            f"{label}: {sizes} message sizes leave the fit no confidence intervals; "
            "measure at least 3"
        )
    alpha, beta = least_squares(points)
    problem = line_problem(alpha, beta)
    if problem:
        raise FabricError(f"{label}: {problem}")
    return alpha, beta


def fitted_link(label: str, points: Points, stream: Points | None = None) -> LinkClass:
    """A link fitted from measurements (and its per-message occupancy from a stream of
    messages, where measured); FabricError, starting with `label` (what was measured), if
    the line is unphysical (line_through)."""
    line_through(label, points)
    fit = fit_alpha_beta(points)
    return LinkClass(
        alpha=fit.alpha,
        beta=fit.beta,
        kind="measured",
        fit=fit,
        measurements={"bytes": points.nbytes.tolist(), "seconds": points.seconds.tolist()},
        occupancy=_occupancy(label, stream) if stream is not None else None,
    )


def _occupancy(label: str, stream: Points) -> tuple[float, float]:
    """(g, G) of a stream's per-message time g + G·bytes; FabricError if unphysical."""
    gap, per_byte = least_squares(stream)
    if gap < 0 or per_byte <= 0:
        raise FabricError(
            f"{label}: the bandwidth table gives g={gap:.3g} s, G={per_byte:.3g} s/B; "
            "g must be >= 0 and G positive"
        )
    return (gap, per_byte)


def load_fabric(path: str | Path) -> Fabric:
    """A fabric as the `fabric` rule wrote it (results/fabrics/{name}.json)."""
    return Fabric.from_dict(json.loads(Path(path).read_text()))


def fabric_row(fabric: Fabric) -> dict[str, Any]:
    """A fabric as one flat row of results/tables/fabrics.csv."""
    fit, nan = fabric.link.fit, math.nan
    return {
        "fabric": fabric.name,
        "kind": fabric.kind,
        "alpha_s": fabric.alpha,
        "beta_s_per_byte": fabric.beta,
        "bandwidth_GBps": 1e-9 / fabric.beta,
        "alpha_ci_low": fit.alpha_ci[0] if fit else nan,
        "alpha_ci_high": fit.alpha_ci[1] if fit else nan,
        "beta_ci_low": fit.beta_ci[0] if fit else nan,
        "beta_ci_high": fit.beta_ci[1] if fit else nan,
        "r_squared": fit.r_squared if fit else nan,
        "max_rel_residual": fit.max_rel_residual if fit else nan,
        "rel_error_smallest": fit.rel_error_smallest if fit else nan,
        "rel_error_largest": fit.rel_error_largest if fit else nan,
        "points": fit.points if fit else 0,
        "gamma_s_per_element": fabric.gamma,
        "crossbar": fabric.crossbar,
        "ranks_per_node": fabric.ranks_per_node,
        "nic_per_node": fabric.nic_per_node,
        "intra_alpha_s": fabric.intra.alpha if fabric.intra else nan,
        "intra_beta_s_per_byte": fabric.intra.beta if fabric.intra else nan,
        "description": fabric.description,
        "source": fabric.source,
    }
