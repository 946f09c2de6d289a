"""The protocol layer's fit: breakpoints and per-segment α-β recovered from synthetic data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collectives.model.fabric import LinkClass
from collectives.model.fit import Points
from collectives.model.protocol import Segment, fit_segments, segment_times

SIZES = np.array([4.0**k for k in range(12)])  # 1 B .. 4 MiB, as the ping-pong measures


def synthetic(segments: list[tuple[float, float, float]], noise: float = 0.0) -> Points:
    """Ping-pong times from known segments (upto, alpha, beta), with relative noise."""
    bounds = [upto for upto, _, _ in segments]
    times = []
    for b in SIZES:
        _, alpha, beta = segments[int(np.searchsorted(bounds, b))]
        times.append(alpha + beta * b)
    rng = np.random.default_rng(0)
    return Points(SIZES, np.array(times) * (1 + noise * rng.standard_normal(len(SIZES))))


def test_one_line_stays_one_segment():
    (segment,) = fit_segments(synthetic([(math.inf, 2e-6, 1e-10)], noise=0.01))
    assert segment.upto == math.inf
    assert segment.alpha == pytest.approx(2e-6, rel=0.05)
    assert segment.beta == pytest.approx(1e-10, rel=0.05)


def test_eager_and_rendezvous_are_found_and_recovered():
    truth = [(8192, 1e-6, 5e-10), (math.inf, 20e-6, 1e-10)]  # a handshake from 16 KiB
    segments = fit_segments(synthetic(truth, noise=0.005))
    assert len(segments) == 2
    assert 4096 < segments[0].upto < 16384  # between the last eager and first rendezvous size
    for segment, (_, alpha, beta) in zip(segments, truth, strict=True):
        assert segment.alpha == pytest.approx(alpha, rel=0.1)
        assert segment.beta == pytest.approx(beta, rel=0.1)


def test_three_protocols():
    truth = [(300, 1e-6, 2e-9), (70_000, 4e-6, 4e-10), (math.inf, 40e-6, 1e-10)]
    segments = fit_segments(synthetic(truth))
    assert [round(math.log(s.upto, 4), 1) for s in segments[:-1]] == [4.5, 8.5]
    assert [s.beta for s in segments] == pytest.approx([b for _, _, b in truth], rel=1e-6)


def test_segment_times_pick_each_messages_segment():
    segments = (Segment(100, 1.0, 0.0), Segment(math.inf, 0.0, 1.0))
    assert segment_times(segments, np.array([1.0, 100.0, 101.0])).tolist() == [1.0, 1.0, 101.0]


def test_no_negative_coefficients():
    # times falling with size: no physical line; the fit keeps alpha and beta >= 0
    points = Points(np.array([1.0, 10.0, 100.0]), np.array([3.0, 2.0, 1.0]))
    (segment,) = fit_segments(points)
    assert segment.alpha >= 0 and segment.beta >= 0


def test_too_few_points():
    with pytest.raises(ValueError, match="needs 3 points"):
        fit_segments(Points(np.array([1.0, 2.0]), np.array([1.0, 2.0])))


def test_a_message_s_bytes_take_its_segment_s_beta():
    link = LinkClass(9.0, 9.0, segments=(Segment(100, 1.0, 0.5), Segment(math.inf, 2.0, 0.1)))
    assert list(link.byte_times(np.array([10.0, 1000.0]))) == pytest.approx([5.0, 100.0])
    assert list(LinkClass(1.0, 0.5).byte_times(np.array([10.0]))) == [5.0]
