"""What a report is made of: typed runs (metrics per arm, sessions, patterns) and the compact
per-session records the page's drill-down renders."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...patterns import PatternsReport
from ...records import (
    AssistantMessageEvent,
    Scenario,
    Session,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from ...records._internal import (
    AgentErrorEvent,
    DriftAppliedEvent,
    FaultInjectedEvent,
    GuardDecisionEvent,
    ProviderFaultEvent,
    UserToolCallEvent,
    UserToolResultEvent,
)
from ...scoring import MetricsReport
from ...scoring._internal import (
    CostSummary,
    SessionSurvival,
    TraceCache,
    VarianceSplit,
    made_once,
)
from ._drill import calls_record, criteria_records

# Long tool outputs are cut so a 1,000-session report stays a few megabytes; the store keeps
# the full text (`sessionproof show` prints it).
MAX_TEXT = 1200


@dataclass(frozen=True)
class Original:
    """One rerun transcript as the file has it."""

    transcript: str
    task: str | None
    verdict: bool | None
    """The original's verdict (None: the file gives none and none could be made)."""


@dataclass
class ReportRun:
    """One stored run as the report shows it."""

    run_id: str
    command: str
    suite: str
    model: str
    arms: dict[str, MetricsReport]
    sessions: list[Session]
    patterns: PatternsReport | None = None
    patterns_note: str = ""
    """Why patterns were not mined, when they were not."""
    notes: list[str] = field(default_factory=list)
    traces: TraceCache | None = None
    """What was made of the sessions already (a run's, as they ended): their drill-down rows."""
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    """The scenarios the sessions ran, by id, when known: their gold calls in the drill-down."""
    originals: Mapping[str, Original] | None = None
    """A rerun's transcripts by the scenario id its sessions ran (the original verdicts),
    when the file could be read again; None otherwise (`originals_note` says why)."""
    originals_note: str = ""
    costs: dict[str, CostSummary] = field(default_factory=dict)
    """Arm → its cost by agent, simulated user and judge (the cost section)."""
    variance_split: dict[str, VarianceSplit] = field(default_factory=dict)
    """Arm → its verdict variance shared between the parties, on the first run of a report
    whose runs form one `run --vary` design (empty otherwise)."""
    audit: dict[str, Any] | None = None
    """The audit of the run's suite (`report --audit`: an `AuditReport` as JSON), if asked."""


