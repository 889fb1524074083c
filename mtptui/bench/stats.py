"""Descriptive statistics as sglang's bench reports them, and Welch's t-test, without numpy or scipy."""

from __future__ import annotations

import math
from typing import Sequence

PERCENTILES = (90, 95, 99)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile with linear interpolation (numpy's default method)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def variance(values: Sequence[float]) -> float:
    """Sample variance (n - 1)."""
    m = mean(values)
    return math.fsum((v - m) ** 2 for v in values) / (len(values) - 1)


def describe(values: Sequence[float], scale: float = 1.0) -> dict[str, float | None]:
    """`{mean, median, p90, p95, p99}` of values times `scale`; all None when there are no values."""
    keys = ["mean", "median"] + [f"p{q}" for q in PERCENTILES]
    if not values:
        return dict.fromkeys(keys, None)
    scaled = [v * scale for v in values]
    figures = [mean(scaled), percentile(scaled, 50)] + [percentile(scaled, q) for q in PERCENTILES]
    return dict(zip(keys, figures))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def welch(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Welch's unequal-variance t-test of mean(a) vs mean(b): `(t, df, two-sided p)`; needs 2+ values each."""
    va, vb = variance(a) / len(a), variance(b) / len(b)
    diff = mean(a) - mean(b)
    if va + vb == 0.0:
        return (0.0, math.inf, 1.0) if diff == 0 else (math.copysign(math.inf, diff), math.inf, 0.0)
    t = diff / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return t, df, t_two_sided_p(t, df)
