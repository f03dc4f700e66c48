"""Futility stopping: the chance of a verdict by the last look under the current trend, checked
against a simulation of the rest of the design, and the rule that acts on it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sessionproof.errors import StatisticsInputError
from sessionproof.scoring.stats._futility import (
    FROM,
    FUTILITY,
    check_futility,
    futile,
    verdict_chance,
)
from sessionproof.scoring.stats._sequential import Look, boundaries


def _look(estimate: float, se: float, pairs: int = 200) -> Look:
    return Look(
        look=5,
        pairs=pairs,
        estimate=estimate,
        low=estimate - 2 * se,
        high=estimate + 2 * se,
        se=se,
        critical=2.0,
    )


@pytest.mark.parametrize(
    ("estimate", "se", "fraction"),
    [(-0.05, 0.03, 0.5), (-0.02, 0.02, 0.7), (-0.09, 0.025, 0.6), (0.01, 0.04, 0.8)],
)
def test_the_chance_is_that_of_the_rest_of_the_design_simulated(
    estimate: float, se: float, fraction: float
) -> None:
    # Information I so far (se² = 1/I); the rest of the design adds I (1 − t) / t more, of
    # mean `estimate` if the trend holds. The last look pools both, and decides when its
    # interval clears −margin on either side.
    margin, last = 0.05, boundaries(10, 0.05)[-1]
    rng = np.random.default_rng(7)
    info = 1.0 / se**2
    rest = info * (1.0 - fraction) / fraction
    later = rng.normal(estimate, 1.0 / math.sqrt(rest), 400_000)
    final = (info * estimate + rest * later) / (info + rest)
    final_se = 1.0 / math.sqrt(info + rest)
    decided = (final - last * final_se > -margin) | (final + last * final_se < -margin)
    chance = verdict_chance(estimate, se, fraction, last, margin)
    assert chance == pytest.approx(float(decided.mean()), abs=0.004)


def test_the_chance_is_high_far_from_the_threshold_and_low_on_it() -> None:
    last = boundaries(10, 0.05)[-1]
    assert verdict_chance(0.10, 0.02, 0.6, last, 0.05) > 0.999  # clearly not worse
    assert verdict_chance(-0.20, 0.02, 0.6, last, 0.05) > 0.999  # clearly worse
    on_it = verdict_chance(-0.05, 0.02, 0.9, last, 0.05)
    assert on_it < 0.01
    # Less information still to come leaves less room to move off the threshold.
    assert verdict_chance(-0.05, 0.02, 0.6, last, 0.05) > on_it


def test_the_rule_acts_only_from_half_the_information_and_before_the_last_look() -> None:
    last = boundaries(10, 0.05)[-1]
    stuck = _look(-0.05, 0.02)
    assert futile(stuck, 0.9, last, 0.05, FUTILITY)
    assert futile(stuck, FROM, last, 0.05, FUTILITY)
    assert not futile(stuck, FROM - 0.01, last, 0.05, FUTILITY)  # too early to act
    assert not futile(stuck, 1.0, last, 0.05, FUTILITY)  # the last look decides itself
    assert not futile(stuck, 0.9, last, 0.05, 0.0)  # 0 turns the rule off
    assert not futile(_look(0.1, 0.02), 0.9, last, 0.05, FUTILITY)  # a verdict is near
    empty = Look(look=1, pairs=0, estimate=0.0, low=-1.0, high=1.0, se=1.0, critical=2.0)
    assert not futile(empty, 0.9, last, 0.05, FUTILITY)


@pytest.mark.parametrize("threshold", [-0.1, 1.0, 1.5, math.nan, math.inf])
def test_a_threshold_outside_zero_to_one_is_refused(threshold: float) -> None:
    with pytest.raises(StatisticsInputError, match="futility threshold"):
        check_futility(threshold)
    check_futility(0.0)
    check_futility(0.2)


@pytest.mark.parametrize(("fraction", "se"), [(0.0, 0.02), (1.0, 0.02), (0.5, 0.0), (0.5, -1)])
def test_a_fraction_outside_the_design_or_no_spread_is_refused(fraction: float, se: float) -> None:
    with pytest.raises(StatisticsInputError):
        verdict_chance(0.0, se, fraction, 2.0, 0.05)
