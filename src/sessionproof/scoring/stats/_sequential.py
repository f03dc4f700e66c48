"""A group-sequential design on a paired difference: repeated confidence intervals, and the
gate's verdict from them.

The gate compares a candidate with a baseline on pairs (same scenario, trial, seed and arm):
each judged pair gives a difference `d = candidate − baseline` in {−1, 0, 1}. The quantity
decided on is the mean paired difference `δ` (the candidate's success rate minus the
baseline's, averaged over the suite's scenarios). Pairs arrive in rounds, one more trial of
every scenario per round, so the rounds are independent and identically distributed, and
the gate looks after every round, stopping as soon as a verdict is reached.

Method: repeated confidence intervals (Jennison & Turnbull, "Interim analyses: the repeated
confidence interval approach", JRSS B 51(3), 1989) with the two-sided boundaries of the
Lan-DeMets alpha-spending function of O'Brien-Fleming type (Lan & DeMets, "Discrete
sequential boundaries for clinical trials", Biometrika 70(3), 1983), computed by the
recursive numerical integration of Armitage, McPherson & Rowe (1969). Planned for K rounds,
the intervals `estimate ± c_r · se_r` hold at all K looks at once with probability about
`1 − alpha`, whatever rule decided when to stop; stopping before round K (a spent budget)
only leaves alpha unspent. The guarantee rests on the normal approximation of the mean of
the pairs (a central limit over scenarios × trials) and is checked by simulation
(tests/scoring/test_sequential.py, benchmarks/gate.py).

Two more spending choices: `pocock` (Lan-DeMets Pocock type) and the Hwang-Shih-DeCani
family (Hwang, Shih & DeCani, Statistics in Medicine 9(12), 1990), by name at γ = −1 or, to
`boundaries`, as a number γ. `look_by_scenario` is the look of a design that looks within a
round, after each block of the scenarios: it weighs every seen scenario alike.

Here every scenario gets the same number of trials. `_thinning` is the design that runs a
scenario already stable in both arms less often and weighs what ran so that the mean still
estimates the same quantity (the gate's default when it runs a side).

Pure functions over arrays of differences; nothing here knows sessions or runs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from ...errors import StatisticsInputError

Verdict = Literal["better", "not_worse", "worse", "inconclusive"]
"""The gate's decisions: candidate better than the baseline; not worse by more than the
margin; worse by more than the margin; or not decided."""

VERDICTS: tuple[Verdict, ...] = ("better", "not_worse", "worse", "inconclusive")

MAX_LOOKS = 100
"""Most rounds a design may plan (the boundaries' integration grows with them)."""

_STEP = 0.01
"""Grid step of the integration, in standard deviations of one round's increment."""
_Z80 = NormalDist().inv_cdf(0.8)
"""The standard normal quantile of 0.8 (the power an MDE is quoted at)."""


class Look(BaseModel):
    """The repeated confidence interval at one look: the mean paired difference."""

    model_config = ConfigDict(extra="forbid")

    look: int
    """Which look (1-based round) of the design."""
    pairs: int
    """Judged pairs seen so far."""
    estimate: float
    """Mean paired difference (candidate − baseline), in [−1, 1]."""
    low: float
    high: float
    """The interval: every look's holds at once with probability about 1 − alpha."""
    se: float
    """Standard error of the estimate (with one pseudo-pair of each sign added)."""
    critical: float
    """The look's boundary `c_r` (the interval is `estimate ± critical · se`)."""


def check_levels(alpha: float, margin: float) -> None:
    """Raise `StatisticsInputError` unless 0 < alpha < 1 and 0 <= margin < 1."""
    if not (math.isfinite(alpha) and 0.0 < alpha < 1.0):
        raise StatisticsInputError(f"alpha must be in (0, 1), got {alpha:g}")
    if not (math.isfinite(margin) and 0.0 <= margin < 1.0):
        raise StatisticsInputError(f"margin must be in [0, 1), got {margin:g}")


def obrien_fleming_spent(fraction: float, alpha: float) -> float:
    """Two-sided alpha spent by information `fraction` (0..1): each side spends its alpha/2
    under the Lan-DeMets O'Brien-Fleming-type function `2 − 2 Φ(z_{1−α/4} / √t)`."""
    if fraction <= 0.0:
        return 0.0
    norm = NormalDist()
    z = norm.inv_cdf(1.0 - alpha / 4.0)
    side = 2.0 - 2.0 * norm.cdf(z / math.sqrt(min(fraction, 1.0)))
    return min(alpha, 2.0 * side)


def pocock_spent(fraction: float, alpha: float) -> float:
    """Two-sided alpha spent by information `fraction` under the Lan-DeMets Pocock-type
    function `alpha · ln(1 + (e − 1) t)` (spends early: stops sooner on large effects)."""
    if fraction <= 0.0:
        return 0.0
    return min(alpha, alpha * math.log(1.0 + (math.e - 1.0) * min(fraction, 1.0)))


def hwang_shih_decani_spent(fraction: float, alpha: float, gamma: float) -> float:
    """Two-sided alpha spent by information `fraction` under the Hwang-Shih-DeCani family
    `alpha · (1 − e^{−γt}) / (1 − e^{−γ})` (Hwang, Shih & DeCani, Statistics in Medicine
    9(12), 1990): γ = −4 is close to O'Brien-Fleming, γ = 1 to Pocock, γ = 0 spends
    linearly."""
    if fraction <= 0.0:
        return 0.0
    t = min(fraction, 1.0)
    if gamma == 0.0:
        return alpha * t
    return min(alpha, alpha * math.expm1(-gamma * t) / math.expm1(-gamma))


HSD_GAMMA = -1.0
"""The γ of the named `hwang-shih-decani` spending: of γ = −4 .. 1, the one with the fewest
sessions across the power curve of benchmarks/gate.py at false verdicts under alpha."""

Spending = Literal["hwang-shih-decani", "obrien-fleming", "pocock"]
"""The alpha-spending functions a design may use by name (`hwang-shih-decani` is the family
at `HSD_GAMMA`); where a number is accepted, it is the family's γ."""


def _hsd_default(fraction: float, alpha: float) -> float:
    return hwang_shih_decani_spent(fraction, alpha, HSD_GAMMA)


_SPENDERS = {
    "hwang-shih-decani": _hsd_default,
    "obrien-fleming": obrien_fleming_spent,
    "pocock": pocock_spent,
}


def _spender(spending: Spending | float) -> Callable[[float, float], float]:
    """The spending function `spending` names (a float: Hwang-Shih-DeCani with that γ)."""
    if isinstance(spending, str):
        if spending not in _SPENDERS:
            raise StatisticsInputError(
                f"spending must be {', '.join(_SPENDERS)} or a number, not {spending!r}"
            )
        return _SPENDERS[spending]
    if not math.isfinite(spending):
        raise StatisticsInputError(f"the spending family's gamma must be finite, not {spending}")
    return functools.partial(_hsd, gamma=float(spending))


def _hsd(fraction: float, alpha: float, *, gamma: float) -> float:
    return hwang_shih_decani_spent(fraction, alpha, gamma)


@functools.lru_cache(maxsize=64)
def boundaries(
    looks: int, alpha: float, spending: Spending | float = "obrien-fleming"
) -> tuple[float, ...]:
    """The two-sided critical values `c_1 .. c_K` of `looks` equally spaced looks: under no
    difference, the chance that |Z_r| first reaches `c_r` at look r is the alpha spent
    between looks r − 1 and r. One look gives the fixed-design `z_{1−α/2}`."""
    if not 1 <= looks <= MAX_LOOKS:
        raise StatisticsInputError(f"a design has 1 to {MAX_LOOKS} looks, got {looks}")
    if not 0.0 < alpha < 1.0:
        raise StatisticsInputError(f"alpha must be in (0, 1), got {alpha:g}")
    # The sum S_r of r independent N(0, 1) increments, on a grid; the density of the paths
    # that have not crossed yet is carried from look to look.
    spent = _spender(spending)
    reach = 10.0 * math.sqrt(looks) + 10.0
    x = np.arange(-reach, reach + _STEP / 2, _STEP)
    kernel_x = np.arange(-9.0, 9.0 + _STEP / 2, _STEP)
    kernel = np.exp(-(kernel_x**2) / 2.0) / math.sqrt(2.0 * math.pi) * _STEP
    density = np.exp(-(x**2) / 2.0) / math.sqrt(2.0 * math.pi)
    out: list[float] = []
    for r in range(1, looks + 1):
        if r > 1:
            density = np.convolve(density, kernel, mode="same")
        spend = spent(r / looks, alpha) - spent((r - 1) / looks, alpha)
        bound = _tail_bound(x, density, spend)
        out.append(bound / math.sqrt(r))
        density = np.where(np.abs(x) < bound, density, 0.0)
    return tuple(out)


def _tail_bound(x: np.ndarray, density: np.ndarray, mass: float, step: float = _STEP) -> float:
    """The b with `∫_{|x| ≥ b} density = mass` on the grid `x` of spacing `step` (linear
    between grid points)."""
    order = np.argsort(-np.abs(x), kind="stable")
    tail = np.cumsum(density[order]) * step
    edges = np.abs(x)[order]
    i = int(np.searchsorted(tail, mass))
    if i >= len(tail):
        return 0.0
    if i == 0:
        return float(edges[0])
    # Between the two grid points whose tails straddle `mass`.
    lo, hi = tail[i - 1], tail[i]
    share = 0.0 if hi == lo else (mass - lo) / (hi - lo)
    return float(edges[i - 1] + share * (edges[i] - edges[i - 1]))


def look(
    differences: Sequence[float] | np.ndarray,
    at: int,
    looks: int,
    alpha: float,
    spending: Spending | float = "obrien-fleming",
) -> Look:
    """The repeated confidence interval at look `at` of a design of `looks` (its boundaries
    from `spending`), over the `differences` of every judged pair so far (candidate −
    baseline, each in [−1, 1]).

    The standard error is that of a mean of independent pairs, from their spread with one
    pseudo-pair of +1 and one of −1 added, so a run of identical pairs still has an honest,
    non-zero width. No pair gives the whole interval [−1, 1]."""
    if not 1 <= at <= looks:
        raise StatisticsInputError(f"look {at} is not one of 1..{looks}")
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1:
        raise StatisticsInputError("differences must be a flat list")
    if d.size and (not np.isfinite(d).all() or d.min() < -1.0 or d.max() > 1.0):
        raise StatisticsInputError("paired differences must be finite and in [-1, 1]")
    critical = boundaries(looks, alpha, spending)[at - 1]
    if d.size == 0:
        return Look(look=at, pairs=0, estimate=0.0, low=-1.0, high=1.0, se=1.0, critical=critical)
    padded = np.concatenate((d, [1.0, -1.0]))
    se = float(padded.std(ddof=1)) / math.sqrt(d.size)
    estimate = float(d.mean())
    return Look(
        look=at,
        pairs=int(d.size),
        estimate=estimate,
        low=max(-1.0, estimate - critical * se),
        high=min(1.0, estimate + critical * se),
        se=se,
        critical=critical,
    )


def look_by_scenario(
    per_scenario: Sequence[Sequence[float]],
    at: int,
    looks: int,
    alpha: float,
    spending: Spending | float = "obrien-fleming",
) -> Look:
    """`look` for a design that looks within a round, after each block of the scenarios:
    `per_scenario` holds each scenario's differences so far (a scenario of the current
    round's later blocks has one fewer). The estimate weighs every seen scenario alike (the
    mean of their means), so the scenarios of a round's first blocks do not count more than
    the rest; its standard error is the pairs' spread (one +1 and one −1 pseudo-pair added)
    times the root of the sum of the squared pair weights. With equal counts it is `look`."""
    if not 1 <= at <= looks:
        raise StatisticsInputError(f"look {at} is not one of 1..{looks}")
    rows = [np.asarray(row, dtype=float) for row in per_scenario]
    seen = [row for row in rows if row.size]
    flat = np.concatenate(seen) if seen else np.zeros(0)
    if flat.size and (not np.isfinite(flat).all() or flat.min() < -1.0 or flat.max() > 1.0):
        raise StatisticsInputError("paired differences must be finite and in [-1, 1]")
    critical = boundaries(looks, alpha, spending)[at - 1]
    if flat.size == 0:
        return Look(look=at, pairs=0, estimate=0.0, low=-1.0, high=1.0, se=1.0, critical=critical)
    estimate = float(np.mean([row.mean() for row in seen]))
    weight2 = sum(1.0 / row.size for row in seen) / len(seen) ** 2
    spread = float(np.concatenate((flat, [1.0, -1.0])).std(ddof=1))
    se = spread * math.sqrt(weight2)
    return Look(
        look=at,
        pairs=int(flat.size),
        estimate=estimate,
        low=max(-1.0, estimate - critical * se),
        high=min(1.0, estimate + critical * se),
        se=se,
        critical=critical,
    )


def decide(at: Look, margin: float) -> Verdict:
    """The verdict an interval supports: `better` when it lies above 0, `not_worse` above
    −margin, `worse` below −margin, else `inconclusive`. Each wrong verdict needs the
    interval to miss the true difference on one side, so each has probability at most
    about alpha/2, over all looks together."""
    if at.pairs == 0:
        return "inconclusive"
    if at.low > 0.0:
        return "better"
    if at.low > -margin:
        return "not_worse"
    if at.high < -margin:
        return "worse"
    return "inconclusive"


def minimum_detectable_effect(at: Look) -> float | None:
    """The distance from a decision threshold (0 or −margin) that the design as run would
    have decided at this look with about 80% power: `(c_r + z_0.8) · se`. None before any
    pair."""
    if at.pairs == 0:
        return None
    return min(2.0, (at.critical + _Z80) * at.se)
