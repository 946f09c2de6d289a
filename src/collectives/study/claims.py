"""What the pages state, recomputed from a run's tables (results/tables/claims.csv).

A number on a page that comes from results carries a marker right after it and its unit:
``213 KiB<!--claim crossover_infiniband-->``, or a range, ``2.6–2.9×<!--claim ...-->``.
CLAIMS defines each claim once: its kind, the tables it reads and how a run's value is
computed from their rows. `find_markers` reads the pages; `check` compares:

* `published`: a property of published fabrics and logs and of the exact counts, the
  same on every machine: the stated value must equal this run's rounded as it is stated
  (212.8 KiB agrees with "213 KiB", 2.54 does not with "2.6");
* `machine`: a property of the machine that ran the study (its calibrated fabrics, its
  clock): this run's value and its interval stand beside the stated one, which the page
  words as the machine's; they agree or not, but a machine's figures are not an error.

A table a run renders whole is marked on the line above it, ``<!--claim-table
gpu_validation-->``: every cell after its label columns (words: a system's name) must read
as this run's (TABLE_CLAIMS), the rows in the run's order.

A claim whose rows this run does not have (a smaller config) is `not in this run`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import registry
from ..transport import TRANSPORTS
from .units import format_bytes, format_seconds

PUBLISHED, MACHINE = "published", "machine"
# The units a stated number may carry, by what the claim computes (its base unit first).
UNITS = {
    "bytes": {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3},
    "seconds": {"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9},
    "fraction": {"%": 0.01},
    "number": {},  # a ratio or a count: whatever follows the number is words ("×", "A100s")
}
NUMBER = r"\d[\d,]*(?:\.\d+)?"
MARKER = re.compile(
    rf"(?P<stated>{NUMBER}(?:\s*[–-]\s*{NUMBER})?)(?P<unit>[^\d<]{{0,12}}?)"
    r"<!--claim (?P<name>[a-z0-9_]+)-->"
)
ANY_MARKER = re.compile(r"<!--claim\s")  # not <!--claim-table
TABLE_MARKER = re.compile(r"^<!--claim-table (?P<name>[a-z0-9_]+)-->$")
CELL_SEPARATOR = re.compile(r"(?<!\\)\|")  # a Markdown table's |, not an escaped \|
COLUMNS = ["claim", "kind", "page", "line", "stated", "this_run", "low", "high", "agrees",
           "status", "what"]  # fmt: skip

Tables = Mapping[str, pd.DataFrame | str]  # by place under results/; Markdown as its text
Computed = tuple[float, ...]  # one value, or a range's two ends, in the claim's base unit


class NotInRun(LookupError):
    """This run's tables have no rows the claim is computed from."""


@dataclass(frozen=True)
class Value:
    """A run's value of a claim (one number or a range's ends), and its interval if any."""

    values: Computed
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Claim:
    """One claim: what it is, its kind, its base unit, the tables it reads and how."""

    what: str
    kind: str
    quantity: str  # a key of UNITS
    tables: tuple[str, ...]
    compute: Callable[[Tables], Value]


@dataclass(frozen=True)
class Marker:
    """A marked number on a page: the claim it names, where, and what it states."""

    name: str
    page: str
    line: int
    stated: str  # as written: "213", "2.6–2.9"
    unit: str  # the text between the number and the marker


@dataclass(frozen=True)
class TableClaim:
    """A page's table that a run renders whole: a row per name of `rows` (GPU systems,
    clusters: a run without one of them is not the page's), of which the cells in the
    columns `words` (a system's name as people write it) are the page's to word."""

    what: str
    kind: str
    tables: tuple[str, ...]
    rows: tuple[str, ...]
    words: tuple[int, ...]
    render: Callable[[Tables, tuple[str, ...]], list[list[str]]]


@dataclass(frozen=True)
class TableMarker:
    """A marked table on a page: the claim it names, the marker's line, its body's cells."""

    name: str
    page: str
    line: int
    rows: tuple[tuple[str, ...], ...]


def _rows(table: pd.DataFrame, **equal: object) -> pd.DataFrame:
    """The rows where every named column has the given value; NotInRun if there are none."""
    mask = pd.Series(True, index=table.index)
    for column, value in equal.items():
        mask &= table[column] == value
    found = table[mask]
    if found.empty:
        raise NotInRun(", ".join(f"{k} = {v}" for k, v in equal.items()))
    return found


def _one(value: float) -> Value:
    """One value, no interval."""
    return Value((float(value),))


def _span(values: Iterable[float]) -> Value:
    """The range of several values (one value where they are all equal), leaving out the
    undefined (a median over no points); NotInRun if none is defined."""
    values = [float(v) for v in values if not math.isnan(float(v))]
    if not values:
        raise NotInRun("no defined value")
    return Value((min(values), max(values))) if min(values) < max(values) else _one(values[0])


