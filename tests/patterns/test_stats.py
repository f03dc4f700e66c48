"""The mining tests against statsmodels' and scipy's own: CMH p, MH odds ratio and its
interval, the normal tail, Fisher's exact tail."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import hypergeom, norm
from statsmodels.stats.contingency_tables import StratifiedTable

from sessionproof.patterns._stats import cmh_greater, fisher_greater, normal_sf


def test_normal_tail_is_scipys() -> None:
    z = np.concatenate([np.linspace(-9.0, 37.0, 4601), [np.inf, -np.inf]])
    ours, ref = normal_sf(z), norm.sf(z)
    assert np.allclose(ours, ref, rtol=1e-11, atol=0.0)
    assert ours[-2:].tolist() == [0.0, 1.0]
    assert np.isnan(normal_sf(np.array([np.nan]))).all()


@pytest.mark.parametrize("seed", range(6))
def test_cmh_matches_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    strata = int(rng.integers(2, 9))
    tables = []
    for _ in range(strata):
        # Failed sessions lean towards the pattern, so the one-sided test has something.
        fail_with, fail_without = rng.integers(1, 12), rng.integers(1, 8)
        pass_with, pass_without = rng.integers(1, 8), rng.integers(1, 12)
        tables.append(np.array([[fail_with, fail_without], [pass_with, pass_without]]))
    a = np.array([t[0, 0] for t in tables], dtype=np.int64)
    b = np.array([t[1, 0] for t in tables], dtype=np.int64)
    n1 = np.array([t[0].sum() for t in tables], dtype=np.int64)
    n0 = np.array([t[1].sum() for t in tables], dtype=np.int64)
    cells = np.arange(strata, dtype=np.int64)
    pattern = np.zeros(strata, dtype=np.int64)
    p, z, ratio, low, high, held = cmh_greater(pattern, cells, a, b, n1, n0, 1)

    ref = StratifiedTable([t.astype(float) for t in tables])
    test = ref.test_null_odds(correction=True)
    assert z[0] > 0.5  # the data lean as meant
    assert z[0] ** 2 == pytest.approx(test.statistic, rel=1e-9)
    # statsmodels' p is two-sided on |sum a - E| - 0.5; ours is its upper side.
    assert p[0] == pytest.approx(test.pvalue / 2, rel=1e-9)
    assert ratio[0] == pytest.approx(ref.oddsratio_pooled, rel=1e-12)
    ci_low, ci_high = ref.oddsratio_pooled_confint()
    assert low[0] == pytest.approx(ci_low, rel=1e-6)
    assert high[0] == pytest.approx(ci_high, rel=1e-6)
    assert held.tolist() == [strata]


def test_fisher_tail_is_scipys() -> None:
    rng = np.random.default_rng(5)
    for total, fails in [(12, 5), (600, 300), (600, 7), (300, 290), (2000, 1000), (5, 0)]:
        m = rng.integers(0, total + 1, size=300)
        a = np.minimum(m, rng.integers(0, fails + 2, size=300))
        # The two ends: every draw a failure, and none.
        m = np.append(m, [total, 1, total])
        a = np.append(a, [fails, 1, 0])
        ours = fisher_greater(a.astype(np.int64), m.astype(np.int64), fails, total)
        ref = hypergeom.sf(a - 1, total, fails, m)
        assert np.allclose(ours, ref, rtol=1e-9, atol=1e-15), (total, fails)
        small = ref < 1e-6
        assert np.allclose(ours[small], ref[small], rtol=1e-9, atol=0.0), (total, fails)
