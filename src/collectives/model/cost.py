"""α-β costs from the measured counts, winners, crossovers and the fitted cost shape.

The closed form rounds·α + bytes_critical·β: the latency-bound critical path in message
rounds plus the bandwidth-bound critical path in bytes, both as measured (never theory).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .crossing import Range, takes_over, winner_ranges

GROUP = ["fabric", "dtype", "ranks", "elements"]
# The seed's question: from which message size does the bandwidth-optimal ring beat the
# latency-optimal recursive doubling? (latency-optimal, bandwidth-optimal)
BASIS = {
    "1": lambda n: np.ones_like(n),
    "N": lambda n: n,
    "1/N": lambda n: 1 / n,
    "log2 N": np.log2,
}


def closed_form(rounds, bytes_critical, alpha, beta):
    """The flat α-β time: rounds·α + bytes_critical·β (scalars, arrays or columns)."""
    return rounds * alpha + bytes_critical * beta


def modeled_costs(
    measurements: pd.DataFrame,
    fabrics: pd.DataFrame,
    algorithms: list[str],
    replayed: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every fabric x run: its time, the closed form and its two terms, and the winners.

    closed_form_s = rounds * alpha + bytes_critical * beta with the fabric's flat alpha and
    beta; time_s is the replayed time of the run's trace on the fabric (`replayed`: fabric,
    algorithm, ranks, elements, dtype, replayed_s), or the closed form without one. Winners
    go by time_s; ties go to the algorithm listed first in `algorithms`.
    """
    runs = measurements[
        ["algorithm", "ranks", "elements", "dtype", "message_bytes", "rounds", "bytes_critical"]
    ]
    costs = runs.merge(fabrics[["fabric", "alpha_s", "beta_s_per_byte"]], how="cross")
    costs["latency_s"] = costs["rounds"] * costs["alpha_s"]
    costs["bandwidth_s"] = costs["bytes_critical"] * costs["beta_s_per_byte"]
    costs["closed_form_s"] = closed_form(
        costs["rounds"], costs["bytes_critical"], costs["alpha_s"], costs["beta_s_per_byte"]
    )
    if replayed is None:
        costs["time_s"] = costs["closed_form_s"]
    else:
        keys = ["fabric", "algorithm", "ranks", "elements", "dtype"]
        costs = costs.merge(replayed[[*keys, "replayed_s"]], on=keys, how="left", validate="1:1")
        if costs["replayed_s"].isna().any():
            missing = costs[costs["replayed_s"].isna()].iloc[0]
            raise ValueError(f"no replayed time for {dict(missing[keys])}")
        costs = costs.rename(columns={"replayed_s": "time_s"})
    order = {name: index for index, name in enumerate(algorithms)}
    costs["_order"] = costs["algorithm"].map(order)
    costs["fabric"] = pd.Categorical(costs["fabric"], categories=list(fabrics["fabric"]))
    costs = costs.sort_values([*GROUP, "time_s", "_order"], ignore_index=True)
    best = costs.groupby(GROUP, sort=False, observed=True)["algorithm"].transform("first")
    costs["winner"] = best
    costs["is_winner"] = costs["algorithm"] == best
    columns = ["fabric", "dtype", "ranks", "elements", "message_bytes", "algorithm", "rounds",
               "bytes_critical", "alpha_s", "beta_s_per_byte", "latency_s", "bandwidth_s",
               "closed_form_s", "time_s", "winner", "is_winner"]  # fmt: skip
    costs = costs.sort_values([*GROUP, "_order"], ignore_index=True)
    costs["fabric"] = costs["fabric"].astype(str)  # in the fabrics table's order
    return costs[columns]


