"""The noise floor's pure statistics (`scoring.stats._noise`): against values computed by hand,
and against simulations whose ICC, flip rate and power are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sessionproof.errors import StatisticsInputError
from sessionproof.scoring.stats._noise import (
    counts_of,
    design_effect,
    difference_floor,
    flip_rate,
    icc_anova,
    icc_bootstrap,
    min_detectable_difference,
    trials_needed,
)

Z = 1.959963984540054 + 0.8416212335729143  # z_0.975 + z_0.8

# Three scenarios of four trials: always, never, half.
THREE = {"a": (4, 4), "b": (4, 0), "c": (4, 2)}


def test_flip_rate_by_hand() -> None:
    # Only "c" disagrees: 2·2·2 / (4·3) = 2/3, over 3 scenarios.
    assert flip_rate(THREE) == (pytest.approx(2 / 9), 3)
    # A scenario with one trial cannot flip and is left out; none with two: not estimable.
    assert flip_rate({**THREE, "d": (1, 1)}) == (pytest.approx(2 / 9), 3)
    assert flip_rate({"a": (1, 0), "b": (1, 1)}) == (None, 0)


def test_icc_by_hand() -> None:
    # N 12, S 3, p 1/2. Between SS Σc²/n − N·p² = 5 − 3 = 2, MSB 1; within SS Σ(c − c²/n)
    # = 1, MSW 1/9; n0 = (12 − 48/12) / 2 = 4: ICC (1 − 1/9) / (1 + 3/9) = 2/3.
    assert icc_anova(THREE) == pytest.approx(2 / 3)
    # Unequal sizes: n (2, 3), c (0, 3). N 5, p 3/5; between 9/3 − 5·9/25 = 1.2, MSB 1.2;
    # within 0, MSW 0: ICC 1 (the trials of each scenario agree).
    assert icc_anova({"x": (2, 0), "y": (3, 3)}) == pytest.approx(1.0)
    # Every scenario half-and-half: no variance between, ICC negative (−1/(n−1) = −1/3).
    assert icc_anova({"x": (4, 2), "y": (4, 2)}) == pytest.approx(-1 / 3)


def test_icc_not_estimable_says_none() -> None:
    assert icc_anova({"x": (3, 3), "y": (3, 3)}) is None  # no variance at all
    assert icc_anova({"x": (1, 0), "y": (1, 1)}) is None  # no trial within a scenario
    assert icc_anova({"x": (4, 2)}) is None  # one scenario
    assert icc_anova({"x": (4, 2), "y": (0, 0)}) is None  # the other never judged
    assert icc_bootstrap({"x": (3, 3), "y": (3, 3)}) is None


def test_counts_leave_unjudged_trials_out_and_count_them() -> None:
    found, dropped = counts_of({"a": [True, None, False], "b": [None, None], "c": [True]})
    assert found == {"a": (2, 1), "b": (0, 0), "c": (1, 1)}
    assert dropped == 3


def _beta_binomial(
    rng: np.random.Generator, scenarios: int, trials: int, mean: float, icc: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per-scenario success chances from a beta whose ICC for binary outcomes is `icc`
    (ICC = 1 / (a + b + 1)), then `trials` Bernoulli draws of each: successes per scenario."""
    total = 1.0 / icc - 1.0
    p = rng.beta(mean * total, (1.0 - mean) * total, size=scenarios)
    return p, rng.binomial(trials, p)


@pytest.mark.parametrize(("mean", "icc"), [(0.5, 0.3), (0.7, 0.6), (0.3, 0.1)])
def test_simulation_recovers_a_known_icc_and_flip_rate(mean: float, icc: float) -> None:
    rng = np.random.default_rng(7)
    _, wins = _beta_binomial(rng, 3000, 5, mean, icc)
    counts = {f"s{i}": (5, int(c)) for i, c in enumerate(wins)}
    assert icc_anova(counts) == pytest.approx(icc, abs=0.03)
    # E[2p(1 − p)] over the beta = 2·m·(1 − m)·(1 − ICC).
    flips, _ = flip_rate(counts)
    assert flips == pytest.approx(2 * mean * (1 - mean) * (1 - icc), abs=0.02)
    interval = icc_bootstrap(counts, n_resamples=400)
    assert interval is not None and interval.low < icc < interval.high
    assert interval.undefined == 0


