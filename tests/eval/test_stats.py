"""The evaluation's statistics against values computed independently (closed forms, SciPy, textbooks)."""

from __future__ import annotations

import math

import pytest

from eval.stats import Z_95, binomial_two_sided_p, mcnemar, two_proportion_p, wilson_interval


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # At 0 and n successes the Wilson bounds have closed forms: n / (n + z^2) and z^2 / (n + z^2).
        (0, 10, 0.0, Z_95**2 / (10 + Z_95**2)),
        (10, 10, 10 / (10 + Z_95**2), 1.0),
        # statsmodels.stats.proportion.proportion_confint(k, n, method="wilson").
        (5, 10, 0.2365930905, 0.7634069095),
        (81, 100, 0.7222115462, 0.8748524849),
    ],
)
def test_wilson_interval_matches_known_values(successes: int, trials: int, low: float, high: float) -> None:
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-9)


def test_wilson_interval_stays_in_unit_range_and_contains_the_rate() -> None:
    for trials in (1, 2, 7, 1000):
        for successes in range(0, trials + 1, max(1, trials // 7)):
            low, high = wilson_interval(successes, trials)
            assert 0.0 <= low <= successes / trials <= high <= 1.0


@pytest.mark.parametrize(
    ("successes", "trials", "match"), [(0, 0, "at least 1 game"), (11, 10, "0..10"), (-1, 5, "0..5")]
)
def test_wilson_interval_rejects_bad_counts(successes: int, trials: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        wilson_interval(successes, trials)


def test_mcnemar_small_case_by_hand() -> None:
    # 10 games only A won, 3 only B: chi2 = (|10 - 3| - 1)^2 / 13; exact p = 2 * P(X <= 3), X ~ Bin(13, 1/2).
    result = mcnemar(10, 3)
    assert result.statistic == pytest.approx(36 / 13)
    assert result.p_value_exact == pytest.approx(2 * (1 + 13 + 78 + 286) / 2**13)
    assert result.p_value_chi2 == pytest.approx(math.erfc(math.sqrt(36 / 13 / 2)))
    assert result.p_value_chi2 == pytest.approx(0.0960923294556734)  # scipy.stats.chi2.sf(36 / 13, 1)


def test_mcnemar_textbook_case() -> None:
    # Wikipedia's McNemar example (b = 121, c = 59); references from scipy.stats chi2.sf and binomtest.
    result = mcnemar(121, 59)
    assert result.statistic == pytest.approx(61**2 / 180)
    assert result.p_value_chi2 == pytest.approx(5.450094825427117e-06, rel=1e-9)
    assert result.p_value_exact == pytest.approx(4.4344492637551645e-06, rel=1e-9)


def test_mcnemar_is_symmetric_and_neutral_on_ties() -> None:
    assert mcnemar(3, 10).p_value_exact == mcnemar(10, 3).p_value_exact
    tie = mcnemar(5, 5)
    assert (tie.statistic, tie.p_value_chi2, tie.p_value_exact) == (0.0, 1.0, 1.0)
    nothing = mcnemar(0, 0)
    assert (nothing.p_value_chi2, nothing.p_value_exact) == (1.0, 1.0)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar(-1, 4)


def test_binomial_p_value_is_accurate_for_large_counts() -> None:
    # scipy.stats.binomtest(950, 2000).pvalue
    assert binomial_two_sided_p(950, 2000) == pytest.approx(0.026824146240280546, rel=1e-9)
    assert binomial_two_sided_p(1050, 2000) == pytest.approx(0.026824146240280546, rel=1e-9)
    assert binomial_two_sided_p(0, 1) == 1.0


def test_two_proportions_on_separate_games() -> None:
    # 60 of 100 against 40 of 100: pooled 0.5, spread sqrt(0.25 * 0.02) = 0.0707, z = 2.828, p = erfc(2)
    assert two_proportion_p(60, 100, 40, 100) == pytest.approx(math.erfc(2.0), rel=1e-12)
    assert two_proportion_p(40, 100, 60, 100) == two_proportion_p(60, 100, 40, 100)  # two-sided
    assert two_proportion_p(30, 100, 60, 200) == pytest.approx(1.0)
    assert two_proportion_p(0, 10, 0, 20) == 1.0 and two_proportion_p(10, 10, 20, 20) == 1.0
    with pytest.raises(ValueError, match="at least 1 game"):
        two_proportion_p(3, 2, 1, 5)
