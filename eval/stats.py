"""The statistics of an evaluation: Wilson intervals for win rates and McNemar's test for paired games.

Plain Python (``math`` only), so the numbers can be checked by hand and need no SciPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 and ``trials`` successes,
    which is where strong and weak agents live.

    Raises:
        ValueError: ``trials`` < 1 or ``successes`` outside 0..trials.
    """
    if trials < 1:
        raise ValueError(f"a win rate needs at least 1 game, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..{trials}, got {successes}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    low = 0.0 if successes == 0 else centre - half  # exact bounds where rounding would leave 1e-17 or 1 - 1e-16
    high = 1.0 if successes == trials else centre + half
    return low, high


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test on the discordant games of two agents.

    Attributes:
        only_a: Games won by the first agent only.
        only_b: Games won by the second agent only.
        statistic: The chi-square statistic with continuity correction, ``(|b - c| - 1)^2 / (b + c)``, taken
            as 0 when ``b == c`` (the correction never makes equal counts look different).
        p_value_chi2: Its p-value (chi-square, 1 degree of freedom).
        p_value_exact: The exact two-sided p-value: a binomial test of ``only_a`` out of ``b + c`` at 1/2.
    """

    only_a: int
    only_b: int
    statistic: float
    p_value_chi2: float
    p_value_exact: float


def mcnemar(only_a: int, only_b: int) -> McNemarResult:
    """McNemar's test of "both agents win equally often" from the games exactly one of them won.

    Games both won or both lost carry no information about the difference, so only the discordant counts
    enter. With no discordant game both p-values are 1.
    """
    if only_a < 0 or only_b < 0:
        raise ValueError(f"discordant counts must be non-negative, got {only_a} and {only_b}")
    discordant = only_a + only_b
    if discordant == 0:
        return McNemarResult(only_a, only_b, 0.0, 1.0, 1.0)
    statistic = max(abs(only_a - only_b) - 1, 0) ** 2 / discordant
    p_chi2 = math.erfc(math.sqrt(statistic / 2))  # survival function of chi-square with 1 degree of freedom
    return McNemarResult(only_a, only_b, statistic, p_chi2, binomial_two_sided_p(only_a, discordant))


def binomial_two_sided_p(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair coin flips: twice the smaller tail, at most 1.

    The tail is summed in log space, so it is accurate for any ``n`` without huge integers.
    """
    if not 0 <= k <= n:
        raise ValueError(f"successes must lie in 0..{n}, got {k}")
    k = min(k, n - k)
    log_half_n = n * math.log(0.5)
    log_terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n for i in range(k + 1)]
    peak = max(log_terms)
    tail = math.exp(peak) * math.fsum(math.exp(t - peak) for t in log_terms)
    return min(1.0, 2.0 * tail)


def two_proportion_p(won_a: int, games_a: int, won_b: int, games_b: int) -> float:
    """Two-sided p-value of "both win at one rate" for two win counts on separate games (a pooled z-test): for
    players whose games are not the same boards, where McNemar's pairing does not apply. 1 when no game or no
    variance tells them apart.

    Raises:
        ValueError: a count of games below 1, or wins outside 0..games.
    """
    for won, games in ((won_a, games_a), (won_b, games_b)):
        if games < 1 or not 0 <= won <= games:
            raise ValueError(f"wins must lie in 0..games with at least 1 game, got {won} of {games}")
    pooled = (won_a + won_b) / (games_a + games_b)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / games_a + 1 / games_b))
    if spread == 0:
        return 1.0
    return math.erfc(abs(won_a / games_a - won_b / games_b) / spread / math.sqrt(2))
