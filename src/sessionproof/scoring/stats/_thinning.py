"""Thinned rounds: later rounds run a scenario whose pairs keep agreeing only with some
chance, and the design stays unbiased and valid by weighing what it ran.

The plain design (`_sequential`) runs every scenario once per round. In a suite where many
scenarios nearly always pass (or fail) in both arms, most of those pairs are ties that tell
little. A thinned design runs scenario `i` in round `r` with a chance `π_ir` fixed before the
round from the earlier rounds only (`run_chances`): 1 for a scenario whose pairs disagree
often, down to `FLOOR` for one whose pairs have all agreed. A scenario never stops for good,
since one that stopped would drop its share of the suite's mean from every later round.

Why the error rates hold:

- **Unbiased rounds.** Round `r`'s estimate is the Horvitz-Thompson mean
  `T_r = (1/n) Σ_i I_ir d_ir / π_ir` over the `n` scenarios (`I_ir` = 1 when scenario i ran).
  The coin `I_ir` is drawn with the chance fixed before the round, and the pair `d_ir` is a
  fresh trial, so `E[T_r | earlier rounds] = δ`, the mean over scenarios of each one's paired
  difference: every scenario weighs `1/n`, whatever the trials it ran (Horvitz & Thompson,
  "A generalization of sampling without replacement from a finite universe", JASA 47(260),
  1952).
- **Information-based monitoring.** Rounds are combined with weights `ρ_r`, each round's
  information relative to a full round as planned before it ran (`round_information`), so
  `Σ ρ_r (T_r − δ)` is a martingale whose variance grows by about `ρ_r` per round: a
  Brownian motion on the information scale `t_r = Σ ρ_s / K` (K planned rounds). The
  Lan-DeMets spending is evaluated at those fractions and the boundaries computed for them
  (`InformationBoundary`; Lan & DeMets, Biometrika 70(3), 1983; information-based monitoring
  as in Mehta & Tsiatis, "Flexible sample size considerations using information-based
  interim monitoring", Drug Information Journal 35(4), 2001). The last round spends what is
  left of alpha.
- **An honest variance.** Each look's variance is estimated from the rounds' own
  Horvitz-Thompson squares `Σ_i I d² / π²` (unbiased for `Σ E[d²]/π`, which bounds the
  round's variance from above), less the plug-in `δ̂²` term, plus one +1 and one −1
  pseudo-pair as in the plain design.

The rule that thins (`run_chances`): the first `WARMUP` rounds run every scenario. Later, a
scenario whose D of N judged pairs disagreed has its chance of disagreement taken as
`q = (D + ½) / (N + 1)` (the Jeffreys prior's posterior mean, so pairs that all agreed are
never taken as certain: after N agreeing pairs, 1 / (2N + 2)), and its chance to run is
`√(q / FULL)` (Neyman allocation: the share of a stratum sampled grows with its standard
deviation), between `FLOOR` and 1. With `FULL` = ½ and `FLOOR` = ¼: a scenario runs every
round while about half its pairs disagree, with chance about 0.7 when a quarter do; after 2
pairs that all agreed with chance 0.58, after 4 with 0.45, after 8 with 0.33, and from 20 on
with the floor ¼.
Measured in benchmarks/gate.py (`--thin`; docs/results.md).

Pure functions over arrays; nothing here knows sessions or runs.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import StatisticsInputError
from ._sequential import Look, Spending, _spender, _tail_bound

WARMUP = 2
"""Rounds that run every scenario before any is thinned."""
FULL = 0.5
"""The chance of disagreement (the most a pair's d² can average) that runs every round."""
FLOOR = 0.25
"""The least chance a scenario runs in a round, however stable it has been."""
PRIOR = 0.5
"""Pseudo-counts of the disagreement rate `(D + PRIOR) / (N + 2 PRIOR)` (0.5: Jeffreys)."""

_H = 0.005
"""Grid step of the boundary integration, on the information (Brownian) scale."""
_REACH = 9.0


def run_chances(
    discords: np.ndarray, trials: np.ndarray, rounds_done: int, floor: float = FLOOR
) -> np.ndarray:
    """Each scenario's chance of running in the next round, from the pairs so far:
    `discords[i]` of its `trials[i]` judged pairs disagreed (d ≠ 0). All 1 during the first
    `WARMUP` rounds; then `clip(√(((D + ½) / (N + 1)) / FULL), floor, 1)`."""
    d = np.asarray(discords, dtype=float)
    n = np.asarray(trials, dtype=float)
    if d.shape != n.shape or (d < 0).any() or (d > n).any():
        raise StatisticsInputError("discords must be counts of at most each scenario's trials")
    if not 0.0 < floor <= 1.0:
        raise StatisticsInputError(f"the floor must be in (0, 1], got {floor:g}")
    if rounds_done < WARMUP:
        return np.ones_like(d)
    q = _rate(d, n)
    return np.clip(np.sqrt(q / FULL), floor, 1.0)


def round_information(discords: np.ndarray, trials: np.ndarray, chances: np.ndarray) -> float:
    """The next round's information relative to a round of every scenario, as planned from
    the pairs so far: `Σ q_i / Σ (q_i / π_i)`, with `q_i = (D + ½) / (N + 1)`."""
    q = _rate(np.asarray(discords, dtype=float), np.asarray(trials, dtype=float))
    return float(q.sum() / (q / np.asarray(chances, dtype=float)).sum())


def _rate(discords: np.ndarray, trials: np.ndarray) -> np.ndarray:
    """Each scenario's chance of disagreement, from its counts and the prior pseudo-counts
    (`(D + PRIOR) / (N + 2 PRIOR)`)."""
    return (discords + PRIOR) / (trials + 2.0 * PRIOR)


class InformationBoundary:
    """The two-sided critical values of a design whose looks fall at information fractions
    known only as it runs: `next(t)` gives the look at fraction `t` (increasing, in (0, 1])
    its boundary, given the earlier looks, such that the chance under no difference of first
    crossing there is the alpha spent between the previous fraction and `t`. `final=True`
    spends all that is left. With fractions r/K it gives `boundaries(K, ...)`."""

    def __init__(self, alpha: float, spending: Spending | float = "obrien-fleming") -> None:
        """A design at level `alpha` (two-sided) with the spending function `spending`."""
        if not 0.0 < alpha < 1.0:
            raise StatisticsInputError(f"alpha must be in (0, 1), got {alpha:g}")
        self._alpha = alpha
        self._spent = _spender(spending)
        reach = math.ceil(_REACH / _H)
        self._x = np.arange(-reach, reach + 1) * _H
        self._density: np.ndarray | None = None
        self._t = 0.0
        self._used = 0.0

    def next(self, fraction: float, final: bool = False) -> float:
        """The critical value (on the z scale) of the look at information `fraction`."""
        t = min(float(fraction), 1.0)
        if not t > self._t:
            raise StatisticsInputError(f"information fractions must increase, got {fraction}")
        step = t - self._t
        x = self._x
        if self._density is None:
            self._density = np.exp(-(x**2) / (2 * step)) / math.sqrt(2 * math.pi * step)
        else:
            half = math.ceil(min(_REACH, 9.0 * math.sqrt(step)) / _H)
            kx = np.arange(-half, half + 1) * _H
            kernel = np.exp(-(kx**2) / (2 * step))
            kernel /= kernel.sum()
            self._density = np.convolve(self._density, kernel, mode="same")
        target = self._alpha if final or t >= 1.0 else self._spent(t, self._alpha)
        spend = max(target - self._used, 0.0)
        bound = _tail_bound(x, self._density, spend, _H)
        self._used = max(self._used, target)
        self._density = np.where(np.abs(x) < bound, self._density, 0.0)
        self._t = t
        return bound / math.sqrt(t)


CAP = 2
"""Most rounds a thinned design runs, as a multiple of the rounds it was planned for: it
stops once its information reaches that of the planned rounds run in full."""


class ThinnedDesign:
    """A thinned group-sequential design over `scenarios` scenarios, planned for `rounds`
    full rounds' information: `chances()` before each round, `add(...)` after it, which
    gives the round's `Look` (its interval holds with the others at level 1 − alpha).
    `final` is True once no more round may run: the information planned is reached or
    `CAP × rounds` rounds ran."""

    def __init__(
        self,
        scenarios: int,
        rounds: int,
        alpha: float,
        spending: Spending | float = "obrien-fleming",
        cap: float = CAP,
    ) -> None:
        """A design of `scenarios` scenarios planned for `rounds` rounds' information."""
        if scenarios < 1 or rounds < 1:
            raise StatisticsInputError("a thinned design needs a scenario and a round")
        self.n = scenarios
        self.planned = rounds
        self.most = max(rounds, round(rounds * cap))
        self.discords = np.zeros(scenarios)
        self.trials = np.zeros(scenarios)
        self.fraction = 0.0
        self.rounds = 0
        self.pairs = 0
        self.final = False
        self._boundary = InformationBoundary(alpha, spending)
        self._chances = np.ones(scenarios)
        self._weight = self._weighted = self._weight2 = self._squares = 0.0

    def chances(self) -> np.ndarray:
        """Each scenario's chance of running in the next round (see `run_chances`)."""
        if self.final:
            raise StatisticsInputError("the design has run its last round")
        self._chances = run_chances(self.discords, self.trials, self.rounds)
        return self._chances

    def add(self, ran: np.ndarray, d: np.ndarray) -> Look:
        """Add the round just run: `ran[i]` when scenario i was drawn to run (with the chance
        `chances()` gave), `d[i]` its paired difference, NaN where its pair was not judged
        (that pair is left out: the round is scaled by the share of its drawn pairs judged)."""
        ran = np.asarray(ran, dtype=bool)
        d = np.asarray(d, dtype=float)
        judged = ran & np.isfinite(d)
        if judged.any() and (np.abs(d[judged]) > 1.0).any():
            raise StatisticsInputError("paired differences must be in [-1, 1]")
        pi = self._chances
        rho = round_information(self.discords, self.trials, pi)
        self.discords += judged & (np.nan_to_num(d) != 0.0)
        self.trials += judged
        self.rounds += 1
        self.pairs += int(judged.sum())
        self.fraction = min(1.0, self.fraction + rho / self.planned)
        self.final = self.fraction >= 1.0 - 1e-9 or self.rounds >= self.most
        critical = self._boundary.next(self.fraction, final=self.final)
        if judged.any():
            share = float(judged.sum()) / float(ran.sum())
            ht = np.where(judged, np.nan_to_num(d) / pi, 0.0) / share
            self._weight += rho
            self._weighted += rho * float(ht.sum()) / self.n
            self._weight2 += rho * rho
            self._squares += rho * rho * float((ht * ht).sum()) / self.n**2
        return self._look(critical)

    def _look(self, critical: float) -> Look:
        if self.pairs == 0:
            at = self.rounds
            return Look(
                look=at, pairs=0, estimate=0.0, low=-1.0, high=1.0, se=1.0, critical=critical
            )
        estimate = self._weighted / self._weight
        pad = 2.0 * self._weight2 / (self.rounds * self.n**2)
        var = self._squares + pad - estimate * estimate * self._weight2 / self.n
        se = math.sqrt(max(var, pad)) / self._weight
        return Look(
            look=self.rounds,
            pairs=self.pairs,
            estimate=estimate,
            low=max(-1.0, estimate - critical * se),
            high=min(1.0, estimate + critical * se),
            se=se,
            critical=critical,
        )
