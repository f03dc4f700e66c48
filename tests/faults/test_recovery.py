"""Error-recovery rate on constructed sessions, one rule at a time."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sessionproof.records import (
    ErrorClass,
    Event,
    EventKind,
    Message,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
)
from sessionproof.records._internal import make_event
from sessionproof.scoring._internal import error_recovery


class Trace:
    """Builds a session's events in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def _add(self, kind: EventKind, payload: dict[str, Any]) -> Trace:
        n = len(self.events)
        self.events.append(
            make_event(
                kind,
                payload,
                run_id="r",
                session_id="s",
                seq=n,
                turn=0,
                step=n,
                t_wall=0.0,
                t_mono=0.0,
            )
        )
        return self

    def call(self, call_id: str, name: str, **args: Any) -> Trace:
        return self._add(
            EventKind.tool_call, ToolCall(id=call_id, name=name, arguments=args).model_dump()
        )

    def result(
        self, call_id: str, name: str, error: ErrorClass | None = None, injected: bool = False
    ) -> Trace:
        result = ToolResult(
            call_id=call_id,
            name=name,
            output="Error: x" if error else "{}",
            error_class=error,
            injected=injected,
        )
        return self._add(EventKind.tool_result, result.model_dump(mode="json"))

    def fault(self, call_id: str, name: str, error: ErrorClass) -> Trace:
        return self._add(
            EventKind.fault_injected,
            {"call_id": call_id, "tool": name, "error_class": error.value, "committed": False},
        )

    def decision(
        self, call_id: str, decision: str, error: ErrorClass | None, injected: bool = False
    ) -> Trace:
        return self._add(
            EventKind.guard_decision,
            {
                "call_id": call_id,
                "tool": "t",
                "decision": decision,
                "error_class": error.value if error else None,
                "attempt": 1,
                "wait_s": 0.0,
                "detail": "",
                "injected": injected,
            },
        )

    def say(self, text: str | None) -> Trace:
        return self._add(
            EventKind.assistant_message, Message.assistant(text).model_dump(mode="json")
        )

    def session(self, termination: TerminationReason = TerminationReason.agent_stop) -> Session:
        return Session(
            run_id="r",
            session_id="s",
            scenario_id="sc",
            trial=0,
            events=self.events,
            termination=termination,
        )


E = ErrorClass


def _one(trace: Trace) -> tuple[int, int]:
    report = error_recovery([trace.session()])
    return report.overall.failures, report.overall.recovered


def test_injected_fault_left_alone_is_not_recovered() -> None:
    t = Trace().call("c1", "get", id=1).fault("c1", "get", E.rate_limited)
    t.result("c1", "get", E.rate_limited, injected=True).say("Sorry, it failed.")
    # Speaking is not enough for a retryable class: the job was not done.
    assert _one(t) == (1, 0)


def test_guard_retry_that_succeeds_recovers() -> None:
    t = Trace().call("c1", "get", id=1).fault("c1", "get", E.unavailable)
    t.decision("c1", "retry", E.unavailable, injected=True).result("c1", "get")
    report = error_recovery([t.session()])
    assert (report.injected.failures, report.injected.recovered) == (1, 1)
    assert (
        report.natural.failures == 0
    )  # the guard's retry of an injected fault is not double-counted


def test_agent_resending_the_same_call_recovers() -> None:
    t = Trace().call("c1", "get", id=1).fault("c1", "get", E.timeout)
    t.result("c1", "get", E.timeout, injected=True)
    t.call("c2", "get", id=1).result("c2", "get")
    assert _one(t) == (1, 1)


def test_resending_with_other_arguments_does_not_count() -> None:
    t = Trace().call("c1", "get", id=1).fault("c1", "get", E.timeout)
    t.result("c1", "get", E.timeout, injected=True)
    t.call("c2", "get", id=2).result("c2", "get")
    t.call("c3", "other", id=1).result("c3", "other")
    assert _one(t) == (1, 0)


