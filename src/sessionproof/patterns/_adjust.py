"""Adjusted effects of one binary exposure on failure, over strata: pure functions.

Each stratum is a 2×2 table `(a, b, c, d)`: `a` failed sessions with the motif, `b` passed
with it, `c` failed without, `d` passed without.

- `mantel_haenszel`: the common odds ratio of Mantel & Haenszel (1959), ΣR/ΣS with
  R = ad/n and S = bc/n, and its 95% interval from the variance of log OR by Robins, Breslow &
  Greenland (1986). A stratum without both a failed and a passed session carries no contrast
  (its R and S are 0) and is left out; how many sessions the strata used hold is returned.
  When ΣR or ΣS is 0 (an empty cell in every stratum: a ratio of 0 or ∞) the Haldane–Anscombe
  correction is used instead: 0.5 added to each cell of every used stratum, so the ratio and
  its interval stay finite (and the result says `corrected`).
- `cmh_p`: the two-sided Cochran–Mantel–Haenszel test with the continuity correction
  (|Σa − ΣE(a)| − ½)² / ΣVar(a), χ² with one degree of freedom.
- `bh`: Benjamini–Hochberg q-values.

With one stratum these are the ordinary odds ratio with Woolf's interval and the
Yates-corrected χ² test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
Table = tuple[int, int, int, int]


@dataclass(frozen=True)
class Effect:
    """A Mantel–Haenszel odds ratio with its 95% interval, its CMH p and what it rests on."""

    odds_ratio: float | None
    ci: tuple[float, float] | None
    p_value: float | None
    strata_used: int
    sessions_used: int
    corrected: bool = False
    """True when the Haldane–Anscombe 0.5 was added (ΣR or ΣS was 0)."""


def informative(tables: Sequence[Table]) -> list[Table]:
    """The strata holding both a failed and a passed session."""
    return [t for t in tables if t[0] + t[2] > 0 and t[1] + t[3] > 0]


def _rbg(tables: Sequence[tuple[float, float, float, float]]) -> tuple[float, float]:
    """(MH odds ratio, RBG variance of its log) over `tables` (floats: corrected cells)."""
    sr = ss = spr = sps_qr = sqs = 0.0
    for a, b, c, d in tables:
        n = a + b + c + d
        r, s = a * d / n, b * c / n
        p, q = (a + d) / n, (b + c) / n
        sr += r
        ss += s
        spr += p * r
        sps_qr += p * s + q * r
        sqs += q * s
    var = spr / (2 * sr**2) + sps_qr / (2 * sr * ss) + sqs / (2 * ss**2)
    return sr / ss, var


def mantel_haenszel(tables: Sequence[Table]) -> Effect:
    """The MH odds ratio, RBG 95% interval and two-sided CMH p over `tables` (the module
    docstring says which strata count and how an empty cell is corrected)."""
    used = informative(tables)
    sessions = sum(sum(t) for t in used)
    if not used:
        return Effect(None, None, None, 0, 0)
    p = cmh_p(used)
    if not any(t[0] + t[1] for t in used) or not any(t[2] + t[3] for t in used):
        # Present in every used session or in none: no contrast, no ratio.
        return Effect(None, None, p, len(used), sessions)
    floats = [(float(a), float(b), float(c), float(d)) for a, b, c, d in used]
    sr = sum(a * d / (a + b + c + d) for a, b, c, d in floats)
    ss = sum(b * c / (a + b + c + d) for a, b, c, d in floats)
    corrected = sr == 0 or ss == 0
    if corrected:
        floats = [(a + 0.5, b + 0.5, c + 0.5, d + 0.5) for a, b, c, d in floats]
    ratio, var = _rbg(floats)
    se = math.sqrt(var)
    low, high = math.exp(math.log(ratio) - Z95 * se), math.exp(math.log(ratio) + Z95 * se)
    return Effect(ratio, (low, high), p, len(used), sessions, corrected)


def cmh_p(tables: Sequence[Table]) -> float:
    """Two-sided CMH p with the continuity correction (1.0 when there is no variance)."""
    sa = se = sv = 0.0
    for a, b, c, d in informative(tables):
        n = a + b + c + d
        m1, m0 = a + b, c + d
        f1, f0 = a + c, b + d
        sa += a
        se += m1 * f1 / n
        if n > 1:
            sv += m1 * m0 * f1 * f0 / (n * n * (n - 1))
    if sv <= 0:
        return 1.0
    chi2 = max(abs(sa - se) - 0.5, 0.0) ** 2 / sv
    return math.erfc(math.sqrt(chi2 / 2.0))


def bh(p: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg q-values, in the order of `p`."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        q[i] = min(running, 1.0)
    return q
