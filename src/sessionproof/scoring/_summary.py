"""Run summaries: session accuracy with its interval, pass^k, termination reasons."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

INFRA = "infra_error"

METRIC_DEFINITIONS: dict[str, str] = {
    "session_accuracy": "share of judged sessions whose outcome is success; sessions that ended "
    "in infra_error are not judged and are excluded (counted under infra_errors). 95% Wilson CI.",
    "pass^k": "mean over scenarios of C(c,k)/C(n,k), n = judged trials of the scenario, c = "
    "successes (tau-bench). Infra-error trials are excluded from n; a scenario with fewer than k "
    "judged trials is left out of pass^k for that k.",
}


class VerdictLike(Protocol):
    """The few fields of a stored session a summary needs."""

    @property
    def scenario_id(self) -> str: ...
    @property
    def trial(self) -> int: ...
    @property
    def success(self) -> bool | None: ...
    @property
    def termination(self) -> str: ...


class RunSummary(BaseModel):
    """The headline numbers of one run (or one arm of it)."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    judged: int
    successes: int
    session_accuracy: float | None
    ci95: tuple[float, float] | None
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    termination_reasons: dict[str, int] = Field(default_factory=dict)
    infra_errors: int = 0


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """Mean over scenarios of C(c,k)/C(n,k) for (n, c) pairs with n ≥ k; None if none qualify."""
    terms = [math.comb(c, k) / math.comb(n, k) for n, c in counts if n >= k]
    return sum(terms) / len(terms) if terms else None


def summarize(rows: Iterable[VerdictLike]) -> RunSummary:
    """Summarize sessions: accuracy over judged sessions, pass^k for k = 1..max trials."""
    rows = list(rows)
    reasons = Counter(str(r.termination) for r in rows)
    judged = [r for r in rows if str(r.termination) != INFRA]
    wins = sum(1 for r in judged if r.success)
    per: dict[str, list[bool]] = defaultdict(list)
    for r in judged:
        per[r.scenario_id].append(bool(r.success))
    counts = [(len(v), sum(v)) for v in per.values()]
    max_k = max((n for n, _ in counts), default=0)
    phk = {str(k): v for k in range(1, max_k + 1) if (v := pass_hat_k(counts, k)) is not None}
    return RunSummary(
        sessions=len(rows),
        judged=len(judged),
        successes=wins,
        session_accuracy=wins / len(judged) if judged else None,
        ci95=wilson_interval(wins, len(judged)) if judged else None,
        pass_hat_k=phk,
        termination_reasons=dict(sorted(reasons.items())),
        infra_errors=reasons.get(INFRA, 0),
    )