def _fastest_sizes(
    costs: pd.DataFrame,
    algorithm: str,
    among: list[str] | None,
    column: str = "time_s",
    **where: object,
) -> pd.Series:
    """The message sizes at which `algorithm` is the fastest (of `among`, else of every
    algorithm in the rows) by `column`."""
    rows = _rows(costs, **where)
    if among is not None:
        rows = rows[rows.algorithm.isin(among)]
    times = rows.pivot_table(index="message_bytes", columns="algorithm", values=column)
    if algorithm not in times:
        raise NotInRun(algorithm)
    return times.index[times[algorithm] <= times.min(axis=1)].to_series()


def _crossover(fabric: str) -> Callable[[Tables], Value]:
    """Where ring overtakes recursive doubling at N = 8, float64 (closed form)."""

    def compute(tables: Tables) -> Value:
        rows = _rows(tables["tables/crossover.csv"], fabric=fabric, dtype="float64", ranks=8)
        return _one(rows.analytic_bytes.iloc[0])

    return compute


def _cheapest(
    fabric: str, ranks: int, algorithm: str, end: str, column: str = "time_s"
) -> Callable[[Tables], Value]:
    """The smallest or largest size at which `algorithm` is the cheapest on `fabric` at N =
    `ranks` (float64), by the replay (time_s) or by the flat model (closed_form_s)."""

    def compute(tables: Tables) -> Value:
        sizes = _fastest_sizes(
            tables["tables/costs.csv"], algorithm, None, column, fabric=fabric, dtype="float64",
            ranks=ranks,
        )  # fmt: skip
        if sizes.empty:
            raise NotInRun(f"{algorithm} never cheapest")
        return _one(sizes.min() if end == "from" else sizes.max())

    return compute


def _ndv2(algorithm: str, end: str, column: str = "time_s") -> Callable[[Tables], Value]:
    """The smallest or largest size at which `algorithm` is the cheapest on Azure NDv2 at
    N = 64."""
    return _cheapest("ndv2", 64, algorithm, end, column)


def _naive_on_nvlink(tables: Tables) -> Value:
    """The largest grid size at which the headline figure draws naive as the fastest on
    NVLink (the figure is the claim: its own table)."""
    drawn = _rows(tables["figures/crossover.csv"], fabric="nvlink", on_grid=True)
    wins = drawn[drawn.winner == "naive"].message_bytes
    return _one(wins.max() if not wins.empty else 0)


def _ring_rd_coefficient(tables: Tables) -> Value:
    """The crossover in units of α/β (a property of the counts: the same on every flat
    fabric), from InfiniBand's row."""
    row = _rows(tables["tables/crossover.csv"], fabric="infiniband", dtype="float64", ranks=8).iloc[
        0
    ]
    return _one(row.analytic_bytes * row.beta_s_per_byte / row.alpha_s)


SCALE_RANKS = 131_072
SCALE_BUCKET = 80_000_000  # Llama 2 70B's Megatron bucket (config/config.yaml, workloads)


def _scale_cluster(tables: Tables) -> pd.Series:
    return _rows(
        tables["tables/scale.csv"], side="cluster", ranks=SCALE_RANKS, message_bytes=SCALE_BUCKET
    ).iloc[0]


def _nccl_tree_from(tables: Tables) -> Value:
    """The fewest GPUs from which NCCL picks its tree for the bucket."""
    rows = _rows(tables["tables/scale.csv"], side="gpu", message_bytes=SCALE_BUCKET)
    tree = rows[rows.pick.str.contains("tree")]
    if tree.empty:
        raise NotInRun("no tree pick")
    return _one(tree.ranks.min())


def _recovered(algorithm: str, quantity: str) -> Callable[[Tables], Value]:
    """The coefficient of log2 N in the fit of the measured counts (cost_model.md)."""

    def compute(tables: Tables) -> Value:
        row = re.search(
            rf"^\| {algorithm} \| float64 \| {quantity} \| [^|]+\| ({NUMBER}) log2 N \|",
            str(tables["tables/cost_model.md"]), re.M,
        )  # fmt: skip
        if row is None:
            raise NotInRun(f"{algorithm} {quantity}: no log2 N fit")
        return _one(float(row.group(1)))

    return compute


MEGATRON = ["gpt3-175b", "llama2-70b"]  # the shipped workloads' Megatron-LM layouts


def _megatron_dp(of: Callable[[pd.DataFrame], Iterable[float]]) -> Callable[[Tables], Value]:
    """The range, over the Megatron workloads' full data-parallel buckets (more than one a
    step), of what `of` computes from their rows of workloads.csv."""

    def compute(tables: Tables) -> Value:
        dp = _rows(tables["tables/workloads.csv"], group="DP")
        dp = dp[(dp.count_per_step > 1) & dp.workload.isin(MEGATRON)]
        if set(dp.workload) != set(MEGATRON):
            raise NotInRun(", ".join(MEGATRON))
        return _span(of(dp))

    return compute


