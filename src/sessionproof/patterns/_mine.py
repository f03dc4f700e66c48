"""Discriminative sequence mining over a `TokenMatrix`: which patterns precede failure.

1. Count every pattern (`_count`) once per session; test those with at least `min_support`
   failed sessions (the family BH corrects over).
2. Test each within scenario (stratified CMH, `_stats`), so a pattern that only marks a hard
   scenario is not reported; BH q-values over the family.
3. Keep a non-redundant set of the significant ones (up to `redundancy_limit` of them, by
   strength): a super-pattern is dropped when, among sessions holding its sub-pattern, it is
   not itself associated with failure (it adds nothing); a sub-pattern is dropped when, among
   sessions *without* a kept super-pattern, it is no longer associated (the super-pattern
   explains it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ._count import Codec, Pattern, presence, shapes, stratum_cells, support
from ._matrix import BoolArray, TokenMatrix
from ._stats import bh_qvalues, cmh_greater, cmh_vector, fisher_greater


class MineOptions(BaseModel):
    """What to mine and how strict to be."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_support: int = Field(default=3, ge=1)
    """A pattern is tested only when at least this many failed sessions hold it."""
    max_len: int = Field(default=3, ge=1, le=3)
    max_gap: int = Field(default=1, ge=0)
    """A gapped link `…` skips 1..max_gap tokens (0: contiguous patterns only)."""
    alpha: float = Field(default=0.05, gt=0, lt=1)
    """FDR level: findings have q < alpha."""
    top: int = Field(default=20, ge=1)
    redundancy_limit: int = Field(default=100, ge=1)
    """The strongest this many significant patterns go through the redundancy filter."""
    examples: int = Field(default=3, ge=0)
    early_warning: bool = True
    """Fit the cross-validated early-warning risk model (the slow part of mining); False
    leaves `risk` empty with a note, for callers that do not show it (the HTML report)."""


class Finding(BaseModel):
    """One pattern that precedes failure, within scenario."""

    model_config = ConfigDict(extra="forbid")

    pattern: str
    tokens: list[str]
    fail_support: int
    """Failed sessions holding the pattern."""
    pass_support: int
    odds_ratio: float
    """Mantel–Haenszel common odds ratio (failure, pattern present vs absent)."""
    ci: tuple[float, float]
    p_value: float
    q_value: float
    stratified: bool
    """True: tested within scenario (CMH). False only in the exploratory list."""
    informative_strata: int
    """Scenarios with both outcomes that hold the pattern: where the contrast comes from."""
    covers_failures: float
    """Share of all failed sessions holding the pattern."""
    examples: list[str] = Field(default_factory=list)
    """Ids of failed sessions holding it."""
    advice: str = ""
    investment: str = ""
    guarded_arm: dict[str, object] | None = None


class _Lazy(dict[int, Pattern]):
    """Candidate index → pattern, decoded on first use (most candidates never are)."""

    def __init__(self, codec: Codec, codes: np.ndarray) -> None:
        super().__init__()
        self.codec, self.codes = codec, codes

    def __missing__(self, i: int) -> Pattern:
        self[i] = found = self.codec.decode(int(self.codes[i]))
        return found


@dataclass
class Mined:
    """Mining output: findings with their patterns and presence vectors (same order)."""

    findings: list[Finding]
    patterns: list[Pattern]
    present: list[BoolArray]
    tested: int
    significant: int
    informative_strata: int
    exploratory: list[Finding] = field(default_factory=list)


