"""Run summaries: session accuracy with its interval, pass^k, termination reasons."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from .stats import pass_hat_k, wilson_interval

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


def summarize(rows: Iterable[VerdictLike]) -> RunSummary:
    """Summarize sessions: accuracy over judged sessions, pass^k for k = 1..max trials."""
    rows = list(rows)
    reasons = Counter(str(r.termination) for r in rows)
    judged = [r for r in rows if str(r.termination) != INFRA]
    wins = sum(1 for r in judged if r.success)
    # Infra-error trials stay in the table as None: the stats module drops them from n.
    trials: dict[str, list[tuple[int, bool | None]]] = {}
    for r in rows:
        verdict = None if str(r.termination) == INFRA else bool(r.success)
        trials.setdefault(r.scenario_id, []).append((r.trial, verdict))
    table = {sid: [v for _, v in sorted(ts)] for sid, ts in trials.items()}
    max_k = max((sum(v is not None for v in t) for t in table.values()), default=0)
    phk: dict[str, float] = {}
    for k in range(1, max_k + 1):
        value = pass_hat_k(table, k).value
        if value is not None:
            phk[str(k)] = value
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
