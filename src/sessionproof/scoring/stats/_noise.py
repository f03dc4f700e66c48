"""The noise floor of a design of scenarios × trials with binary verdicts: how often trials
of one scenario disagree, how much of the verdict variance lies between scenarios (the
intraclass correlation), the smallest difference such a design can detect, and the trials
per scenario a target difference needs.

Pure functions over per-scenario counts: scenario → (judged trials n_i, successes c_i).
Unjudged trials are never in the counts (the caller counts them apart). The formulas:

- flip rate: per scenario with n_i ≥ 2, the chance that two distinct trials drawn without
  replacement disagree, 2·c_i·(n_i − c_i) / (n_i·(n_i − 1)) (an unbiased estimate of
  2·p_i·(1 − p_i)), averaged over those scenarios.
- ICC: the one-way ANOVA estimator (Fleiss 1981, *Statistical Methods for Rates and
  Proportions*, ch. 13; for binary data Ridout, Demétrio & Firth 1999, *Biometrics* 55:137),
  ρ = (MSB − MSW) / (MSB + (n₀ − 1)·MSW), n₀ = (N − Σn_i²/N) / (S − 1); its interval a
  percentile bootstrap over scenarios (the scenario is the resampled unit).
- design effect DE = 1 + (k − 1)·ρ for k trials per scenario (Kish 1965, *Survey Sampling*;
  Donner & Klar 2000, *Design and Analysis of Cluster Randomization Trials*, §5.2), with ρ
  taken as 0 when its estimate is negative (the conservative choice).
- minimum detectable difference of two runs of the design (two-sided α, power 1 − β):
  MDE = (z_{1−α/2} + z_{1−β})·√(2·p·(1 − p)·DE / (S·k)), both runs' variance taken at this
  run's accuracy p.
- trials per scenario for a target δ: the least k with MDE(k) ≤ δ, k = ⌈(1 − ρ) / (1/A − ρ)⌉
  with A = (z_{1−α/2} + z_{1−β})²·2·p·(1 − p) / (S·δ²); unreachable when δ is at or below the
  floor that infinitely many trials leave, (z_{1−α/2} + z_{1−β})·√(2·p·(1 − p)·ρ / S).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ...errors import StatisticsInputError
from ._paired import _picks

Counts = Mapping[str, tuple[int, int]]
"""Scenario id → (judged trials, successes among them)."""

_NORMAL = NormalDist()


def _check(counts: Counts) -> None:
    for sid, (n, c) in counts.items():
        if n < 0 or not 0 <= c <= n:
            raise StatisticsInputError(
                f"scenario {sid!r}: need 0 <= successes <= trials, got {c} of {n}"
            )


def counts_of(table: Mapping[str, Sequence[bool | None]]) -> tuple[dict[str, tuple[int, int]], int]:
    """Per-scenario (judged trials, successes) of a trial table, and the trials left out
    because their verdict was None (not judged: never a pass nor a failure)."""
    found: dict[str, tuple[int, int]] = {}
    dropped = 0
    for sid, trials in table.items():
        judged = [t for t in trials if t is not None]
        dropped += len(trials) - len(judged)
        found[sid] = (len(judged), sum(1 for t in judged if t))
    return found, dropped


def flip_rate(counts: Counts) -> tuple[float | None, int]:
    """The mean over scenarios with at least two judged trials of the chance that two of its
    trials disagree, and how many scenarios it rests on (None, 0 when none has two)."""
    _check(counts)
    rates = [2.0 * c * (n - c) / (n * (n - 1)) for n, c in counts.values() if n >= 2]
    if not rates:
        return None, 0
    return math.fsum(rates) / len(rates), len(rates)


def _icc_arrays(n: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The ANOVA ICC of each row of (trials, successes) arrays (rows: bootstrap resamples);
    NaN where it is undefined (no variance at all, or no within-scenario degrees of freedom)."""
    groups = n.shape[-1]
    total = n.sum(axis=-1)
    wins = c.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = wins / total
        # Binary outcomes: the between sum of squares Σ n_i·(p_i − p)², the within Σ c_i − c_i²/n_i.
        safe_n = np.where(n > 0, n, 1)
        between = (c * c / safe_n).sum(axis=-1) - total * mean * mean
        within = (c - c * c / safe_n).sum(axis=-1)
        msb = between / (groups - 1)
        msw = within / (total - groups)
        n0 = (total - (n * n).sum(axis=-1) / total) / (groups - 1)
        denominator = msb + (n0 - 1.0) * msw
        icc = (msb - msw) / denominator
    bad = (total <= groups) | ~np.isfinite(icc) | (np.abs(denominator) < 1e-12)
    return np.where(bad, np.nan, icc)