def _ordered(z: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    # Strongest first; on equal strength the longer (more specific) pattern first.
    return np.lexsort((-lengths, -z))


def mine_matrix(
    matrix: TokenMatrix, options: MineOptions | None = None, exploratory: bool = False
) -> Mined:
    """Mine `matrix` (rules: the module docstring). `exploratory` adds the unstratified
    Fisher list (for files whose scenarios each ran once, where no stratum contrasts)."""
    opts = options or MineOptions()
    codec = Codec(len(matrix.vocab), shapes(opts.max_len, opts.max_gap))
    sup = support(matrix, codec)
    cand_mask = sup.fail >= opts.min_support
    cand = sup.codes[cand_mask]
    fail_sup, pass_sup = sup.fail[cand_mask], sup.passed[cand_mask]
    k = len(cand)
    n_strata = int(matrix.strata.max()) + 1 if matrix.sessions else 0
    n1 = np.bincount(matrix.strata, weights=matrix.failed, minlength=n_strata).astype(np.int64)
    n0 = np.bincount(matrix.strata, weights=~matrix.failed, minlength=n_strata).astype(np.int64)
    informative_mask = (n1 > 0) & (n0 > 0)
    informative = np.full(n_strata, -1, dtype=np.int64)
    informative[informative_mask] = np.arange(int(informative_mask.sum()))
    pi, si, a, b = stratum_cells(matrix, codec, cand, informative)
    p, z, ratio, low, high, held = cmh_greater(
        pi, si, a, b, n1[informative_mask], n0[informative_mask], k
    )
    q = bh_qvalues(p)
    shape_len = np.array([sh.length for sh in codec.shapes], dtype=np.int64)
    lengths = shape_len[cand % codec.n_shapes]
    sig = np.flatnonzero(q < opts.alpha)
    sig = sig[_ordered(z[sig], lengths[sig])][: opts.redundancy_limit]
    patterns = _Lazy(codec, cand)
    kept = _non_redundant(matrix, codec, [int(i) for i in sig], patterns, opts.alpha, k)
    failures = int(matrix.failed.sum())
    findings: list[dict[str, object]] = []
    present: list[BoolArray] = []
    for i, pres in kept[: opts.top]:
        findings.append(
            _finding(matrix, patterns[i], pres, fail_sup[i], pass_sup[i], failures, opts)
            | {
                "odds_ratio": float(ratio[i]),
                "ci": (float(low[i]), float(high[i])),
                "p_value": float(p[i]),
                "q_value": float(q[i]),
                "stratified": True,
                "informative_strata": int(held[i]),
            }
        )
        present.append(pres)
    explore: list[Finding] = []
    if exploratory and k:
        explore = _exploratory(matrix, codec, patterns, fail_sup, pass_sup, held, opts)
    return Mined(
        findings=[Finding.model_validate(f) for f in findings],
        patterns=[patterns[i] for i, _ in kept[: opts.top]],
        present=present,
        tested=k,
        significant=int((q < opts.alpha).sum()),
        informative_strata=int(informative_mask.sum()),
        exploratory=explore,
    )


def _finding(
    matrix: TokenMatrix,
    pattern: Pattern,
    pres: BoolArray,
    fail_sup: int,
    pass_sup: int,
    failures: int,
    opts: MineOptions,
) -> dict[str, object]:
    rows = np.flatnonzero(pres & matrix.failed)[: opts.examples]
    return {
        "pattern": pattern.render(matrix.vocab),
        "tokens": [matrix.vocab[t] for t in pattern.tokens],
        "fail_support": int(fail_sup),
        "pass_support": int(pass_sup),
        "covers_failures": float(fail_sup) / failures if failures else 0.0,
        "examples": [matrix.session_id(int(r)) for r in rows],
    }


def _non_redundant(
    matrix: TokenMatrix,
    codec: Codec,
    order: list[int],
    patterns: dict[int, Pattern],
    alpha: float,
    family: int,
) -> list[tuple[int, BoolArray]]:
    pres = {i: presence(matrix, patterns[i], codec) for i in order}
    failed, strata = matrix.failed, matrix.strata
    # The candidates were picked as the strongest of the whole family, on the same data (an
    # echo is the luckiest of many extensions of a real pattern): a conditional test at plain
    # alpha would keep that chance excess. Bonferroni over the family tested.
    level = alpha / max(1, family)

    def adds(x: int, given: BoolArray) -> bool:
        return cmh_vector(pres[x][given], failed[given], strata[given]) < level

    def explained(x: int, k: int) -> bool:
        # A pattern that mostly co-occurs with a stronger kept one (in failed sessions) is
        # often only its echo: a piece of it, or it plus a neighbour. It stays only if it
        # still precedes failure where the kept pattern does not occur. A super-pattern of a
        # kept one stays only if it adds to it where it does occur.
        if patterns[k].within(patterns[x]):
            return not adds(x, pres[k])
        mine_failed = pres[x] & failed
        overlap = int((mine_failed & pres[k]).sum())
        if overlap * 2 >= int(mine_failed.sum()):
            return not adds(x, ~pres[k])
        return False

    kept: list[int] = []
    for x in order:
        if not any(explained(x, k) for k in kept):
            kept.append(x)
    # A sub-pattern kept before its super-pattern came up may be explained by it after all.
    final = [
        x
        for x in kept
        if not any(patterns[x].within(patterns[k]) and not adds(x, ~pres[k]) for k in kept)
    ]
    return [(x, pres[x]) for x in final]


def _exploratory(
    matrix: TokenMatrix,
    codec: Codec,
    patterns: dict[int, Pattern],
    fail_sup: np.ndarray,
    pass_sup: np.ndarray,
    held: np.ndarray,
    opts: MineOptions,
) -> list[Finding]:
    failures = int(matrix.failed.sum())
    p = fisher_greater(fail_sup, fail_sup + pass_sup, failures, matrix.sessions)
    q = bh_qvalues(p)
    out: list[Finding] = []
    for i in (int(j) for j in np.argsort(p, kind="stable")[: min(opts.top, 10)]):
        a, b = float(fail_sup[i]), float(pass_sup[i])
        c, d = failures - a, matrix.sessions - failures - b
        ratio = (a + 0.5) * (d + 0.5) / ((b + 0.5) * (c + 0.5))
        se = float(np.sqrt(1 / (a + 0.5) + 1 / (b + 0.5) + 1 / (c + 0.5) + 1 / (d + 0.5)))
        pres = presence(matrix, patterns[i], codec)
        base = _finding(matrix, patterns[i], pres, int(a), int(b), failures, opts)
        base |= {
            "odds_ratio": ratio,
            "ci": (
                float(np.exp(np.log(ratio) - 1.96 * se)),
                float(np.exp(np.log(ratio) + 1.96 * se)),
            ),
            "p_value": float(p[i]),
            "q_value": float(q[i]),
            "stratified": False,
            "informative_strata": int(held[i]),
        }
        out.append(Finding.model_validate(base))
    return out