DECODE = "llama2-70b-decode"  # the shipped decode step's workload


def _workload(what: str, quantity: str, name: str, group: str, column: str) -> Claim:
    """The claim that states one column of a workload's TP or DP all-reduce."""
    return Claim(
        f"{what} (workloads.csv)", PUBLISHED, quantity, ("tables/workloads.csv",),
        lambda tables: _one(
            _rows(tables["tables/workloads.csv"], workload=name, group=group)[column].iloc[0]
        ),
    )  # fmt: skip


def _decode_measured(tables: Tables) -> float:
    """The decode all-reduce's size, measured by nccl-tests on one ABCI A100 node."""
    size = _rows(tables["tables/workloads.csv"], workload=DECODE).message_bytes.iloc[0]
    rows = _rows(tables["tables/validation_gpu.csv"], system="abci-a100-1node", message_bytes=size)
    return float(rows.measured_s.iloc[0])


def _decode_step(tables: Tables) -> Value:
    """A decode step's TP all-reduces at the measured time of one."""
    count = _rows(tables["tables/workloads.csv"], workload=DECODE).count_per_step.iloc[0]
    return _one(count * _decode_measured(tables))


def _ladder_top(where: list[str], ranks: list[int] | None = None) -> Callable[[Tables], Value]:
    """The top rung's median |error| (the range over `where` and N where several)."""

    def compute(tables: Tables) -> Value:
        rows = _rows(tables["tables/validation_summary.csv"], model="+protocol")
        rows = rows[rows["where"].isin(where)]
        if ranks is not None:
            rows = rows[rows.ranks.isin(ranks)]
        if set(rows["where"]) != set(where):  # a range over fewer is another claim
            raise NotInRun(", ".join(sorted(set(where) - set(rows["where"]))))
        return _span(rows.median_abs_rel_error)

    return compute


CLOCKS = list(TRANSPORTS)  # this machine's clock: every transport timed


def _textbook_low(tables: Tables) -> Value:
    """The textbook α-β rung's median |error| against the clock, over transports and N."""
    rows = _rows(tables["tables/validation_summary.csv"], model="alpha-beta")
    rows = rows[rows["where"].isin(CLOCKS)]
    if rows.empty:
        raise NotInRun("no timed transport")
    return _span(rows.median_abs_rel_error)


TIMED_RANKS = [2, 4, 8]  # the default config's timed N (wallclock.ranks)


def _crossovers(resolved: bool | None) -> Callable[[Tables], Value]:
    """Of the timed (transport, N), every transport at N = 2, 4 and 8, how many have a
    measured ring/recursive-doubling crossover whose band the clock resolves (None: how
    many there are)."""

    def compute(tables: Tables) -> Value:
        rows = tables["tables/validation_crossover.csv"]
        rows = rows[rows.ranks.isin(TIMED_RANKS)]
        timed = {(t, n) for t in CLOCKS for n in TIMED_RANKS}
        if set(zip(rows.transport, rows.ranks, strict=True)) != timed:
            raise NotInRun(f"N = {TIMED_RANKS} on {', '.join(CLOCKS)}")
        return _one(len(rows) if resolved is None else int((rows.resolved == resolved).sum()))

    return compute


LARGE = 8 * 1024 * 1024


def _ring_against_mpi(transport: str) -> Callable[[Tables], Value]:
    """The from-scratch ring's median time at 8 MiB over MPI_Allreduce's at the same N,
    over N, its interval from the ring's own (low_s, high_s)."""

    def compute(tables: Tables) -> Value:
        clock = tables["tables/wallclock.csv"]
        ring = _rows(clock, transport=transport, algorithm="ring", message_bytes=LARGE)
        mpi = _rows(clock, transport="mpi", algorithm="MPI_Allreduce", message_bytes=LARGE)
        both = ring.merge(mpi[["ranks", "time_median_s"]], on="ranks", suffixes=("", "_mpi"))
        if both.empty:
            raise NotInRun(f"no {transport} ring beside MPI_Allreduce")
        ratio = both.time_median_s / both.time_median_s_mpi
        return Value(
            (float(ratio.min()), float(ratio.max())),
            float((both.low_s / both.time_median_s_mpi).min()),
            float((both.high_s / both.time_median_s_mpi).max()),
        )

    return compute


def _ratio(
    numerator: Callable[[Tables], Value], denominator: Callable[[Tables], Value]
) -> Callable[[Tables], Value]:
    """One value over another."""
    return lambda tables: _one(numerator(tables).values[0] / denominator(tables).values[0])


