"""Percentiles as numpy computes them, and the Student-t tail used by the regression verdict."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.bench.stats import betainc, describe, percentile, t_two_sided_p, welch


def test_percentile_matches_numpy_linear_interpolation() -> None:
    # np.percentile([15, 20, 35, 40, 50], q) for q = 0, 40, 90, 99, 100
    values = [50, 15, 40, 35, 20]
    assert [percentile(values, q) for q in (0, 40, 90, 99, 100)] == pytest.approx([15, 29, 46, 49.6, 50])
    assert describe([1.0, 2.0, 3.0, 4.0], scale=1000) == pytest.approx(
        {"mean": 2500, "median": 2500, "p90": 3700, "p95": 3850, "p99": 3970})


@pytest.mark.parametrize("t, df, p", [(2.228, 10, 0.05), (12.706, 1, 0.05), (2.576, 10**6, 0.01),
                                      (1.0, 3, 0.3910), (0.0, 7, 1.0)])
def test_student_t_two_sided_tail_matches_tables(t: float, df: float, p: float) -> None:
    assert t_two_sided_p(t, df) == pytest.approx(p, abs=2e-4)


def test_betainc_symmetry_and_known_value() -> None:
    assert betainc(2.0, 3.0, 0.4) == pytest.approx(0.5248)  # 1 - sum_{j<2} C(4,j) .4^j .6^(4-j)
    assert betainc(2.5, 1.5, 0.3) == pytest.approx(1 - betainc(1.5, 2.5, 0.7))


def test_welch_known_example() -> None:
    # scipy.stats.ttest_ind([1,2,3,4], [5,6,7,8.5], equal_var=False): t=-4.1798, p=0.00608
    t, df, p = welch([1, 2, 3, 4], [5, 6, 7, 8.5])
    assert (t, p) == pytest.approx((-4.1798, 0.00608), rel=1e-3)
    assert welch([3, 3], [3, 3])[2] == 1.0 and welch([3, 3], [4, 4])[2] == 0.0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), st.floats(0, 100), st.floats(0, 100))
def test_percentile_is_monotone_and_bounded(values, q1, q2) -> None:
    low, high = sorted((q1, q2))
    slack = 1e-9 * max(1.0, max(abs(v) for v in values))
    p_low, p_high = percentile(values, low), percentile(values, high)
    assert min(values) - slack <= p_low <= p_high + slack and p_high <= max(values) + slack
