"""How the report counts a run × arm: from each session's verdict (`Session.verdict`).

A session that was not judged (an infra error, no outcome, or an outcome whose criteria could
not be checked) is neither a pass nor a failure: it is left out of accuracy and pass^k and
counted apart with its reason; an accuracy over no judged session is "–", never 0%.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...records import Session
from ...records._internal import FaultInjectedEvent
from ...scoring.stats import pass_hat_k, wilson_interval
from ...scoring.stats._internal import pass_at_k
from .._format import pct_range
from ._data import ReportRun

NONE = "–"
"""What an accuracy over no judged session reads as (never 0%)."""


@dataclass
class ArmFigures:
    """One run × arm as the report counts it, the not-judged rule applied."""

    sessions: int
    passed: int
    judged: int
    not_judged: Counter[str] = field(default_factory=Counter)
    """Sessions left out of the accuracy, by reason."""
    pass_k: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)
    """k → (pass^k, pass@k) over the scenarios with k judged trials."""
    faults: int = 0
    """Faults injected into the arm's tool calls (the agent's tools)."""
    user_faults: int = 0
    """Faults injected into the user's own tools (dual control), counted apart."""

    @property
    def accuracy(self) -> float | None:
        """Passed over judged, or None when nothing was judged."""
        return self.passed / self.judged if self.judged else None

    @property
    def accuracy_text(self) -> str:
        """ "84.4%", or "–" when nothing was judged."""
        return NONE if self.accuracy is None else f"{self.accuracy:.1%}"

    @property
    def interval(self) -> str:
        """The Wilson 95% interval of the accuracy, or "–"."""
        return pct_range(*wilson_interval(self.passed, self.judged)) if self.judged else NONE


def _why_not(session: Session) -> str:
    if session.infra_error:
        return "infra error"
    if session.outcome is None:
        return "no outcome"
    return session.outcome.not_judged or "not judged"


def arm_figures(run: ReportRun, arm: str, *, faults: bool = False) -> ArmFigures:
    """Count one arm of `run` from its sessions' verdicts (and its injected faults when
    asked). When every session was judged, pass^k and pass@k are the arm's metrics' own (the
    same numbers: nothing is left out); otherwise they are counted here without the
    sessions that were not judged."""
    sessions = [s for s in run.sessions if s.arm == arm]
    out = ArmFigures(len(sessions), 0, 0)
    table: dict[str, list[tuple[int, bool | None]]] = {}
    for s in sessions:
        v = s.verdict
        table.setdefault(s.scenario_id, []).append((s.trial, v))
        if v is None:
            out.not_judged[_why_not(s)] += 1
        else:
            out.judged += 1
            out.passed += v
        if faults:
            for e in s.events:
                if isinstance(e, FaultInjectedEvent):
                    if e.payload.side == "user":
                        out.user_faults += 1
                    else:
                        out.faults += 1
    metrics = run.arms.get(arm)
    if metrics is not None and not out.not_judged:
        for key, hat in metrics.summary.pass_hat_k.items():
            out.pass_k[int(key)] = (hat, metrics.pass_at_k.get(key))
        return out
    trials = {sid: [v for _, v in sorted(ts, key=lambda t: t[0])] for sid, ts in table.items()}
    top = max((sum(v is not None for v in t) for t in trials.values()), default=0)
    for k in range(1, top + 1):
        out.pass_k[k] = (pass_hat_k(trials, k).value, pass_at_k(trials, k).value)
    return out


def pass_k_text(figures: ArmFigures) -> str:
    """ "pass^1 25% · pass@1 25%", one k per line; "–" with no judged trial."""
    return (
        "\n".join(
            f"pass^{k} {_pct0(hat)} · pass@{k} {_pct0(at)}"
            for k, (hat, at) in figures.pass_k.items()
        )
        or NONE
    )


def _pct0(x: float | None) -> str:
    return NONE if x is None else f"{x:.0%}"


def not_judged_text(figures: ArmFigures) -> str:
    """ "0", or the count with its reasons ("2: infra error 1, no outcome 1")."""
    total = sum(figures.not_judged.values())
    if not total:
        return "0"
    return f"{total}: " + ", ".join(f"{k} {v}" for k, v in sorted(figures.not_judged.items()))
