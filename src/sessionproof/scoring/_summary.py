"""Run summaries: session accuracy with its interval, pass^k, termination reasons.

THE not-judged rule lives here, once: `verdict_of` gives a session's (or a stored row's)
verdict, None when it was not judged — it ended in infra_error, it has no outcome, or its
outcome says it could not be judged (`Outcome.not_judged`; a stored row's `success` NULL).
Sessions without a verdict are left out of accuracy and pass^k and counted apart by
`not_judged_reason`. Every summary, arm comparison and metric reads verdicts through it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..records import Session
from .stats import pass_hat_k, wilson_interval

INFRA = "infra_error"
NO_OUTCOME = "no outcome"
"""The not-judged reason of a session that carries no outcome (nothing graded it)."""
NOT_JUDGED = "not judged"
"""The not-judged reason when nothing more specific is known."""

METRIC_DEFINITIONS: dict[str, str] = {
    "session_accuracy": "share of judged sessions whose outcome is success. Sessions that were "
    "not judged (infra_error, no outcome, or an outcome no criterion could check) are excluded "
    "and counted apart by reason (not_judged_reasons); over zero judged sessions accuracy is "
    "none (–), never 0. 95% Wilson CI.",
    "pass^k": "mean over scenarios of C(c,k)/C(n,k), n = judged trials of the scenario, c = "
    "successes (tau-bench), per arm (k never exceeds one arm's trials). Trials that were not "
    "judged are excluded from n; a scenario with fewer than k judged trials is left out of "
    "pass^k for that k.",
    "evaluated_accuracy": "when some criteria could not be evaluated (e.g. a natural-language "
    "assertion without --judge): the share of judged sessions where no evaluated criterion "
    "failed, beside session_accuracy; unevaluated_sessions counts the sessions concerned.",
}


class VerdictLike(Protocol):
    """The few fields of a stored session a summary needs (a `Session` or a `SessionRow`)."""

    @property
    def scenario_id(self) -> str: ...
    @property
    def trial(self) -> int: ...
    @property
    def success(self) -> bool | None: ...
    @property
    def termination(self) -> str: ...


def verdict_of(row: VerdictLike) -> bool | None:
    """True (success), False (failure), or None: not judged (infra_error, no outcome, or an
    outcome that could not be judged; a stored row's `success` NULL)."""
    if isinstance(row, Session):
        return row.verdict
    if str(row.termination) == INFRA or row.success is None:
        return None
    return bool(row.success)


def not_judged_reason(row: VerdictLike) -> str | None:
    """Why `row` has no verdict (None when it has one): `infra_error`, `no outcome`, the
    outcome's own `not_judged` text, or `not judged`."""
    if str(row.termination) == INFRA:
        return INFRA
    if isinstance(row, Session):
        if row.outcome is None:
            return NO_OUTCOME
        return row.outcome.not_judged
    if row.success is not None:
        return None
    reason = getattr(row, "not_judged", None)
    return reason if isinstance(reason, str) and reason else NOT_JUDGED


def _evaluated(row: VerdictLike, verdict: bool) -> tuple[bool, bool]:
    """(some criterion was left unevaluated, the verdict over the evaluated criteria) of a
    judged row. Without unevaluated criteria that verdict is the session's own."""
    if isinstance(row, Session):
        outcome = row.outcome
        if outcome is None or not outcome.unevaluated:
            return False, verdict
        return True, outcome.evaluated_success
    if not getattr(row, "unevaluated", 0):
        return False, verdict
    found = getattr(row, "evaluated_success", None)
    return True, verdict if found is None else bool(found)


def verdict_label(row: VerdictLike) -> str:
    """A session's verdict in one word or two: `pass`, `fail`, `not judged`, or
    `unevaluated` for a session that failed only because some criteria could not be
    evaluated (no evaluated criterion failed): never shown as a plain failure."""
    verdict = verdict_of(row)
    if verdict is None:
        return "not judged"
    if verdict:
        return "pass"
    partial, evaluated = _evaluated(row, verdict)
    return "unevaluated" if partial and evaluated else "fail"


class RunSummary(BaseModel):
    """The headline numbers of one arm of a run (or of a one-arm run).

    `session_accuracy` is over the `judged` sessions only; `not_judged` counts the others and
    `not_judged_reasons` says why (infra errors among them, also counted in `infra_errors`).
    """

    model_config = ConfigDict(extra="forbid")

    sessions: int
    judged: int
    successes: int
    session_accuracy: float | None
    """None when no session was judged (never 0)."""
    ci95: tuple[float, float] | None
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    termination_reasons: dict[str, int] = Field(default_factory=dict)
    infra_errors: int = 0
    not_judged: int = 0
    """Sessions without a verdict (infra errors included), left out of every rate."""
    not_judged_reasons: dict[str, int] = Field(default_factory=dict)
    """Reason → sessions: `infra_error`, `no outcome`, or the outcome's own reason."""
    unevaluated_sessions: int = 0
    """Judged sessions with a criterion that could not be evaluated (`passed` None)."""
    evaluated_successes: int = 0
    """Judged sessions where no evaluated criterion failed."""
    evaluated_accuracy: float | None = None
    """evaluated_successes / judged (None when nothing was judged): the accuracy over the
    criteria that could be checked, shown beside session_accuracy when they differ."""


def summarize(rows: Iterable[VerdictLike]) -> RunSummary:
    """Summarize the sessions of ONE arm: accuracy over judged sessions, pass^k for k = 1..the
    most judged trials of a scenario, and the sessions not judged, by reason.

    Give it one arm's sessions: over several arms a scenario's trials would be pooled and
    pass^k's k would run up to trials × arms (`summaries_by_arm` splits them)."""
    rows = list(rows)
    reasons = Counter(str(r.termination) for r in rows)
    unjudged: Counter[str] = Counter()
    trials: dict[str, list[tuple[int, bool | None]]] = {}
    judged = wins = unevaluated = evaluated_wins = 0
    for r in rows:
        verdict = verdict_of(r)
        trials.setdefault(r.scenario_id, []).append((r.trial, verdict))
        if verdict is None:
            unjudged[not_judged_reason(r) or NOT_JUDGED] += 1
            continue
        judged += 1
        wins += verdict
        partial, evaluated = _evaluated(r, verdict)
        unevaluated += partial
        evaluated_wins += evaluated
    # Trials not judged stay in the table as None: the stats module drops them from n.
    table = {sid: [v for _, v in sorted(ts, key=lambda t: t[0])] for sid, ts in trials.items()}
    max_k = max((sum(v is not None for v in t) for t in table.values()), default=0)
    phk: dict[str, float] = {}
    for k in range(1, max_k + 1):
        value = pass_hat_k(table, k).value
        if value is not None:
            phk[str(k)] = value
    return RunSummary(
        sessions=len(rows),
        judged=judged,
        successes=wins,
        session_accuracy=wins / judged if judged else None,
        ci95=wilson_interval(wins, judged) if judged else None,
        pass_hat_k=phk,
        termination_reasons=dict(sorted(reasons.items())),
        infra_errors=reasons.get(INFRA, 0),
        not_judged=len(rows) - judged,
        not_judged_reasons=dict(unjudged.most_common()),
        unevaluated_sessions=unevaluated,
        evaluated_successes=evaluated_wins,
        evaluated_accuracy=evaluated_wins / judged if judged else None,
    )


def arm_of(row: VerdictLike) -> str:
    """The arm a row or session ran in (`baseline` when it names none)."""
    arm = getattr(row, "arm", None)
    return arm if isinstance(arm, str) and arm else "baseline"


def summaries_by_arm(
    rows: Iterable[VerdictLike], arms: Iterable[str] = ()
) -> dict[str, RunSummary]:
    """One summary per arm, in the order of `arms` (arms the rows name but `arms` does not
    list follow, sorted). Arms are never pooled."""
    grouped: dict[str, list[VerdictLike]] = {a: [] for a in arms}
    extra: dict[str, list[VerdictLike]] = {}
    for r in rows:
        arm = arm_of(r)
        (grouped if arm in grouped else extra).setdefault(arm, []).append(r)
    grouped.update(sorted(extra.items()))
    return {arm: summarize(rs) for arm, rs in grouped.items()}


def first_summary(by_arm: Mapping[str, RunSummary]) -> RunSummary:
    """The first arm's summary (the reference arm of a comparison), or an empty one."""
    return next(iter(by_arm.values()), None) or summarize([])