def _scale(column: str) -> Callable[[Tables], Value]:
    """One column of the cluster side's 80 MB bucket at N = 131,072 (scale.csv)."""
    return lambda tables: _one(_scale_cluster(tables)[column])


_scale_ring_latency, _scale_bucket = _scale("ring_latency_s"), _scale("cheapest_s")

CLAIMS: dict[str, Claim] = {
    "naive_on_nvlink": Claim(
        "the largest size at which the headline figure draws naive as the fastest (nvlink)",
        PUBLISHED, "bytes", ("figures/crossover.csv",), _naive_on_nvlink,
    ),
    "ring_rd_coefficient": Claim(
        "where ring overtakes recursive doubling at N = 8, in units of α/β",
        PUBLISHED, "number", ("tables/crossover.csv",), _ring_rd_coefficient,
    ),
    "crossover_infiniband": Claim(
        "where ring overtakes recursive doubling (infiniband, N = 8, closed form)",
        PUBLISHED, "bytes", ("tables/crossover.csv",), _crossover("infiniband"),
    ),
    "crossover_xeon": Claim(
        "where ring overtakes recursive doubling (shm-xeon, N = 8, closed form)",
        PUBLISHED, "bytes", ("tables/crossover.csv",), _crossover("shm-xeon"),
    ),
    "nvlink_two_shot": Claim(
        "the smallest size at which two-shot is the cheapest on NVLink's crossbar at N = 8",
        PUBLISHED, "bytes", ("tables/costs.csv",), _cheapest("nvlink", 8, "two_shot", "from"),
    ),
    "ndv2_rd_to": Claim(
        "the largest size at which the replay picks recursive doubling (ndv2, N = 64)",
        PUBLISHED, "bytes", ("tables/costs.csv",), _ndv2("recursive_doubling", "to"),
    ),
    "ndv2_hierarchical_from": Claim(
        "the smallest size at which the replay picks hierarchical (ndv2, N = 64)",
        PUBLISHED, "bytes", ("tables/costs.csv",), _ndv2("hierarchical-G8", "from"),
    ),
    "ndv2_hierarchical_to": Claim(
        "the largest size at which the replay picks hierarchical (ndv2, N = 64)",
        PUBLISHED, "bytes", ("tables/costs.csv",), _ndv2("hierarchical-G8", "to"),
    ),
    "ndv2_ring_from": Claim(
        "the smallest size at which the replay picks ring (ndv2, N = 64)",
        PUBLISHED, "bytes", ("tables/costs.csv",), _ndv2("ring", "from"),
    ),
    "ndv2_flat_rd_to": Claim(
        "the largest size at which the flat model picks recursive doubling (ndv2, N = 64)",
        PUBLISHED, "bytes", ("tables/costs.csv",),
        _ndv2("recursive_doubling", "to", "closed_form_s"),
    ),
    "scale_ring_latency": Claim(
        "ring's latency term on the cluster side at N = 131,072 (scale.csv)",
        PUBLISHED, "seconds", ("tables/scale.csv",), _scale_ring_latency,
    ),
    "scale_bucket_cheapest": Claim(
        "the cheapest all-reduce of the 80 MB bucket on the cluster side at N = 131,072",
        PUBLISHED, "seconds", ("tables/scale.csv",), _scale_bucket,
    ),
    "scale_ring_over_bucket": Claim(
        "ring's latency term over the cheapest time of the 80 MB bucket at N = 131,072",
        PUBLISHED, "number", ("tables/scale.csv",), _ratio(_scale_ring_latency, _scale_bucket),
    ),
    "scale_nccl_tree_from": Claim(
        "the fewest GPUs from which NCCL picks its tree for the 80 MB bucket (scale.csv)",
        PUBLISHED, "number", ("tables/scale.csv",), _nccl_tree_from,
    ),
    "recovered_rd_rounds": Claim(
        "recursive doubling's rounds fitted to the measured counts, per log2 N",
        PUBLISHED, "number", ("tables/cost_model.md",), _recovered("recursive_doubling", "rounds"),
    ),
    "recovered_rabenseifner_rounds": Claim(
        "Rabenseifner's rounds fitted to the measured counts, per log2 N",
        PUBLISHED, "number", ("tables/cost_model.md",), _recovered("rabenseifner", "rounds"),
    ),
    "megatron_rd_over_ring": Claim(
        "recursive doubling's time over ring's for the Megatron workloads' DP buckets",
        PUBLISHED, "number", ("tables/workloads.csv",),
        _megatron_dp(lambda dp: dp.recursive_doubling_s / dp.ring_s),
    ),
    "megatron_buckets": Claim(
        "the Megatron workloads' full DP buckets (workloads.csv)",
        PUBLISHED, "bytes", ("tables/workloads.csv",), _megatron_dp(lambda dp: dp.message_bytes),
    ),
    "megatron_dp_ranks": Claim(
        "the Megatron workloads' DP degrees (workloads.csv)",
        PUBLISHED, "number", ("tables/workloads.csv",), _megatron_dp(lambda dp: dp.ranks),
    ),
    "decode_bytes": _workload(
        "the decode step's TP all-reduce", "bytes", DECODE, "TP", "message_bytes"
    ),
    "decode_per_step": _workload(
        "the decode step's TP all-reduces per step", "number", DECODE, "TP", "count_per_step"
    ),
    "gpt3_tp_bytes": _workload(
        "GPT-3's TP all-reduce", "bytes", "gpt3-175b", "TP", "message_bytes"
    ),
    "gpt3_tp_per_step": _workload(
        "GPT-3's TP all-reduces per training step", "number", "gpt3-175b", "TP", "count_per_step"
    ),
    "decode_cheapest": _workload(
        "the decode TP all-reduce's cheapest time on link-level α-β", "seconds",
        DECODE, "TP", "winner_s",
    ),
    "decode_ring": _workload(
        "the decode TP all-reduce's ring time on link-level α-β", "seconds", DECODE, "TP", "ring_s"
    ),
    "decode_nccl_model": _workload(
        "NCCL's model of the decode TP all-reduce with the call floor", "seconds",
        DECODE, "TP", "nccl_s",
    ),
    "decode_measured": Claim(
        "nccl-tests' time of the decode TP all-reduce's size on one ABCI A100 node",
        PUBLISHED, "seconds", ("tables/workloads.csv", "tables/validation_gpu.csv"),
        lambda tables: _one(_decode_measured(tables)),
    ),
    "decode_step_measured": Claim(
        "a decode step's TP all-reduces at nccl-tests' time of one",
        PUBLISHED, "seconds", ("tables/workloads.csv", "tables/validation_gpu.csv"), _decode_step,
    ),
    "cluster_abci": Claim(
        "the top rung's median |error| on the ABCI clusters' osu_allreduce",
        PUBLISHED, "fraction", ("tables/validation_summary.csv",),
        _ladder_top(["abci-128", "abci-16"]),
    ),
    "cluster_azure": Claim(
        "the top rung's median |error| on Azure HBv3's osu_allreduce",
        PUBLISHED, "fraction", ("tables/validation_summary.csv",), _ladder_top(["azure-hbv3-192"]),
    ),
    "cluster_oci": Claim(
        "the top rung's median |error| on OCI's osu_allreduce",
        PUBLISHED, "fraction", ("tables/validation_summary.csv",), _ladder_top(["oci-144"]),
    ),
    "clock_textbook": Claim(
        "the textbook α-β rung's median |error| against this machine's clock",
        MACHINE, "fraction", ("tables/validation_summary.csv",), _textbook_low,
    ),
    "crossovers_resolved": Claim(
        "the timed (transport, N) whose ring/recursive-doubling crossover the clock resolves",
        MACHINE, "number", ("tables/validation_crossover.csv",), _crossovers(True),
    ),
    "crossovers_timed": Claim(
        "the timed (transport, N) with a ring/recursive-doubling crossover to place",
        PUBLISHED, "number", ("tables/validation_crossover.csv",), _crossovers(None),
    ),
    "clock_top_n2": Claim(
        "the top rung's median |error| against this machine's clock at N = 2",
        MACHINE, "fraction", ("tables/validation_summary.csv",), _ladder_top(CLOCKS, [2]),
    ),
    "clock_top_n4_8": Claim(
        "the top rung's median |error| against this machine's clock at N = 4 and 8",
        MACHINE, "fraction", ("tables/validation_summary.csv",), _ladder_top(CLOCKS, [4, 8]),
    ),
    "ring_over_mpi_queue": Claim(
        "the from-scratch ring over queues at 8 MiB, over MPI_Allreduce's time",
        MACHINE, "number", ("tables/wallclock.csv",), _ring_against_mpi("queue"),
    ),
    "ring_over_mpi_mpi": Claim(
        "the from-scratch ring over MPI at 8 MiB, over MPI_Allreduce's time",
        MACHINE, "number", ("tables/wallclock.csv",), _ring_against_mpi("mpi"),
    ),
}  # fmt: skip


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.0%}"