def test_bootstrap_interval_covers_the_true_icc_about_95_percent() -> None:
    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(60):
        _, wins = _beta_binomial(rng, 60, 4, 0.5, 0.4)
        counts = {f"s{i}": (4, int(c)) for i, c in enumerate(wins)}
        interval = icc_bootstrap(counts, n_resamples=300, seed=int(rng.integers(1 << 30)))
        assert interval is not None
        covered += interval.low <= 0.4 <= interval.high
    assert covered >= 50  # 95% nominal; a percentile bootstrap on 60 scenarios runs near it


def test_mde_by_hand() -> None:
    # S 50, k 4, p 0.6, ICC 0.5: DE 2.5, variance 2·0.24·2.5/200 = 0.006.
    assert design_effect(4, 0.5) == 2.5
    assert min_detectable_difference(50, 4, 0.6, 0.5) == pytest.approx(Z * math.sqrt(0.006))
    # A negative ICC is taken as 0 (the conservative design effect 1).
    assert design_effect(4, -0.2) == 1.0
    # One trial: the design effect is 1 whatever the ICC.
    assert min_detectable_difference(50, 1, 0.6, 0.9) == pytest.approx(Z * math.sqrt(2 * 0.24 / 50))
    assert difference_floor(50, 0.6, 0.5) == pytest.approx(Z * math.sqrt(2 * 0.24 * 0.5 / 50))


def test_trials_needed_is_the_least_k_that_reaches_the_target() -> None:
    k = trials_needed(0.2, 50, 0.6, 0.5)
    assert k == 17
    assert min_detectable_difference(50, 17, 0.6, 0.5) <= 0.2
    assert min_detectable_difference(50, 16, 0.6, 0.5) > 0.2
    # A target the design already meets needs one trial.
    assert trials_needed(0.9, 50, 0.6, 0.5) == 1
    # ICC 0: k = A = Z²·2p(1 − p) / (S·δ²), rounded up.
    assert trials_needed(0.1, 50, 0.5, 0.0) == math.ceil(Z**2 * 0.5 / (50 * 0.01))


def test_a_target_below_the_floor_is_not_reachable() -> None:
    floor = difference_floor(50, 0.6, 0.5)  # about 0.194
    assert trials_needed(floor * 0.99, 50, 0.6, 0.5) is None
    assert trials_needed(floor * 1.01, 50, 0.6, 0.5) is not None
    assert trials_needed(0.05, 50, 0.6, 0.5) is None


def test_mde_has_its_power_in_a_simulation() -> None:
    """Two arms whose rates differ by the design's MDE, compared by a z-test on per-scenario
    means (the scenario as the unit): rejected in about 80% of replications."""
    rng = np.random.default_rng(3)
    scenarios, trials, icc = 40, 4, 0.3
    mde = min_detectable_difference(scenarios, trials, 0.5, icc)
    rejected = 0
    reps = 1500
    for _ in range(reps):
        _, a = _beta_binomial(rng, scenarios, trials, 0.5 - mde / 2, icc)
        _, b = _beta_binomial(rng, scenarios, trials, 0.5 + mde / 2, icc)
        ma, mb = a / trials, b / trials
        se = math.sqrt(ma.var(ddof=1) / scenarios + mb.var(ddof=1) / scenarios)
        rejected += abs(mb.mean() - ma.mean()) / se > 1.959963984540054
    assert 0.75 <= rejected / reps <= 0.88


@pytest.mark.parametrize("target", [0.0, 1.0, 2.0, -0.1])
def test_target_outside_0_1_is_refused(target: float) -> None:
    with pytest.raises(StatisticsInputError, match=r"in \(0, 1\)"):
        trials_needed(target, 50, 0.6, 0.5)


def test_broken_counts_and_designs_are_refused() -> None:
    with pytest.raises(StatisticsInputError, match="scenario 'x'"):
        flip_rate({"x": (2, 3)})
    with pytest.raises(StatisticsInputError, match="successes"):
        icc_anova({"x": (-1, 0), "y": (2, 1)})
    with pytest.raises(StatisticsInputError, match="at least one scenario"):
        min_detectable_difference(0, 4, 0.5, 0.1)
    with pytest.raises(StatisticsInputError, match="at least 1"):
        design_effect(0, 0.1)
    with pytest.raises(StatisticsInputError, match="alpha and power"):
        min_detectable_difference(10, 4, 0.5, 0.1, power=1.0)
