"""Error-recovery rate: after a tool failure, was the job still done (or honestly handed on)?

The unit is one failed attempt. The failures of a session are:

1. every `fault_injected` event (one per injected fault, retried attempts included);
2. every `guard_decision` with decision `retry` on a failure that was not injected (a
   natural failure the guard absorbed before the agent saw it);
3. every `tool_result` with an error class that is not injected (a natural failure the
   agent saw — including the guard's own answers: repair hints, breaker_open).

A failure on call C (tool T, arguments A, class K) is **recovered** when, later in the
session, any of these holds:

(a) *retried*: C's final `tool_result` is a success (a guard retry succeeded);
(b) *effect achieved*: a `tool_result` of another call of T with arguments equal to A is a
    success; for `validation_error` and `not_found`, whose cause is the arguments
    themselves, a success of T with any arguments counts (the agent fixed its call);
(c) *informed or escalated*: K is not safely retryable for C — the taxonomy says it is not
    retryable, or the guard decided `no_retry_write`, `escalate` or `breaker_open` on C — and
    an assistant message with text, or a call of a `transfer*` tool, follows the failure.
    `validation_error` is excluded from (c): the agent's own call was wrong, and only fixing
    it (b) recovers. The rule cannot judge what the text says, only that the agent spoke
    instead of going on silently.

Sessions that ended as `infra_error` are left out (the session was cut short, not judged),
as they are from accuracy. Rates are None when there is no failure to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..records import (
    AssistantMessageEvent,
    ErrorClass,
    Session,
    ToolCall,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
)
from ..records._internal import Decision, FaultInjectedEvent, GuardDecisionEvent
from ..taxonomy import semantics
from ._trace import TraceCache, made_once

RECOVERY_DEFINITION = (
    "share of tool failures (injected or natural) after which the failed operation's effect "
    "was still achieved, or the agent correctly informed or escalated for a non-retryable "
    "class; by error class in recovery_by_class."
)
"""The definition of `error_recovery_rate`, printed with its numbers and the arms table."""

_NOT_RETRYABLE_DECISIONS = frozenset({"no_retry_write", "escalate", "breaker_open"})
_ARGUMENT_CLASSES = frozenset({ErrorClass.validation_error, ErrorClass.not_found})


class ClassRecovery(BaseModel):
    """Failures and recoveries of one group (a class, or all)."""

    model_config = ConfigDict(extra="forbid")

    failures: int = 0
    recovered: int = 0

    @property
    def rate(self) -> float | None:
        """recovered / failures; None without failures."""
        return self.recovered / self.failures if self.failures else None


class RecoveryReport(BaseModel):
    """Error-recovery rate over sessions: overall, injected vs natural, and by error class."""

    model_config = ConfigDict(extra="forbid")

    overall: ClassRecovery = Field(default_factory=ClassRecovery)
    injected: ClassRecovery = Field(default_factory=ClassRecovery)
    """Failures injected by a fault plan (one per `fault_injected` event)."""
    natural: ClassRecovery = Field(default_factory=ClassRecovery)
    by_class: dict[str, ClassRecovery] = Field(default_factory=dict)
    sessions: int = 0
    """Sessions judged."""
    excluded_infra: int = 0
    """Sessions left out because they ended as infra_error."""

    @property
    def rate(self) -> float | None:
        """The error-recovery rate (recovered / failures), None without failures."""
        return self.overall.rate

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers for the arms summary."""
        return {
            "error_recovery_rate": self.rate,
            "failures": self.overall.failures,
            "recovered": self.overall.recovered,
            "injected_failures": self.injected.failures,
            "recovery_by_class": {
                k: {"failures": v.failures, "recovered": v.recovered, "rate": v.rate}
                for k, v in sorted(self.by_class.items())
            },
        }


@dataclass(frozen=True)
class _Failure:
    index: int
    call_id: str
    error_class: ErrorClass
    injected: bool


class _SessionView:
    """The parts of one session's events the rule needs, indexed once."""

    def __init__(self, session: Session) -> None:
        self.calls: dict[str, ToolCall] = {}
        self.results: list[tuple[int, ToolResult]] = []
        self.final: dict[str, tuple[int, ToolResult]] = {}
        self.spoke: list[int] = []
        self.decisions: dict[str, set[str]] = {}
        self.failures: list[_Failure] = []
        for i, event in enumerate(session.events):
            if isinstance(event, ToolCallEvent):
                call = event.payload
                self.calls[call.id] = call
                if call.name.startswith("transfer"):
                    self.spoke.append(i)
            elif isinstance(event, ToolResultEvent):
                result = event.payload
                self.results.append((i, result))
                self.final[result.call_id] = (i, result)
                if result.error_class is not None and not result.injected:
                    self.failures.append(_Failure(i, result.call_id, result.error_class, False))
            elif isinstance(event, AssistantMessageEvent) and event.payload.content:
                self.spoke.append(i)
            elif isinstance(event, FaultInjectedEvent) and event.payload.side == "agent":
                fault = event.payload
                self.failures.append(_Failure(i, fault.call_id, fault.error_class, True))
            elif isinstance(event, GuardDecisionEvent):
                decided = event.payload
                call_id = str(decided.call_id)
                self.decisions.setdefault(call_id, set()).add(decided.decision.value)
                if decided.decision is Decision.retry and not decided.injected:
                    cls = decided.error_class or ErrorClass.unknown
                    self.failures.append(_Failure(i, call_id, cls, False))

    def recovered(self, failure: _Failure) -> bool:
        final = self.final.get(failure.call_id)
        if final is not None and final[0] > failure.index and final[1].ok:
            return True  # (a)
        call = self.calls.get(failure.call_id)
        if call is not None:
            any_args = failure.error_class in _ARGUMENT_CLASSES
            for index, result in self.results:
                if index <= failure.index or not result.ok or result.call_id == call.id:
                    continue
                other = self.calls.get(result.call_id)
                if (
                    other is not None
                    and other.name == call.name
                    and (any_args or other.arguments == call.arguments)
                ):
                    return True  # (b)
        unsafe = failure.call_id in self.decisions and bool(
            self.decisions[failure.call_id] & _NOT_RETRYABLE_DECISIONS
        )
        if failure.error_class is ErrorClass.validation_error:
            return False
        if not semantics(failure.error_class).retryable or unsafe:
            return any(i > failure.index for i in self.spoke)  # (c)
        return False


def failures_of(session: Session, traces: TraceCache | None = None) -> list[tuple[bool, str, bool]]:
    """(injected, error class, recovered) of each failure the session met, in order (made
    once through `traces` when given)."""
    return made_once(traces, "recovery", (session,), _failures)


def _failures(session: Session) -> list[tuple[bool, str, bool]]:
    view = _SessionView(session)
    return [(f.injected, f.error_class.value, view.recovered(f)) for f in view.failures]


def error_recovery(sessions: Sequence[Session], traces: TraceCache | None = None) -> RecoveryReport:
    """The error-recovery report of `sessions` (the rule is in this module's docstring);
    `traces`: what was made of the sessions already (`failures_of` each)."""
    report = RecoveryReport()
    for session in sessions:
        if session.infra_error:
            report.excluded_infra += 1
            continue
        report.sessions += 1
        for injected, error_class, ok in failures_of(session, traces):
            groups = [
                report.overall,
                report.injected if injected else report.natural,
                report.by_class.setdefault(error_class, ClassRecovery()),
            ]
            for group in groups:
                group.failures += 1
                group.recovered += int(ok)
    return report