def _cut(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f" … [{len(text)} chars]"


def verdict(session: Session) -> str:
    """pass, fail, or one of the three ways a session is not judged: infra (an infra error),
    none (no outcome), unjudged (an outcome whose criteria could not be checked). Only pass
    and fail count in an accuracy."""
    if session.infra_error:
        return "infra"
    if session.outcome is None:
        return "none"
    if not session.outcome.judged:
        return "unjudged"
    return "pass" if session.outcome.success else "fail"


def _row(kind: str, text: str, step: int, turn: int) -> list[Any]:
    return [kind, text, step, turn]


def _event_rows(session: Session) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for e in session.events:
        if isinstance(e, UserMessageEvent):
            rows.append(_row("user", _cut(e.payload.content), e.step, e.turn))
        elif isinstance(e, AssistantMessageEvent):
            if e.payload.content:
                rows.append(_row("assistant", _cut(e.payload.content), e.step, e.turn))
        elif isinstance(e, ToolCallEvent):
            call = e.payload
            args = call.raw_arguments if call.arguments is None else str(call.arguments)
            rows.append(_row("call", _cut(f"{call.name}({args})"), e.step, e.turn))
        elif isinstance(e, ToolResultEvent):
            r = e.payload
            tag = (
                f"[{r.error_class.value}{' injected' if r.injected else ''}] "
                if r.error_class
                else ""
            )
            rows.append(_row("result", _cut(f"{r.name} → {tag}{r.output}"), e.step, e.turn))
        elif isinstance(e, UserToolCallEvent):  # the user on its own tools (dual control)
            call = e.payload
            args = call.raw_arguments if call.arguments is None else str(call.arguments)
            rows.append(_row("call", _cut(f"user: {call.name}({args})"), e.step, e.turn))
        elif isinstance(e, UserToolResultEvent):
            r = e.payload
            tag = (
                f"[{r.error_class.value}{' injected' if r.injected else ''}] "
                if r.error_class
                else ""
            )
            rows.append(_row("result", _cut(f"user: {r.name} → {tag}{r.output}"), e.step, e.turn))
        elif isinstance(e, FaultInjectedEvent):
            f = e.payload
            whose = "the user's " if f.side == "user" else ""
            text = f"{f.error_class.value} on {whose}{f.tool} (committed: {f.committed})"
            rows.append(_row("fault", text, e.step, e.turn))
        elif isinstance(e, ProviderFaultEvent):
            p = e.payload
            fate = "absorbed by retries" if p.absorbed else "surfaced"
            text = f"model call {p.model_call} attempt {p.attempt}: {p.detail} ({fate})"
            rows.append(_row("fault", _cut(text), e.step, e.turn))
        elif isinstance(e, DriftAppliedEvent):
            rows.append(
                _row("drift", _cut(f"{e.payload.kind}: {e.payload.detail}"), e.step, e.turn)
            )
        elif isinstance(e, GuardDecisionEvent):
            g = e.payload
            text = f"{g.decision.value} {g.tool} (attempt {g.attempt}) {g.detail}"
            rows.append(_row("guard", _cut(text), e.step, e.turn))
        elif isinstance(e, AgentErrorEvent):
            text = f"{e.payload.error_class.value}: {e.payload.message}"
            rows.append(_row("error", _cut(text), e.step, e.turn))
    return rows


def event_rows(session: Session, traces: TraceCache | None = None) -> list[list[Any]]:
    """The session's events as drill-down rows, made once through `traces` when given (a
    run makes them as its sessions end, for its own report)."""
    return made_once(traces, "event rows", (session,), _event_rows)


def _criteria_rows(session: Session, traces: TraceCache | None) -> list[list[Any]]:
    return made_once(traces, "criteria rows", (session,), criteria_records)


def _gold_rows(
    session: Session, scenario: Scenario | None, traces: TraceCache | None
) -> list[list[str]] | None:
    return made_once(traces, "gold rows", (session, scenario), calls_record)


def warm_drill(session: Session, scenario: Scenario | None, traces: TraceCache) -> None:
    """Make into `traces` what `session_record` reads of a finished session: its event rows,
    criteria rows and gold calls (a run makes them as its sessions end, for its own report,
    while it waits on the model rather than after its last session)."""
    event_rows(session, traces)
    _criteria_rows(session, traces)
    _gold_rows(session, scenario, traces)


def session_key(session: Session) -> str:
    """The session's key in the page and its deep link: `RUN/SESSION`. Two runs of one suite
    name their sessions alike, so the session id alone would open the other run's."""
    return f"{session.run_id}/{session.session_id}"


def session_record(
    session: Session,
    survival: SessionSurvival | None,
    traces: TraceCache | None = None,
    scenario: Scenario | None = None,
) -> dict[str, Any]:
    """The drill-down of one session, as JSON the page renders with textContent only: its
    verdict, each criterion with its evidence, the gold calls beside the calls made (when
    `scenario` is given), its first divergence and its events."""
    div = survival.divergence if survival else None
    record: dict[str, Any] = {
        "key": session_key(session),
        "run": session.run_id,
        "scenario": session.scenario_id,
        "trial": session.trial,
        "arm": session.arm,
        "verdict": verdict(session),
        "criteria": _criteria_rows(session, traces),
        "termination": f"{session.termination.value} {session.termination_detail}".strip(),
        "divergence": None
        if div is None
        else {"step": div.step, "kind": div.kind.value, "detail": _cut(div.detail)},
        "events": event_rows(session, traces),
    }
    # Left out when empty: a 1,000-session page would carry them a thousand times.
    if session.outcome is not None and session.outcome.not_judged is not None:
        record["not_judged"] = session.outcome.not_judged
    calls = _gold_rows(session, scenario, traces)
    if calls is not None:
        record["calls"] = calls
    return record


def survivals(run: ReportRun) -> dict[str, SessionSurvival]:
    """Per-session survival of every arm, by session id."""
    out: dict[str, SessionSurvival] = {}
    for report in run.arms.values():
        if report.survival is not None:
            out.update({s.session_id: s for s in report.survival.per_session})
    return out


def all_sessions(runs: Sequence[ReportRun]) -> list[dict[str, Any]]:
    """Every session of every run, as drill-down records (the page indexes them by
    `RUN/SESSION`, never by session id alone)."""
    out = []
    for run in runs:
        by_id = survivals(run)
        out += [
            session_record(s, by_id.get(s.session_id), run.traces, run.scenarios.get(s.scenario_id))
            for s in run.sessions
        ]
    return out