def _gpu_validation_rows(tables: Tables, systems: tuple[str, ...]) -> list[list[str]]:
    """validation.md's table of GPU systems: per system its sizes, per rung the median
    predicted/measured, median |error| and share within 2x, then the busbw at the largest
    size measured and by NCCL's model and the replay."""
    summary = tables["tables/validation_gpu_summary.csv"]
    rows = []
    for system in systems:
        rung = _rows(summary, system=system).set_index("model")
        cells = [system, str(int(rung.points.max()))]
        for name in ("link_alpha_beta", "nccl_model", "nccl_replay"):
            ratio, row = rung.median_predicted_over_measured[name], rung.loc[name]
            cells.append(
                "n/a" if math.isnan(ratio) else
                f"{ratio:.2f}, {_percent(row.median_abs_rel_error)}, {_percent(row.within_2x)}"
            )  # fmt: skip
        cells.append(f"{rung.plateau_measured_busbw_GBps.iloc[0]:.0f}")
        cells += [f"{rung.plateau_predicted_busbw_GBps[name]:.0f}"
                  for name in ("nccl_model", "nccl_replay")]  # fmt: skip
        rows.append(cells)
    return rows


LADDER_COLUMNS = ("alpha-beta", "+structure", "+resources", "+protocol")


def _cluster_validation_rows(tables: Tables, names: tuple[str, ...]) -> list[list[str]]:
    """validation.md's table of clusters: per cluster its ranks and ranks per node,
    the median |error| of each rung of the ladder but +γ (equal to α-β: no cluster's log
    times a reduction), the headline's share within 2x, and the node-log variant's median
    |error| where there is one."""
    clusters = tables["tables/validation_clusters.csv"]
    summary = tables["tables/validation_summary.csv"]
    rows = []
    for cluster in names:
        group = _rows(clusters, cluster=cluster)
        rung = _rows(summary, **{"where": cluster}).set_index("model")
        node_log = (group.node_log_s / group.measured_s - 1).abs().median()
        first = group.iloc[0]
        rows.append([
            cluster, f"{first.ranks} ({first.ranks_per_node})", "",
            *(_percent(rung.median_abs_rel_error[model]) for model in LADDER_COLUMNS),
            _percent(rung.within_2x["+protocol"]),
            "" if math.isnan(node_log) else _percent(node_log),
        ])  # fmt: skip
    return rows


