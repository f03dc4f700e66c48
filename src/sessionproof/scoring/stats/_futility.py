"""Stopping for futility: end a sequential design early, as undecided, once a verdict by its
last look has become unlikely.

The rule is conditional power under the current trend (Lan, Simon & Halperin, "Stochastically
curtailed tests in long-term clinical trials", Communications in Statistics C: Sequential
Analysis 1(3), 1982):
at information fraction `t`, with the estimate `θ̂` and its standard error `se`, the last
look's estimate is taken as normal with mean `θ̂` and standard deviation `se · √(t (1 − t))`
(the information still to come, if the effect is what it seems now), and its interval as
`± c_K · se · √t` (the last look's boundary `c_K` and standard error). The chance of a
verdict there is the chance that this interval ends up wholly above `−margin` (`not_worse`
or `better`) plus the chance that it ends up wholly below it (`worse`).

The rule is **non-binding**: it only ever ends a design as `inconclusive`, which is never a
wrong verdict, so it cannot raise any false-verdict rate (the boundaries are computed as if it
did not exist). What it costs is power: a gate that would have reached a verdict late may stop
before. Measured in benchmarks/gate.py (`--futility`; docs/results.md).

Pure functions; nothing here knows sessions or runs.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from ...errors import StatisticsInputError
from ._sequential import Look

FUTILITY = 0.02
"""The chance of a verdict by the last look under which the gate stops (its default)."""
FROM = 0.5
"""The least information fraction at which the rule may stop a design (earlier, the trend
is too noisy to act on)."""

_NORM = NormalDist()


def verdict_chance(
    estimate: float, se: float, fraction: float, last_critical: float, margin: float
) -> float:
    """The chance of any verdict at the last look (information fraction 1) if the paired
    difference is `estimate`, seen with standard error `se` at information `fraction` in
    (0, 1), with the last look's boundary `last_critical` (see the module)."""
    if not 0.0 < fraction < 1.0:
        raise StatisticsInputError(
            f"an interim look's information fraction is in (0, 1), not {fraction}"
        )
    if not se > 0.0:
        raise StatisticsInputError(f"a look's standard error is positive, not {se}")
    half = last_critical * se * math.sqrt(fraction)
    spread = se * math.sqrt(fraction * (1.0 - fraction))
    above = _NORM.cdf((estimate + margin - half) / spread)
    below = _NORM.cdf((-margin - half - estimate) / spread)
    return min(1.0, above + below)


def futile(
    at: Look, fraction: float, last_critical: float, margin: float, threshold: float
) -> bool:
    """True when the design should stop as undecided: from information fraction `FROM` on
    (and before its last look), the chance of a verdict by the last look is under
    `threshold` (0 turns the rule off)."""
    if threshold <= 0.0 or at.pairs == 0 or not FROM <= fraction < 1.0:
        return False
    return verdict_chance(at.estimate, at.se, fraction, last_critical, margin) < threshold


def check_futility(threshold: float) -> None:
    """Raise `StatisticsInputError` unless 0 <= threshold < 1."""
    if not (math.isfinite(threshold) and 0.0 <= threshold < 1.0):
        raise StatisticsInputError(
            f"the futility threshold is a chance in [0, 1) (0: off), not {threshold:g}"
        )