def test_argument_errors_recover_by_fixing_the_call() -> None:
    fixed = Trace().call("c1", "get", id="x").result("c1", "get", E.validation_error)
    fixed.call("c2", "get", id=1).result("c2", "get")
    assert _one(fixed) == (1, 1)
    spoke_only = Trace().call("c1", "get", id="x").result("c1", "get", E.validation_error)
    spoke_only.say("Done.")
    assert _one(spoke_only) == (1, 0)  # the agent's own call was wrong: talking is no fix


def test_not_found_recovers_by_informing() -> None:
    t = Trace().call("c1", "get", id=9).result("c1", "get", E.not_found).say("No order 9.")
    assert _one(t) == (1, 1)
    silent = Trace().call("c1", "get", id=9).result("c1", "get", E.not_found).say(None)
    assert _one(silent) == (1, 0)  # a message with only tool calls (or nothing) says nothing


def test_escalation_by_transfer_recovers() -> None:
    t = Trace().call("c1", "pay", amount=3).fault("c1", "pay", E.auth_expired)
    t.decision("c1", "escalate", E.auth_expired, injected=True)
    t.result("c1", "pay", E.auth_expired, injected=True)
    t.call("c2", "transfer_to_human_agents", summary="token expired")
    assert _one(t) == (1, 1)
    stuck = Trace().call("c1", "pay", amount=3).fault("c1", "pay", E.auth_expired)
    stuck.result("c1", "pay", E.auth_expired, injected=True)
    assert _one(stuck) == (1, 0)


def test_unsafe_write_informed_counts_through_the_guard_decision() -> None:
    t = Trace().call("c1", "pay", amount=3).fault("c1", "pay", E.timeout)
    t.decision("c1", "no_retry_write", E.timeout, injected=True)
    t.result("c1", "pay", E.timeout, injected=True).say("It may have gone through; checking.")
    assert _one(t) == (1, 1)


def test_natural_failures_absorbed_by_the_guard_count() -> None:
    t = Trace().call("c1", "get", id=1).decision("c1", "retry", E.server_error)
    t.decision("c1", "retry", E.server_error).result("c1", "get")
    report = error_recovery([t.session()])
    assert (report.natural.failures, report.natural.recovered) == (2, 2)
    assert report.by_class["server_error"].rate == 1.0


def test_by_class_and_overall_add_up() -> None:
    a = Trace().call("c1", "get", id=1).fault("c1", "get", E.timeout)
    a.result("c1", "get", E.timeout, injected=True)
    b = Trace().call("c1", "get", id=1).fault("c1", "get", E.rate_limited)
    b.decision("c1", "retry", E.rate_limited, injected=True).result("c1", "get")
    report = error_recovery([a.session(), b.session()])
    assert report.sessions == 2
    assert report.overall.failures == 2 and report.overall.recovered == 1
    assert report.rate == pytest.approx(0.5)
    assert report.by_class["timeout"].rate == 0.0
    assert report.by_class["rate_limited"].rate == 1.0
    summary = report.summary()
    assert summary["error_recovery_rate"] == pytest.approx(0.5)
    assert summary["injected_failures"] == 2


def test_infra_error_sessions_are_left_out() -> None:
    t = Trace().call("c1", "get", id=1).fault("c1", "get", E.timeout)
    report = error_recovery([t.session(TerminationReason.infra_error)])
    assert report.excluded_infra == 1 and report.sessions == 0
    assert report.overall.failures == 0 and report.rate is None


def test_no_sessions_no_rate() -> None:
    report = error_recovery([])
    assert report.rate is None and report.by_class == {}


def test_broken_event_payloads_are_refused_before_scoring() -> None:
    # Payloads are typed: a fault with an unknown class, or a guard decision naming no tool,
    # cannot become an event at all, so scoring never meets one (a store holding one says
    # so when read: tests/store/test_store_compat.py).
    t = Trace()
    with pytest.raises(ValidationError, match="error_class"):
        t._add(EventKind.fault_injected, {"error_class": "not_a_class"})
    with pytest.raises(ValidationError, match="tool"):
        t._add(EventKind.guard_decision, {"decision": "retry"})
    report = error_recovery([t.session()])
    assert report.overall.failures == 0 and report.overall.recovered == 0