def _time(seconds: float) -> str:
    return format_seconds(seconds).replace("us", "µs")


def _label(algorithm: str) -> str:
    """An algorithm as the pages name it: its registry label, else the name given."""
    entry = registry.ALGORITHMS.get(algorithm)
    return entry.label if entry else algorithm


def _workload_rows(tables: Tables, workloads: tuple[str, ...]) -> list[list[str]]:
    """workloads.md's table of the shipped workloads: per workload and group its fabric and
    N, its all-reduces a step (a partial last bucket after a +), the cheapest algorithm and
    its time, ring's and recursive doubling's, and the group's time per step."""
    table = tables["tables/workloads.csv"]
    rows = []
    for workload in workloads:
        for group, messages in _rows(table, workload=workload).groupby("group", sort=False):
            main, partial = messages.iloc[0], messages.iloc[1:]
            sizes = f"{format_bytes(main.message_bytes)} × {main.count_per_step}" + "".join(
                f" + {format_bytes(size)}" for size in partial.message_bytes
            )
            rows.append([
                workload, group, f"{main.fabric}, {main.ranks}", sizes,
                f"{_label(main.winner)} {_time(main.winner_s)}", _time(main.ring_s),
                _time(main.recursive_doubling_s), _time(messages.per_step_s.sum()),
            ])  # fmt: skip
    return rows


def _workload_nccl_rows(tables: Tables, workloads: tuple[str, ...]) -> list[list[str]]:
    """workloads.md's table of workloads on a GPU system: NCCL's choice, its time each and
    per step, beside the link-level map's per step."""
    table = tables["tables/workloads.csv"]
    rows = []
    for workload in workloads:
        for row in _rows(table, workload=workload).dropna(subset=["nccl_choice"]).itertuples():
            rows.append([
                workload, row.group, row.nccl_choice.replace("/", " / "), _time(row.nccl_s),
                _time(row.nccl_per_step_s), _time(row.per_step_s),
            ])  # fmt: skip
    return rows


def _scale_rows(tables: Tables, ranks: tuple[str, ...]) -> list[list[str]]:
    """workloads.md's table of the bucket as N grows: on the cluster the cheapest algorithm
    and the library's pick with their times and the ring's latency term, on the GPU system
    NCCL's pick and its time."""
    table = tables["tables/scale.csv"]
    rows = []
    for count in map(int, ranks):
        where = {"ranks": count, "message_bytes": SCALE_BUCKET}
        cluster = _rows(table, side="cluster", **where).iloc[0]
        gpu = _rows(table, side="gpu", **where).iloc[0]
        rows.append([
            f"{count:,}", f"{_label(cluster.cheapest)}, {_time(cluster.cheapest_s)}",
            f"{_label(cluster.pick.split(': ')[-1])}, {_time(cluster.pick_s)}",
            _time(cluster.ring_latency_s), f"{gpu.pick.split(': ')[-1]}, {_time(gpu.pick_s)}",
        ])  # fmt: skip
    return rows