def replay_vs_closed_form(costs: pd.DataFrame, fabrics: pd.DataFrame) -> pd.DataFrame:
    """The runs whose replayed time on a flat single-port fabric without compute cost
    (gamma = 0, no crossbar) differs from rounds * alpha + bytes_critical * beta, and by how
    much (relative)."""
    flat = fabrics[
        (fabrics.kind != "structured") & (fabrics.gamma_s_per_element == 0) & ~fabrics.crossbar
    ]
    rows = costs[costs.fabric.isin(flat.fabric)].copy()
    scale = rows.closed_form_s.where(rows.closed_form_s > 0, 1.0)
    rows["relative_difference"] = (rows.time_s - rows.closed_form_s) / scale
    differ = rows[rows.relative_difference.abs() > 1e-9]
    columns = ["fabric", "algorithm", "dtype", "ranks", "elements", "closed_form_s", "time_s",
               "relative_difference"]  # fmt: skip
    return differ[columns].rename(columns={"time_s": "replayed_s"})


def per_rank_count_coefficients(measurements: pd.DataFrame) -> pd.DataFrame:
    """Per (dtype, algorithm, N): rounds, and bytes_critical ~ slope * bytes + intercept.

    The line is fitted over the grid's message sizes with M >= N (below that, chunked
    algorithms send empty chunks and the counts are not yet affine in M).
    """
    rows = []
    for (dtype, algorithm, ranks), group in measurements.groupby(["dtype", "algorithm", "ranks"]):
        regime = group[group.elements >= ranks]
        regime = regime if len(regime) >= 2 else group
        if len(regime) >= 2:
            slope, intercept = np.polyfit(regime.message_bytes, regime.bytes_critical, 1)
        else:
            slope, intercept = regime.bytes_critical.iloc[0] / regime.message_bytes.iloc[0], 0.0
        rows.append(
            {
                "dtype": dtype,
                "algorithm": algorithm,
                "ranks": ranks,
                "rounds": float(group.rounds.max()),
                "bytes_per_byte": float(slope),
                "bytes_intercept": float(intercept),
            }
        )
    return pd.DataFrame(rows)


def crossover_bytes(a: pd.Series, b: pd.Series, alpha: float, beta: float) -> float:
    """The message size (bytes) above which `b` is cheaper than `a`; NaN if it never is.

    Solves r_a alpha + (k_a B + c_a) beta = r_b alpha + (k_b B + c_b) beta for B; b must
    move fewer bytes per message byte (k_b < k_a) to ever catch up.
    """
    if b.bytes_per_byte >= a.bytes_per_byte * (1 - 1e-9):  # parallel or diverging lines
        return math.nan
    numerator = (b.rounds - a.rounds) * alpha + (b.bytes_intercept - a.bytes_intercept) * beta
    return max(0.0, numerator / ((a.bytes_per_byte - b.bytes_per_byte) * beta))


def crossover_table(
    measurements: pd.DataFrame,
    fabrics: pd.DataFrame,
    costs: pd.DataFrame,
    pair: tuple[str, str],
) -> pd.DataFrame:
    """Per fabric, dtype and N: where the bandwidth-optimal algorithm of `pair` (latency-,
    bandwidth-optimal; the study asks it of recursive doubling and ring) starts beating the
    other, and the message-size range in which each algorithm is the cheapest of all.

    analytic_bytes solves T_ring = T_rd in the flat model from the measured per-N
    coefficients; replayed_bytes is where ring's and recursive doubling's replayed times
    cross for the last time between grid sizes (equal to analytic_bytes on a flat fabric);
    grid_bytes is the smallest grid size from which ring wins at every larger grid size.
    Each `<algorithm>_from_bytes` / `_to_bytes` pair bounds the sizes where that algorithm
    is the cheapest of all (see ranges; from its first interval to the end of its last);
    empty if never.
    """
    coefficients = per_rank_count_coefficients(measurements).set_index(
        ["dtype", "algorithm", "ranks"]
    )
    algorithms = list(dict.fromkeys(costs.algorithm))
    latency_optimal, bandwidth_optimal = pair
    rows = []
    for fabric in fabrics.itertuples():
        alpha, beta = fabric.alpha_s, fabric.beta_s_per_byte
        here = costs[costs.fabric == fabric.fabric]
        for (dtype, ranks), group in here.groupby(["dtype", "ranks"]):
            row = {"fabric": fabric.fabric, "dtype": dtype, "ranks": ranks, "alpha_s": alpha,
                   "beta_s_per_byte": beta, "analytic_bytes": math.nan,
                   "replayed_bytes": math.nan, "grid_bytes": math.nan}  # fmt: skip
            row |= {f"{a}_{end}_bytes": math.nan for a in algorithms for end in ("from", "to")}
            counts = coefficients.xs((dtype, ranks), level=("dtype", "ranks"))
            if set(pair) <= set(counts.index):
                row["analytic_bytes"] = crossover_bytes(
                    counts.loc[latency_optimal], counts.loc[bandwidth_optimal], alpha, beta
                )
                times = group.pivot_table(index="message_bytes", columns="algorithm",
                                          values="time_s")  # fmt: skip
                row["grid_bytes"], row["replayed_bytes"] = takes_over(
                    times.index, times[latency_optimal].to_numpy(),
                    times[bandwidth_optimal].to_numpy(),
                )  # fmt: skip
            for low, high, algorithm in ranges(group):
                first = row[f"{algorithm}_from_bytes"]
                row[f"{algorithm}_from_bytes"] = low if math.isnan(first) else first
                row[f"{algorithm}_to_bytes"] = high
            rows.append(row)
    return pd.DataFrame(rows)


