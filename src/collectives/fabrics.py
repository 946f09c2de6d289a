"""Fabrics: alpha-beta link classes, given or fitted from point-to-point measurements.

A link class is t(bytes) = alpha + beta * bytes (Hockney's model): alpha the per-message
latency in seconds, beta the per-byte time in seconds (1 / bandwidth). A flat fabric has one
class; a two-level fabric has G ranks per node, an intra- and an inter-node class, and maybe
shared NIC ports. A measured class is fitted to one-way times from `osu_latency`-style output
or a plain CSV by weighted least squares that minimizes *relative* residuals, so the 1-byte
latency and the 4-MiB bandwidth count alike (plain least squares on raw times lets the
largest messages decide alpha).
"""

from __future__ import annotations

import csv
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .replay import LinkClass, Topology

FORMATS = ("osu", "csv")


class FabricError(ValueError):
    """A fabric's description or measurement file is unusable."""


@dataclass
class Points:
    """Point-to-point measurements: message sizes (bytes) and one-way times (seconds)."""

    nbytes: np.ndarray
    seconds: np.ndarray


def read_osu_latency(path: Path, table: int = 1) -> Points:
    """Read the `table`-th latency table (1-based) of an OSU Micro-Benchmarks output.

    Lines starting with '#' are headers; a table whose column header mentions 'Latency'
    (osu_latency, osu_multi_lat) holds rows 'size_bytes latency_us'. Other tables in the
    same file (osu_bw, osu_bibw, ...) are skipped.
    """
    tables: list[list[tuple[int, float]]] = []
    current: list[tuple[int, float]] | None = None
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            if line.startswith("# OSU"):
                current = None
            if "Latency" in line and line.lower().startswith("# size"):
                current = []
                tables.append(current)
            continue
        if not line or current is None:
            continue
        fields = line.split()
        try:
            current.append((int(fields[0]), float(fields[1])))
        except (ValueError, IndexError):
            raise FabricError(f"{path}:{number}: expected 'size latency_us', got {raw!r}") from None
    if not tables:
        raise FabricError(f"{path}: no OSU latency table (a '# Size ... Latency (us)' header)")
    if not 1 <= table <= len(tables):
        raise FabricError(f"{path}: table {table} requested, the file has {len(tables)}")
    rows = tables[table - 1]
    return _points(path, [size for size, _ in rows], [us * 1e-6 for _, us in rows])


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


@dataclass
class Fit:
    """A weighted least-squares fit of t = alpha + beta * bytes, with its quality."""

    alpha: float
    beta: float
    alpha_ci: tuple[float, float]
    beta_ci: tuple[float, float]
    r_squared: float
    max_rel_residual: float
    rel_error_smallest: float  # (fit - measured) / measured at the smallest message
    rel_error_largest: float  # the same at the largest message
    points: int


def fit_alpha_beta(points: Points) -> Fit:
    """Fit alpha and beta minimizing the sum of squared relative residuals.

    Weights 1/t^2 turn (t - alpha - beta b) into (t - alpha - beta b) / t. The 95%
    intervals use Student's t with n-2 degrees of freedom (NaN with fewer than 3 points);
    R^2 is the weighted R^2 (centred on the weighted mean, as statsmodels' WLS reports).
    """
    from scipy import stats

    b, t = points.nbytes, points.seconds
    weights = 1.0 / t**2
    design = np.column_stack([np.ones_like(b), b]) / t[:, None]
    (alpha, beta), *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    predicted = alpha + beta * b
    residual_ss = float(np.sum(weights * (t - predicted) ** 2))
    n = len(t)
    if n > 2:
        covariance = residual_ss / (n - 2) * np.linalg.inv(design.T @ design)
        half = stats.t.ppf(0.975, n - 2) * np.sqrt(np.diag(covariance))
    else:
        half = np.array([math.nan, math.nan])
    weighted_mean = np.sum(weights * t) / np.sum(weights)
    total_ss = float(np.sum(weights * (t - weighted_mean) ** 2))
    return Fit(
        alpha=float(alpha),
        beta=float(beta),
        alpha_ci=(float(alpha - half[0]), float(alpha + half[0])),
        beta_ci=(float(beta - half[1]), float(beta + half[1])),
        r_squared=1.0 - residual_ss / total_ss if total_ss > 0 else 1.0,
        max_rel_residual=float(np.max(np.abs(t - predicted) / t)),
        rel_error_smallest=float((predicted[np.argmin(b)] - t[np.argmin(b)]) / t[np.argmin(b)]),
        rel_error_largest=float((predicted[np.argmax(b)] - t[np.argmax(b)]) / t[np.argmax(b)]),
        points=n,
    )


