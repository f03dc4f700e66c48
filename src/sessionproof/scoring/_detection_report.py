"""Fault detection and fault recovery over one arm's sessions, by kind, explicit vs implicit
and transient vs permanent, each rate with its 95% Wilson interval.

The rules are `_detection`'s. Detection is counted per faulted call, recovery per session
(a session counts in every group it met a fault of). Recovery is ToolMaze's *perturbation
recovery rate*: the share of perturbed sessions that still reached their goal (or, when a
permanent fault made it unreachable, said so or handed over), so the implicit and the explicit
rates of one run compare side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..records import Session
from ._detection import Fault, met_a_fault, session_faults, session_recovered
from ._metric import Aggregate, SessionInput
from .stats import wilson_interval

DETECTION_DEFINITIONS: dict[str, str] = {
    "fault_detection_rate": "share of faulted tool calls (explicit or implicit) after which "
    "the trace shows the fault was noticed: the same call repeated, the entity re-read or "
    "cross-checked by a read with the same id, the user told of a problem or asked about it "
    "(narrow text cues), a refusal, a transfer, or the guard acting on the call; Wilson 95% "
    "interval; by kind, explicit/implicit and transient/permanent in faults.",
    "fault_recovery_rate": "share of judged sessions with at least one fault that still "
    "reached the goal (verdict success) or, after a permanent fault, escalated or told the "
    "user of the problem (ToolMaze's perturbation recovery rate); sessions without a verdict "
    "are left out and counted; Wilson 95% interval.",
}
"""The two metrics' definitions, printed with their numbers."""

Writes = Callable[[Session], Collection[str] | None]
"""A session's domain write tools (None: unknown, told apart by name)."""


class Rate(BaseModel):
    """A count out of a total, its share and its 95% Wilson interval."""

    model_config = ConfigDict(extra="forbid")

    n: int = 0
    hits: int = 0
    rate: float | None = None
    ci95: tuple[float, float] | None = None

    def add(self, hit: bool) -> None:
        """Count one more unit."""
        self.n += 1
        self.hits += int(hit)
        self.rate = self.hits / self.n
        self.ci95 = wilson_interval(self.hits, self.n)


class FaultCell(BaseModel):
    """Detection (per faulted call) and recovery (per session) of one group of faults."""

    model_config = ConfigDict(extra="forbid")

    detection: Rate = Field(default_factory=Rate)
    recovery: Rate = Field(default_factory=Rate)


class FaultsReport(BaseModel):
    """Detection and recovery of one arm's faults, overall and by group."""

    model_config = ConfigDict(extra="forbid")

    overall: FaultCell = Field(default_factory=FaultCell)
    explicit: FaultCell = Field(default_factory=FaultCell)
    implicit: FaultCell = Field(default_factory=FaultCell)
    transient: FaultCell = Field(default_factory=FaultCell)
    permanent: FaultCell = Field(default_factory=FaultCell)
    by_kind: dict[str, FaultCell] = Field(default_factory=dict)
    detected_how: dict[str, int] = Field(default_factory=dict)
    """Detection rule → faults it was the first to see (`guard`: the guard, not the agent)."""
    sessions: int = 0
    """Sessions with at least one fault (infra_error ones aside)."""
    not_judged: int = 0
    """Sessions with faults but no verdict: in detection, left out of recovery."""
    excluded_infra: int = 0
    """Sessions with faults that ended as infra_error: left out of both."""


def _groups(report: FaultsReport, fault: Fault) -> list[FaultCell]:
    return [
        report.overall,
        report.implicit if fault.implicit else report.explicit,
        report.permanent if fault.permanent else report.transient,
        report.by_kind.setdefault(fault.kind, FaultCell()),
    ]


def faults_report(sessions: Sequence[Session], writes: Writes | None = None) -> FaultsReport | None:
    """The detection and recovery report of `sessions` (one arm's); None when none of them
    met a fault."""
    report = FaultsReport()
    any_fault = False
    for session in sessions:
        if not met_a_fault(session):  # most sessions of most runs: no write set to build
            continue
        faults = session_faults(session, None if writes is None else writes(session))
        if not faults:
            continue
        any_fault = True
        if session.infra_error:
            report.excluded_infra += 1
            continue
        report.sessions += 1
        touched: dict[int, FaultCell] = {}
        for fault in faults:
            for cell in _groups(report, fault):
                cell.detection.add(fault.detected)
                touched[id(cell)] = cell
            if fault.how is not None:
                report.detected_how[fault.how] = report.detected_how.get(fault.how, 0) + 1
        recovered = session_recovered(session, faults)
        if recovered is None:
            report.not_judged += 1
            continue
        for cell in touched.values():
            cell.recovery.add(recovered)
    report.by_kind = dict(sorted(report.by_kind.items()))
    return report if any_fault else None


def _writes_of(item: SessionInput) -> Collection[str] | None:
    if item.domain is None:
        return None
    return {t.name for t in item.domain.tools() if t.write}


def detected_share(item: SessionInput) -> float | None:
    """The share of the session's faulted calls that were detected (None: no fault, or the
    session ended as infra_error)."""
    if item.session.infra_error or not met_a_fault(item.session):
        return None
    faults = session_faults(item.session, _writes_of(item))
    return sum(f.detected for f in faults) / len(faults) if faults else None


def recovered(item: SessionInput) -> bool | None:
    """Whether the session, having met a fault, recovered (None: no fault or no verdict)."""
    return session_recovered(item.session, session_faults(item.session, _writes_of(item)))


def pooled_detection(values: Sequence[tuple[Session, float]]) -> Aggregate:
    """Detection pooled over the faulted calls of the sessions (not a mean of session
    shares), with its Wilson interval."""
    rate = Rate()
    for session, share in values:
        n = len(session_faults(session))
        hits = round(share * n)
        for k in range(n):
            rate.add(k < hits)
    return Aggregate(rate.rate, rate.n, rate.ci95)
