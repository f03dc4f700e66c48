"""The tests behind each finding, vectorised over patterns.

- **Stratified**: the Cochran–Mantel–Haenszel test, one-sided (the pattern is more common in
  failed sessions than in passed ones of the *same* scenario), with the continuity correction;
  the Mantel–Haenszel common odds ratio with the Robins–Breslow–Greenland 95% interval. A
  stratum whose sessions all passed or all failed (or that holds one session) carries no
  within-scenario contrast and adds nothing; a pattern absent from a stratum adds nothing to
  any of the sums either, so they run over the sparse (pattern, stratum) cells only.
- **Unstratified** (exploratory only): Fisher's exact test, one-sided, by the hypergeometric
  tail.
- Benjamini–Hochberg q-values over every pattern tested.
"""

from __future__ import annotations

import math

import numpy as np

from ._matrix import IntArray

FloatArray = np.ndarray[tuple[int], np.dtype[np.float64]]

Z95 = 1.959963984540054
_SQRT2 = math.sqrt(2.0)


def bh_qvalues(p: FloatArray) -> FloatArray:
    """Benjamini–Hochberg adjusted p-values (q-values), same order as `p`."""
    m = len(p)
    if m == 0:
        return np.zeros(0)
    order = np.argsort(p)
    ranked = p[order] * m / np.arange(1, m + 1)
    q = np.minimum.accumulate(ranked[::-1])[::-1].clip(0.0, 1.0)
    out = np.empty(m)
    out[order] = q
    return out


def normal_sf(z: FloatArray) -> FloatArray:
    """P(Z > z) for a standard normal Z, element-wise: erfc keeps the far tail's precision
    (what scipy's `norm.sf` gives, without importing scipy.stats: 1.1-1.4 s here)."""
    return np.asarray([0.5 * math.erfc(x / _SQRT2) for x in z.tolist()], dtype=np.float64)


def fisher_greater(a: IntArray, m: IntArray, fails: int, total: int) -> FloatArray:
    """P(X ≥ a), X hypergeometric: `m` sessions with the pattern drawn from `total`, of
    which `fails` failed. Small p: the pattern is enriched in failures.

    Exact, from log-factorials (what scipy's `hypergeom.sf` gives, tests/patterns/
    test_stats.py, without importing scipy.stats: 1.1-1.4 s here). Patterns of one support
    `m` share one distribution: its tail sums, from the far end so small terms keep their
    precision, answer all of them.
    """
    log_fact = np.array([math.lgamma(i + 1.0) for i in range(total + 1)])

    def log_comb(n: int, k: IntArray) -> FloatArray:
        return np.asarray(log_fact[n] - log_fact[k] - log_fact[n - k], dtype=np.float64)

    out = np.ones(len(a), dtype=np.float64)
    for size in np.unique(m).tolist():
        lo, hi = max(0, size - (total - fails)), min(size, fails)
        x = np.arange(lo, hi + 1)
        log_pmf = log_comb(fails, x) + log_comb(total - fails, size - x)
        tail = np.cumsum(np.exp(log_pmf - log_comb(total, np.array(size)))[::-1])[::-1]
        which = np.flatnonzero(m == size)
        want = a[which]
        # Above `hi` the tail is empty; at or below `lo` it is all of it.
        p = np.append(tail, 0.0)[np.clip(want - lo, 0, len(tail))]
        out[which] = np.where(want <= lo, 1.0, np.minimum(p, 1.0))
    return out


def cmh_greater(
    pattern: IntArray,
    stratum: IntArray,
    a: IntArray,
    b: IntArray,
    n1: IntArray,
    n0: IntArray,
    k: int,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, IntArray]:
    """Per pattern (0..k-1): one-sided CMH p, its z statistic (for ranking where p
    underflows), MH odds ratio, its 95% CI (low, high), and the number of informative strata
    holding the pattern.

    Cells: pattern index, stratum index, `a` failed and `b` passed sessions with the pattern.
    `n1` / `n0`: failed / passed sessions per stratum.
    """
    a_f = a.astype(np.float64)
    b_f = b.astype(np.float64)
    f1 = n1[stratum].astype(np.float64)
    f0 = n0[stratum].astype(np.float64)
    n = f1 + f0
    m = a_f + b_f
    expected = m * f1 / n
    var = m * (n - m) * f1 * f0 / (n * n * (n - 1.0))
    c = f1 - a_f
    d = f0 - b_f

    def total(weights: FloatArray) -> FloatArray:
        return np.asarray(np.bincount(pattern, weights=weights, minlength=k), dtype=np.float64)

    sa, se, sv = total(a_f), total(expected), total(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (sa - se - 0.5) / np.sqrt(sv)
        z = np.where(sv > 0, z, -np.inf)
        p = np.where(sv > 0, normal_sf(z), 1.0)
        ratio, low, high = _mantel_haenszel(pattern, a_f, b_f, c, d, n, k)
    strata = np.bincount(pattern, minlength=k).astype(np.int64)
    return np.asarray(p, dtype=np.float64), z, ratio, low, high, strata


def _mantel_haenszel(
    pattern: IntArray,
    a: FloatArray,
    b: FloatArray,
    c: FloatArray,
    d: FloatArray,
    n: FloatArray,
    k: int,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """MH odds ratio and RBG 95% CI; a pattern with a zero sum (an infinite or zero ratio)
    gets the Haldane–Anscombe +0.5 in each of its cells instead, so the ratio stays finite."""

    def sums(
        a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, n: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r, s = a * d / n, b * c / n
        p_, q_ = (a + d) / n, (b + c) / n

        def tot(w: FloatArray) -> FloatArray:
            return np.asarray(np.bincount(pattern, weights=w, minlength=k), dtype=np.float64)

        sr, ss = tot(r), tot(s)
        var = (
            tot(p_ * r) / (2 * sr**2)
            + tot(p_ * s + q_ * r) / (2 * sr * ss)
            + tot(q_ * s) / (2 * ss**2)
        )
        return sr / ss, var, sr * ss

    ratio, var, prod = sums(a, b, c, d, n)
    zero = ~(prod > 0)
    if zero.any():
        h_ratio, h_var, _ = sums(a + 0.5, b + 0.5, c + 0.5, d + 0.5, n + 2.0)
        ratio = np.where(zero, h_ratio, ratio)
        var = np.where(zero, h_var, var)
    se = np.sqrt(var)
    low = np.exp(np.log(ratio) - Z95 * se)
    high = np.exp(np.log(ratio) + Z95 * se)
    return ratio, low, high


def cmh_vector(
    present: np.ndarray[tuple[int], np.dtype[np.bool_]],
    failed: np.ndarray[tuple[int], np.dtype[np.bool_]],
    strata: IntArray,
) -> float:
    """One-sided CMH p for one presence vector over the given sessions (redundancy checks)."""
    if present.size == 0:
        return 1.0
    _, s = np.unique(strata, return_inverse=True)
    n1 = np.bincount(s, weights=failed).astype(np.int64)
    n0 = np.bincount(s, weights=~failed).astype(np.int64)
    informative = (n1 > 0) & (n0 > 0)
    a = np.bincount(s, weights=present & failed, minlength=len(n1)).astype(np.int64)
    b = np.bincount(s, weights=present & ~failed, minlength=len(n1)).astype(np.int64)
    cells = np.flatnonzero(informative & ((a + b) > 0))
    if cells.size == 0:
        return 1.0
    p, *_ = cmh_greater(np.zeros(len(cells), dtype=np.int64), cells, a[cells], b[cells], n1, n0, 1)
    return float(p[0])
