"""The Mantel–Haenszel odds ratio, its RBG interval and the CMH test against hand arithmetic."""

from __future__ import annotations

import math

import pytest

from sessionproof.patterns._adjust import bh, cmh_p, mantel_haenszel

# Two strata (a failed with, b passed with, c failed without, d passed without).
TWO = [(10, 20, 5, 40), (3, 6, 2, 14)]


def test_two_strata_by_hand() -> None:
    # R = ad/n: 10*40/75 = 5.33333 and 3*14/25 = 1.68 → ΣR = 7.01333
    # S = bc/n: 20*5/75 = 1.33333 and 6*2/25 = 0.48 → ΣS = 1.81333
    sr, ss = 10 * 40 / 75 + 3 * 14 / 25, 20 * 5 / 75 + 6 * 2 / 25
    e = mantel_haenszel(TWO)
    assert e.odds_ratio == pytest.approx(sr / ss) == pytest.approx(3.86765, abs=1e-5)
    # RBG: ΣPR = 4.69796, Σ(PS+QR) = 3.53067, ΣQS = 0.59804 → var(log OR) = 0.277505.
    var = 4.69796 / (2 * sr**2) + 3.53067 / (2 * sr * ss) + 0.59804 / (2 * ss**2)
    assert var == pytest.approx(0.277505, abs=1e-5)
    low, high = (math.exp(math.log(sr / ss) + s * 1.959964 * math.sqrt(var)) for s in (-1, 1))
    assert e.ci is not None
    assert e.ci[0] == pytest.approx(low, rel=1e-4) == pytest.approx(1.3773, abs=1e-4)
    assert e.ci[1] == pytest.approx(high, rel=1e-4) == pytest.approx(10.8605, abs=1e-3)
    # CMH: Σa = 13, ΣE = 6 + 1.8, ΣV = 2.918919 + 0.96 → χ² = (5.2 - 0.5)² / 3.878919 = 5.69488.
    assert e.p_value == pytest.approx(math.erfc(math.sqrt(5.69488 / 2)), rel=1e-4)
    assert e.p_value == pytest.approx(0.01701, abs=1e-4)
    assert (e.strata_used, e.sessions_used, e.corrected) == (2, 100, False)


def test_one_stratum_is_the_plain_odds_ratio_with_woolf() -> None:
    e = mantel_haenszel([(10, 20, 5, 40)])
    assert e.odds_ratio == pytest.approx(4.0)
    se = math.sqrt(1 / 10 + 1 / 20 + 1 / 5 + 1 / 40)
    assert e.ci is not None and e.ci[0] == pytest.approx(4.0 * math.exp(-1.959964 * se), rel=1e-5)


def test_strata_without_both_outcomes_add_nothing() -> None:
    with_dead = [*TWO, (4, 0, 3, 0), (0, 5, 0, 9)]  # all failed; all passed
    e = mantel_haenszel(with_dead)
    assert e.odds_ratio == pytest.approx(mantel_haenszel(TWO).odds_ratio)
    assert e.sessions_used == 100 and e.strata_used == 2
    nothing = mantel_haenszel([(4, 0, 3, 0)])
    assert nothing.odds_ratio is None and nothing.p_value is None and nothing.sessions_used == 0


def test_an_empty_cell_gets_the_haldane_correction() -> None:
    # Never present in a passed session: ΣS = 0, the ratio would be infinite.
    e = mantel_haenszel([(5, 0, 5, 10)])
    assert e.corrected
    assert e.odds_ratio == pytest.approx((5.5 * 10.5) / (0.5 * 5.5))
    se = math.sqrt(1 / 5.5 + 1 / 0.5 + 1 / 5.5 + 1 / 10.5)  # Woolf on the corrected cells
    assert e.ci is not None and e.ci[1] == pytest.approx(21.0 * math.exp(1.959964 * se), rel=1e-5)


def test_present_everywhere_or_nowhere_has_no_ratio() -> None:
    e = mantel_haenszel([(0, 0, 5, 5)])
    assert e.odds_ratio is None and e.ci is None and e.p_value == 1.0


def test_cmh_and_bh() -> None:
    assert cmh_p([(5, 5, 5, 5)]) == pytest.approx(1.0)
    assert cmh_p([(1, 0, 0, 0)]) == 1.0  # one session: no variance
    assert bh([0.01, 0.04, 0.03, 0.2]) == pytest.approx(
        [0.04, 0.16 / 3, 0.16 / 3, 0.2]
    )  # 0.03·4/2 > 0.04·4/3
    assert bh([]) == []
