"""Fitting a link class: t(bytes) = α + β·bytes to measured one-way times.

Weighted least squares that minimizes *relative* residuals, so the 1-byte latency and the
4-MiB bandwidth count alike (plain least squares on raw times lets the largest messages
decide α).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class Points:
    """Point-to-point measurements: message sizes (bytes) and one-way times (seconds)."""

    nbytes: np.ndarray
    seconds: np.ndarray


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
    design = _relative_design(points)
    alpha, beta = least_squares(points)
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


# A link faster than this is a unit error or a flat latency table, not a link: the fastest
# today carry ~1e12 B/s (NVLink 5: 1.8 TB/s per GPU, both ways), below the ~8e12 B/s of
# the HBM their bytes are read from.
MAX_BANDWIDTH = 1e13  # bytes per second


def line_problem(alpha: float, beta: float) -> str | None:
    """Why no link could have the line α + β·bytes, in a phrase; None where one could: the
    time must grow with the size, at most at MAX_BANDWIDTH, from a positive latency."""
    if abs(beta) < 1.0 / MAX_BANDWIDTH:
        return (
            f"the time hardly grows with the size: the fit gives beta={beta:.3g} s/B, "
            f"a bandwidth above {MAX_BANDWIDTH:.0e} B/s (10 TB/s), more than any link carries"
        )
    if beta < 0:
        return (
            f"the latency falls as messages grow (the fit gives beta={beta:.3g} s/B); "
            "it must be positive"
        )
    if alpha <= 0:
        return (
            f"the fit gives alpha={alpha:.3g} s; it must be positive (check the file and its units)"
        )
    return None


def least_squares(points: Points) -> tuple[float, float]:
    """Only alpha and beta of fit_alpha_beta: NumPy alone, without the statistics (SciPy's
    import costs a second), for the config check that screens every file before any job."""
    design = _relative_design(points)
    (alpha, beta), *_ = np.linalg.lstsq(design, np.ones_like(points.seconds), rcond=None)
    return float(alpha), float(beta)


def _relative_design(points: Points) -> np.ndarray:
    """The design matrix [1, bytes] divided by each time: its residuals are relative."""
    return np.column_stack([np.ones_like(points.nbytes), points.nbytes]) / points.seconds[:, None]