# The systems docs/validation.md's tables list, in their order (config/config.yaml's names)
GPU_SYSTEMS = (
    "abci-a100-1node", "abci-a100-2nodes", "abci-a100-16nodes", "aws-p4de-2nodes",
    "aws-p5-2nodes", "gcp-a3mega-2nodes", "dell-h200-roce-2nodes", "oci-gb200-32trays",
    "coreweave-gb200-nvl72", "coreweave-gb200-2racks", "amd-mi300x-1node",
    "amd-aac10-mi300x-2nodes",
)  # fmt: skip
CLUSTERS = ("abci-16", "abci-128", "azure-hbv3-192", "oci-144")
WORKLOADS = ("gpt3-175b", "llama2-70b", "llama2-70b-decode", "gpt2-medium")  # workloads.md's

TABLE_CLAIMS: dict[str, TableClaim] = {
    "gpu_validation": TableClaim(
        "each GPU system's error and plateau busbw by rung", PUBLISHED,
        ("tables/validation_gpu_summary.csv",), GPU_SYSTEMS, (0,), _gpu_validation_rows,
    ),
    "cluster_validation": TableClaim(
        "each cluster's median |error| by rung of the ladder", PUBLISHED,
        ("tables/validation_clusters.csv", "tables/validation_summary.csv"), CLUSTERS, (0, 2),
        _cluster_validation_rows,
    ),
    "workloads": TableClaim(
        "each shipped workload's all-reduces and their costs on link-level α-β", PUBLISHED,
        ("tables/workloads.csv",), WORKLOADS, (0,), _workload_rows,
    ),
    "workloads_nccl": TableClaim(
        "the workloads on a GPU system, by NCCL's model", PUBLISHED,
        ("tables/workloads.csv",), ("llama2-70b-decode",), (0,), _workload_nccl_rows,
    ),
    "scale_bucket": TableClaim(
        "Llama 2 70B's DP bucket as N grows, on ABCI's network and its A100 system", PUBLISHED,
        ("tables/scale.csv",), ("8", "128", "2048", "131072"), (), _scale_rows,
    ),
}  # fmt: skip


def tables_read() -> list[str]:
    """Every table some claim reads, by its place under results/."""
    every = [*CLAIMS.values(), *TABLE_CLAIMS.values()]
    return sorted({name for claim in every for name in claim.tables})


def find_markers(pages: Mapping[str, str]) -> list[Marker | TableMarker]:
    """Every marked number and table of the pages (by page name, their text); ValueError
    naming the page and line of a marker with no number before it or no table after it,
    or naming no known claim."""
    found: list[Marker | TableMarker] = []
    for page, text in pages.items():
        lines = text.splitlines()
        for number, line in enumerate(lines, start=1):
            table = TABLE_MARKER.match(line.strip())
            if table:
                name = table["name"]
                if name not in TABLE_CLAIMS:
                    raise ValueError(f"{page}:{number}: no table claim named {name!r}")
                found.append(
                    TableMarker(name, page, number, _table_body(lines[number:], f"{page}:{number}"))
                )
                continue
            matched = list(MARKER.finditer(line))
            if len(matched) != len(ANY_MARKER.findall(line)):
                raise ValueError(f"{page}:{number}: a claim marker with no number before it")
            for match in matched:
                name = match["name"]
                if name not in CLAIMS:
                    raise ValueError(f"{page}:{number}: no claim named {name!r} (CLAIMS)")
                found.append(Marker(name, page, number, match["stated"], match["unit"]))
    return found


def _table_body(lines: list[str], where: str) -> tuple[tuple[str, ...], ...]:
    """The cells of the Markdown table that starts on the first of `lines`, header and
    separator left out, claim markers dropped; ValueError naming `where` if none starts."""
    table = []
    for line in lines:
        if not line.startswith("|"):
            break
        table.append(tuple(
            re.sub(r"<!--claim [a-z0-9_]+-->", "", cell).strip()
            for cell in CELL_SEPARATOR.split(line.strip())[1:-1]
        ))  # fmt: skip
    if len(table) < 2 or not all(set(cell) <= set("-: ") for cell in table[1]):
        raise ValueError(f"{where}: a table claim marker with no Markdown table after it")
    return tuple(table[2:])


def stated_numbers(stated: str) -> list[str]:
    """'2.6–2.9' -> ['2.6', '2.9']; '131,072' -> ['131072']."""
    return [part.replace(",", "") for part in re.findall(NUMBER, stated)]


def unit_scale(claim: Claim, unit: str, where: str) -> float:
    """How many of the claim's base unit one stated unit is; ValueError naming `where` if
    the page's unit is not one of the claim's quantity."""
    units = UNITS[claim.quantity]
    if not units:
        return 1.0
    word = unit.strip().split(" ")[0] if unit.strip() else ""
    if word not in units:
        raise ValueError(f"{where}: {unit.strip()!r} is not a unit of {claim.quantity} "
                         f"({', '.join(units)})")  # fmt: skip
    return units[word]


