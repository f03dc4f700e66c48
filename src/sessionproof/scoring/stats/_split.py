"""Verdict variance shared between the parties of a session (agent, simulated user, judge).

The design (`run --vary PARTY`): in a run that varies party X, the trials of a scenario
differ in X's seed alone, the other parties' seeds fixed at one draw per scenario. The mean
over scenarios of the within-scenario variance of such a run estimates
T_X = E[Var(verdict | the other parties' seeds)], the numerator of X's total-effect
(total-order Sobol) index (Homma & Saltelli 1996; the estimator of Jansen 1999, Saltelli et
al. 2010, with the fixed draw per scenario as the base sample). Per scenario the unbiased
within variance of n binary verdicts with c successes is c·(n − c) / (n·(n − 1)).

X's share is T_X / Σ T over the parties measured. Without interactions between parties Σ T
equals the within-scenario variance V of a run that varies every seed at once; with them
Σ T exceeds V (an interaction is counted in each party it involves), so a run of every seed,
when given, is reported beside the shares with the excess Σ T − V.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...errors import StatisticsInputError
from ._noise import Counts
from ._paired import _picks


def within_variance(counts: Counts) -> tuple[float | None, int]:
    """The mean over scenarios with two or more judged trials of their unbiased
    within-scenario verdict variance, and how many scenarios it rests on."""
    rows = [(n, c) for n, c in counts.values() if n >= 2]
    for n, c in rows:
        if not 0 <= c <= n:
            raise StatisticsInputError(f"need 0 <= successes <= trials, got {c} of {n}")
    if not rows:
        return None, 0
    return sum(c * (n - c) / (n * (n - 1)) for n, c in rows) / len(rows), len(rows)


def _matrix(parts: Mapping[str, Counts], scenarios: list[str]) -> np.ndarray:
    """Scenario × party matrix of unbiased within variances."""
    out = np.empty((len(scenarios), len(parts)))
    for j, counts in enumerate(parts.values()):
        for i, sid in enumerate(scenarios):
            n, c = counts[sid]
            out[i, j] = c * (n - c) / (n * (n - 1))
    return out


def variance_shares(
    parts: Mapping[str, Counts],
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[dict[str, float], dict[str, tuple[float, float]] | None, list[str]]:
    """Each party's share of Σ T, over the scenarios every party's run judged twice or more;
    with 95% percentile bootstrap intervals (the scenario resampled, the same draw for every
    party: their runs are paired by scenario), and those scenarios.

    Raises `StatisticsInputError` with no scenario in common, or when no party's verdicts
    vary at all (Σ T = 0: no variance to share). Intervals are None when a tenth or more of
    the resamples have no variance."""
    if not parts:
        raise StatisticsInputError("no party to share the variance between")
    common = sorted(
        set.intersection(*({s for s, (n, _) in c.items() if n >= 2} for c in parts.values()))
    )
    if not common:
        raise StatisticsInputError(
            "the runs have no scenario judged twice or more in every one of them"
        )
    values = _matrix(parts, common)
    totals = values.mean(axis=0)
    if totals.sum() <= 0.0:
        raise StatisticsInputError(
            "no verdict varies in any of the runs: there is no variance to share"
        )
    shares = {name: float(t / totals.sum()) for name, t in zip(parts, totals, strict=True)}
    # Resample × party, in blocks of about a million draws (memory stays flat).
    drawn = np.concatenate(
        [values[picks].mean(axis=1) for picks in _picks(seed, len(common), n_resamples)]
    )
    sums = drawn.sum(axis=1)
    kept = drawn[sums > 0] / sums[sums > 0, None]
    intervals: dict[str, tuple[float, float]] | None = None
    if len(kept) > n_resamples * 0.9:
        tail = (1.0 - confidence) / 2.0
        low, high = np.quantile(kept, [tail, 1.0 - tail], axis=0)
        intervals = {
            name: (float(lo), float(hi)) for name, lo, hi in zip(parts, low, high, strict=True)
        }
    return shares, intervals, common
