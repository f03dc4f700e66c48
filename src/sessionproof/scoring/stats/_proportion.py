"""A proportion's interval, and how many scenarios a comparison needs."""

from __future__ import annotations

import math
from statistics import NormalDist

from ...errors import StatisticsInputError

# The standard library's normal distribution: every run summary needs a quantile, and
# scipy.stats would add 1.1-1.4 s to each command's start-up for it.
_NORMAL = NormalDist()


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise StatisticsInputError(f"confidence must be in (0, 1), got {confidence}")
    return float(_NORMAL.inv_cdf(1.0 - (1.0 - confidence) / 2.0))


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for `successes` out of `n`.

    Unlike the normal approximation it stays inside [0, 1] and is not degenerate at 0 or n
    successes. With `n == 0` there is no information, and the interval is (0, 1).
    Raises `StatisticsInputError` unless 0 <= successes <= n.
    """
    if n < 0 or not 0 <= successes <= n:
        raise StatisticsInputError(f"need 0 <= successes <= n, got {successes} of {n}")
    z = _z(confidence)
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / (1.0 + z2n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def scenarios_needed(
    rate_a: float,
    rate_b: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    discordant: float | None = None,
) -> int:
    """Scenarios needed to tell success rates `rate_a` and `rate_b` apart (two-sided test).

    - `discordant=None`: two independent samples, one per arm (normal approximation on
      Cohen's arcsine effect size h = 2·asin√b − 2·asin√a, both tails counted); the result
      is the size of *each* arm.
    - `discordant=ψ`: both runs on the same scenarios, compared by McNemar's test; ψ is the
      expected share of scenarios where the two runs disagree (ψ >= |b − a|). Connor's
      (1987) formula n = (z_{α/2}·√ψ + z_β·√(ψ − δ²))² / δ² with δ = b − a.

    Raises `StatisticsInputError` for rates outside [0, 1], equal rates, or an impossible ψ.
    """
    for name, rate in (("rate_a", rate_a), ("rate_b", rate_b)):
        if not 0.0 <= rate <= 1.0:
            raise StatisticsInputError(f"{name} must be in [0, 1], got {rate}")
    if rate_a == rate_b:
        raise StatisticsInputError("equal rates: no sample size detects a zero difference")
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise StatisticsInputError(f"alpha and power must be in (0, 1), got {alpha}, {power}")
    z_alpha = float(_NORMAL.inv_cdf(1.0 - alpha / 2.0))
    z_beta = float(_NORMAL.inv_cdf(power))
    delta = rate_b - rate_a
    if discordant is not None:
        # Shares computed from counts (2/3 - 1/3 against 1/3) differ from each other in the
        # last bit; a ψ within rounding of |δ| is |δ|, not an impossible input.
        if math.isclose(discordant, abs(delta), rel_tol=1e-9, abs_tol=1e-12):
            discordant = abs(delta)
        if not abs(delta) <= discordant <= 1.0:
            raise StatisticsInputError(
                f"discordant share must be in [|b - a|, 1] = [{abs(delta)}, 1], got {discordant}"
            )
        root = z_alpha * math.sqrt(discordant) + z_beta * math.sqrt(discordant - delta**2)
        return math.ceil(root**2 / delta**2)
    h = abs(2.0 * math.asin(math.sqrt(rate_b)) - 2.0 * math.asin(math.sqrt(rate_a)))
    # Each arm's arcsine estimate has variance 1/n, so the difference has 2/n.
    n = 2.0 * ((z_alpha + z_beta) / h) ** 2
    # The closed form ignores the far tail; step down while the exact two-tailed power holds.
    while n > 1 and _two_tailed_power(h, math.ceil(n) - 1, z_alpha) >= power:
        n = math.ceil(n) - 1
    return math.ceil(n)


def _two_tailed_power(h: float, n: int, z_alpha: float) -> float:
    shift = h * math.sqrt(n / 2.0)
    return float(_NORMAL.cdf(shift - z_alpha) + _NORMAL.cdf(-z_alpha - shift))