def agrees(stated: list[str], values: Computed, scale: float) -> bool:
    """Whether each stated number equals this run's value rounded to its decimals."""
    if len(stated) != len(values):
        return False
    for text, value in zip(stated, values, strict=True):
        decimals = len(text.split(".")[1]) if "." in text else 0
        if round(value / scale, decimals) != round(float(text), decimals):
            return False
    return True


def _shown(values: Computed, scale: float) -> str:
    return "–".join(f"{value / scale:.4g}" for value in values)


def check(markers: list[Marker | TableMarker], tables: Tables) -> pd.DataFrame:
    """One row per marker: the stated value, this run's (in the stated unit), its interval,
    whether they agree, and the status (agrees, differs, this machine's, not in this run)."""
    rows = []
    for marker in markers:
        if isinstance(marker, TableMarker):
            rows.append(_check_table(marker, tables))
            continue
        claim = CLAIMS[marker.name]
        where = f"{marker.page}:{marker.line}"
        scale = unit_scale(claim, marker.unit, where)
        stated = stated_numbers(marker.stated)
        row = {"claim": marker.name, "kind": claim.kind, "page": marker.page,
               "line": marker.line, "stated": f"{marker.stated}{marker.unit}".strip(),
               "this_run": "", "low": "", "high": "", "agrees": "", "what": claim.what}  # fmt: skip
        missing = [name for name in claim.tables if name not in tables]
        try:
            if missing:
                raise NotInRun(", ".join(missing))
            value = claim.compute(tables)
        except NotInRun:
            rows.append({**row, "status": "not in this run"})
            continue
        same = agrees(stated, value.values, scale)
        row.update(this_run=_shown(value.values, scale), agrees=same)
        if value.low is not None and value.high is not None:
            row.update(low=f"{value.low / scale:.4g}", high=f"{value.high / scale:.4g}")
        status = "this machine's" if claim.kind == MACHINE else "agrees" if same else "differs"
        rows.append({**row, "status": status})
    return pd.DataFrame(rows, columns=COLUMNS)


def _check_table(marker: TableMarker, tables: Tables) -> dict[str, object]:
    """A table claim's row: the page's rows against the run's, and the first cell where
    they part (its row's label, its column, the page's text and the run's)."""
    claim = TABLE_CLAIMS[marker.name]
    stated = f"{len(marker.rows)} rows"
    row = {"claim": marker.name, "kind": claim.kind, "page": marker.page, "line": marker.line,
           "stated": stated, "this_run": "", "low": "", "high": "", "agrees": "",
           "what": claim.what}  # fmt: skip
    try:
        missing = [name for name in claim.tables if name not in tables]
        if missing:
            raise NotInRun(", ".join(missing))
        rendered = claim.render(tables, claim.rows)
    except NotInRun:
        return {**row, "status": "not in this run"}
    parted = _first_difference(marker.rows, rendered, claim.words)
    same = parted is None
    status = "this machine's" if claim.kind == MACHINE else "agrees" if same else "differs"
    return {**row, "this_run": parted or stated, "agrees": same, "status": status}


def _first_difference(
    page: tuple[tuple[str, ...], ...], run: list[list[str]], words: tuple[int, ...]
) -> str | None:
    """Where the page's table first differs from the run's (None where it does not)."""
    if len(page) != len(run):
        return f"{len(run)} rows"
    for number, (stated, computed) in enumerate(zip(page, run, strict=True), start=1):
        if len(stated) != len(computed):
            return f"row {number} ({stated[0]}): {len(computed)} cells"
        for column, (text, value) in enumerate(zip(stated, computed, strict=True)):
            if column not in words and " ".join(text.split()) != value:
                return f"row {number} ({stated[0]}), column {column + 1}: {value!r} for {text!r}"
    return None


def read_tables(paths: Iterable[str | Path]) -> dict[str, pd.DataFrame | str]:
    """The run's tables by their place under results/ ('tables/costs.csv', or a figure's
    own 'figures/crossover.csv'): CSVs as frames, Markdown as its text."""
    tables: dict[str, pd.DataFrame | str] = {}
    for path in map(Path, paths):
        key = f"{path.parent.name}/{path.name}"
        tables[key] = pd.read_csv(path) if path.suffix == ".csv" else path.read_text()
    return tables


def differences(table: pd.DataFrame) -> list[str]:
    """One line per published claim this run contradicts: page, line, stated and found."""
    wrong = table[table.status == "differs"]
    return [
        f"{row.page}:{row.line}: {row.claim} states {row.stated}, this run has {row.this_run}"
        for row in wrong.itertuples()
    ]