def among(costs: pd.DataFrame, algorithms: list[str]) -> pd.DataFrame:
    """A costs slice restricted to `algorithms`, its winners recomputed (ties: first listed)."""
    rows = costs[costs.algorithm.isin(algorithms)].copy()
    rows["_order"] = rows.algorithm.map({name: i for i, name in enumerate(algorithms)})
    point = ["fabric", "dtype", "ranks", "message_bytes"]
    first = rows.sort_values([*point, "time_s", "_order"]).groupby(point).head(1).index
    rows["is_winner"] = rows.index.isin(first)
    return rows.drop(columns="_order")


def ranges(costs: pd.DataFrame) -> list[Range]:
    """The message-size intervals [low, high) of the cheapest algorithm over one (fabric,
    N) slice of a costs table with `is_winner` set (crossing.winner_ranges)."""
    times = costs.pivot_table(index="message_bytes", columns="algorithm", values="time_s")
    winners = costs[costs.is_winner].set_index("message_bytes").algorithm.sort_index()
    columns = {name: times[name].to_numpy() for name in times.columns}
    return winner_ranges(list(winners.index), list(winners), columns)


def cost_shape(measurements: pd.DataFrame) -> pd.DataFrame:
    """Least-squares fit of each algorithm's counts on {1, N, 1/N, log2 N}.

    rounds and bytes_critical / (M s) are fitted over the grid points of the textbook
    regime: N a power of two (>= 2) that divides M. The issue's bases ({1, N, log2 N} for
    rounds, {1, 1/N, log2 N} for bytes) are subsets; unused terms come out 0.
    """
    rows = []
    for (dtype, algorithm), group in measurements.groupby(["dtype", "algorithm"]):
        n = group.ranks.to_numpy(dtype=float)
        regime = (n >= 2) & (np.log2(n) % 1 == 0) & (group.elements.to_numpy() % n == 0)
        points = group[regime]
        n = points.ranks.to_numpy(dtype=float)
        design = np.column_stack([f(n) for f in BASIS.values()])
        for quantity, values in (
            ("rounds", points.rounds.to_numpy(dtype=float)),
            ("bandwidth", (points.bytes_critical / points.message_bytes).to_numpy()),
        ):
            if len(np.unique(n)) < len(BASIS):
                coefficients = np.full(len(BASIS), np.nan)
                residual = math.nan
            else:
                coefficients, *_ = np.linalg.lstsq(design, values, rcond=None)
                residual = float(np.max(np.abs(design @ coefficients - values)))
            rows.append(
                {
                    "dtype": dtype,
                    "algorithm": algorithm,
                    "quantity": quantity,
                    **{f"c[{name}]": c for name, c in zip(BASIS, coefficients, strict=True)},
                    "max_abs_residual": residual,
                    "points": len(points),
                    "distinct_N": len(np.unique(n)),
                }
            )
    return pd.DataFrame(rows)