def icc_anova(counts: Counts) -> float | None:
    """The one-way ANOVA intraclass correlation of binary verdicts within scenario (see the
    module docstring); None when it cannot be estimated: fewer than two scenarios with a
    judged trial, no scenario with two, or every judged trial with the same verdict."""
    _check(counts)
    rows = [(n, c) for n, c in counts.values() if n > 0]
    if len(rows) < 2:
        return None
    n = np.array([r[0] for r in rows], dtype=float)
    c = np.array([r[1] for r in rows], dtype=float)
    found = float(_icc_arrays(n, c))
    return None if math.isnan(found) else found


@dataclass(frozen=True)
class IccInterval:
    """A bootstrap interval of the ICC, and how many resamples could not give one."""

    low: float
    high: float
    resamples: int
    undefined: int
    """Resamples whose ICC was undefined (every drawn trial the same verdict), left out."""


def icc_bootstrap(
    counts: Counts, *, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> IccInterval | None:
    """Percentile bootstrap interval of the ANOVA ICC, scenarios resampled with replacement.
    None when the ICC itself is undefined, or when more than a tenth of the resamples give
    no ICC (the interval would describe a biased subset of them)."""
    if icc_anova(counts) is None:
        return None
    if not 0.0 < confidence < 1.0:
        raise StatisticsInputError(f"confidence must be in (0, 1), got {confidence}")
    rows = [(n, c) for n, c in counts.values() if n > 0]
    n = np.array([r[0] for r in rows], dtype=float)
    c = np.array([r[1] for r in rows], dtype=float)
    # In blocks of about a million draws: memory stays flat on suites of many scenarios.
    found = np.concatenate(
        [_icc_arrays(n[picks], c[picks]) for picks in _picks(seed, len(rows), n_resamples)]
    )
    kept = found[~np.isnan(found)]
    undefined = n_resamples - kept.size
    if undefined > n_resamples // 10:
        return None
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(kept, [tail, 1.0 - tail])
    return IccInterval(float(low), float(high), n_resamples, undefined)


def design_effect(trials: float, icc: float) -> float:
    """Kish's design effect 1 + (k − 1)·ρ of k trials per scenario (ρ below 0 taken as 0)."""
    if trials < 1:
        raise StatisticsInputError(f"trials per scenario must be at least 1, got {trials}")
    return 1.0 + (trials - 1.0) * max(0.0, icc)


def _z_sum(alpha: float, power: float) -> float:
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise StatisticsInputError(f"alpha and power must be in (0, 1), got {alpha}, {power}")
    return float(_NORMAL.inv_cdf(1.0 - alpha / 2.0) + _NORMAL.inv_cdf(power))


def _check_design(scenarios: int, rate: float) -> None:
    if scenarios < 1:
        raise StatisticsInputError(f"need at least one scenario, got {scenarios}")
    if not 0.0 <= rate <= 1.0:
        raise StatisticsInputError(f"rate must be in [0, 1], got {rate}")


def min_detectable_difference(
    scenarios: int,
    trials: float,
    rate: float,
    icc: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """The smallest difference in success rate between two runs of `scenarios` × `trials`
    that a two-sided test at `alpha` detects with `power`, verdicts clustered by scenario
    with intraclass correlation `icc` (module docstring)."""
    _check_design(scenarios, rate)
    z = _z_sum(alpha, power)
    variance = 2.0 * rate * (1.0 - rate) * design_effect(trials, icc) / (scenarios * trials)
    return z * math.sqrt(variance)


def difference_floor(
    scenarios: int, rate: float, icc: float, *, alpha: float = 0.05, power: float = 0.8
) -> float:
    """The detectable difference that infinitely many trials per scenario approach: the
    part of the variance between scenarios, which more trials do not remove."""
    _check_design(scenarios, rate)
    return _z_sum(alpha, power) * math.sqrt(2.0 * rate * (1.0 - rate) * max(0.0, icc) / scenarios)


def trials_needed(
    target: float,
    scenarios: int,
    rate: float,
    icc: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int | None:
    """The fewest trials per scenario whose minimum detectable difference is at most
    `target`; None when no number of trials reaches it with this many scenarios (the
    target is at or below `difference_floor`)."""
    if not 0.0 < target < 1.0:
        raise StatisticsInputError(f"the target difference must be in (0, 1), got {target}")
    _check_design(scenarios, rate)
    rho = max(0.0, icc)
    spread = 2.0 * rate * (1.0 - rate)
    if spread == 0.0:
        return 1
    a = _z_sum(alpha, power) ** 2 * spread / (scenarios * target * target)
    if 1.0 / a <= rho:
        return None
    k = max(1, math.ceil((1.0 - rho) / (1.0 / a - rho) - 1e-9))
    # Rounding: the closed form's k meets the target; step down while one fewer still does.
    while k > 1:
        fewer = min_detectable_difference(scenarios, k - 1, rate, icc, alpha=alpha, power=power)
        if fewer > target:
            break
        k -= 1
    return k