@dataclass
class Link:
    """One class of links: alpha and beta, and where they came from."""

    alpha: float
    beta: float
    kind: str  # "given" or "measured"
    fit: Fit | None = None
    measurements: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class Fabric:
    """A fabric for the cost model and the replay: one link class, or two with nodes.

    A structured fabric has `ranks_per_node` G, an intra-node and an inter-node class, and
    optionally `nic_per_node` shared NIC ports; its flat summary `link` (what the closed form
    T = rounds*alpha + bytes_critical*beta uses) is the inter-node class.
    """

    name: str
    kind: str  # "given", "measured" or "structured"
    link: Link
    description: str = ""
    source: str = ""
    gamma: float = 0.0  # seconds per element reduced
    ranks_per_node: int | None = None
    nic_per_node: int | None = None
    intra: Link | None = None

    @property
    def alpha(self) -> float:
        return self.link.alpha

    @property
    def beta(self) -> float:
        return self.link.beta

    def topology(self) -> Topology:
        """How the replay prices this fabric's messages."""
        flat = LinkClass(self.alpha, self.beta)
        if self.intra is None:
            return Topology(flat, gamma=self.gamma)
        return Topology(
            LinkClass(self.intra.alpha, self.intra.beta),
            flat,
            ranks_per_node=self.ranks_per_node,
            nic_per_node=self.nic_per_node,
            gamma=self.gamma,
        )

    def fitted(self) -> list[tuple[str, Link]]:
        """The (label, link) of every link class fitted from measurements."""
        links = (
            [("", self.link)]
            if self.intra is None
            else [("intra", self.intra), ("inter", self.link)]
        )
        return [
            (f"{self.name} ({label})" if label else self.name, link)
            for label, link in links
            if link.fit is not None
        ]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fabric:
        """Rebuild a Fabric from as_dict()."""

        def link(value: dict | None) -> Link | None:
            if value is None:
                return None
            fit = value.get("fit")
            if fit:  # JSON turned the interval tuples into lists
                fit = Fit(
                    **{**fit, "alpha_ci": tuple(fit["alpha_ci"]), "beta_ci": tuple(fit["beta_ci"])}
                )
            return Link(**{**value, "fit": fit})

        return cls(**{**data, "link": link(data["link"]), "intra": link(data.get("intra"))})

    def row(self) -> dict[str, Any]:
        """One flat row of results/tables/fabrics.csv."""
        fit, nan = self.link.fit, math.nan
        return {
            "fabric": self.name,
            "kind": self.kind,
            "alpha_s": self.alpha,
            "beta_s_per_byte": self.beta,
            "bandwidth_GBps": 1e-9 / self.beta,
            "alpha_ci_low": fit.alpha_ci[0] if fit else nan,
            "alpha_ci_high": fit.alpha_ci[1] if fit else nan,
            "beta_ci_low": fit.beta_ci[0] if fit else nan,
            "beta_ci_high": fit.beta_ci[1] if fit else nan,
            "r_squared": fit.r_squared if fit else nan,
            "max_rel_residual": fit.max_rel_residual if fit else nan,
            "rel_error_smallest": fit.rel_error_smallest if fit else nan,
            "rel_error_largest": fit.rel_error_largest if fit else nan,
            "points": fit.points if fit else 0,
            "gamma_s_per_element": self.gamma,
            "ranks_per_node": self.ranks_per_node,
            "nic_per_node": self.nic_per_node,
            "intra_alpha_s": self.intra.alpha if self.intra else nan,
            "intra_beta_s_per_byte": self.intra.beta if self.intra else nan,
            "description": self.description,
            "source": self.source,
        }


KINDS = ("given", "measured", "pingpong", "structured")


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
            kind="measured", link=_fitted(name, read_measurements(pingpong, "csv")), **common
        )
    return Fabric(kind=kind, link=_link(name, entry, base), **common)


def _link(name: str, spec: dict[str, Any], base: Path) -> Link:
    if "measurements" in spec:
        points = read_measurements(
            base / spec["measurements"], spec.get("format"), spec.get("table", 1)
        )
        return _fitted(name, points)
    beta = spec["beta"] if "beta" in spec else 1.0 / spec["bandwidth"]
    return Link(alpha=float(spec["alpha"]), beta=float(beta), kind="given")


def _fitted(name: str, points: Points) -> Link:
    """A link fitted from measurements; FabricError if the fit is unphysical."""
    fit = fit_alpha_beta(points)
    if fit.alpha <= 0 or fit.beta <= 0:
        raise FabricError(
            f"fabric {name}: the fit gives alpha={fit.alpha:.3g} s, beta={fit.beta:.3g} s/B; "
            "both must be positive (check the file and its units)"
        )
    return Link(
        alpha=fit.alpha,
        beta=fit.beta,
        kind="measured",
        fit=fit,
        measurements={"bytes": points.nbytes.tolist(), "seconds": points.seconds.tolist()},
    )
