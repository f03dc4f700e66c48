"""Arms end to end: the oracle (no error handling of its own) on the demo suite.

Without faults it is always right; safe-to-retry faults make it fail; the guard brings it
back; fatal classes are escalated, not looped on. The runs are seeded, so every number here
is reproducible, and the claims are checked as relations between arms.
"""

from __future__ import annotations

from collections import Counter

import pytest

from sessionproof.agents import OracleAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import SessionHooks, execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import EventKind, Scenario, Session
from sessionproof.scoring._internal import error_recovery
from sessionproof.suites import load_suite

SAFE = "faults=rate_limited:5%,unavailable:5%"
FATAL = "faults=auth_expired:10%,policy_refusal:5% guard"
ARMS = ["baseline", SAFE, f"{SAFE} guard", FATAL]


def _hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    return hooks_for(parse_arm(arm), seed)


@pytest.fixture(scope="module")
def by_arm() -> dict[str, list[Session]]:
    import asyncio

    sink = SessionList()
    plan = RunPlan(run_id="arms", trials=3, arms=ARMS, seed=11, concurrency=2)
    asyncio.run(execute_run(load_suite("demo"), OracleAgent(), plan, sink, hooks_for=_hooks))
    out: dict[str, list[Session]] = {arm: [] for arm in ARMS}
    for session in sink.sessions:
        out[session.arm].append(session)
    return out


def _accuracy(sessions: list[Session]) -> float:
    return sum(s.success for s in sessions) / len(sessions)


@pytest.mark.slow
def test_safe_faults_hurt_and_the_guard_repairs(by_arm: dict[str, list[Session]]) -> None:
    assert _accuracy(by_arm["baseline"]) == 1.0
    faulted = _accuracy(by_arm[SAFE])
    guarded = _accuracy(by_arm[f"{SAFE} guard"])
    assert faulted < 1.0
    assert guarded >= 0.99
    assert guarded > faulted


def test_same_faults_meet_every_arm(by_arm: dict[str, list[Session]]) -> None:
    def first_attempts(sessions: list[Session]) -> set[tuple[str, int, str, str]]:
        return {
            (s.scenario_id, s.trial, e.payload.call_id, e.payload.error_class)
            for s in sessions
            for e in s.of_kind(EventKind.fault_injected)
            if e.payload.attempt == 0
        }

    plain = first_attempts(by_arm[SAFE])
    assert plain and plain == first_attempts(by_arm[f"{SAFE} guard"])


def test_every_injected_fault_is_counted_once(by_arm: dict[str, list[Session]]) -> None:
    for arm in (SAFE, f"{SAFE} guard", FATAL):
        sessions = by_arm[arm]
        injected = sum(len(s.of_kind(EventKind.fault_injected)) for s in sessions)
        report = error_recovery(sessions)
        assert injected > 0 and report.injected.failures == injected
    assert error_recovery(by_arm[f"{SAFE} guard"]).injected.rate == 1.0
    assert error_recovery(by_arm[SAFE]).injected.rate == 0.0


def test_fatal_classes_escalate_instead_of_looping(by_arm: dict[str, list[Session]]) -> None:
    escalated = 0
    for session in by_arm[FATAL]:
        per_call = Counter(e.payload.call_id for e in session.of_kind(EventKind.fault_injected))
        assert all(n == 1 for n in per_call.values())  # never re-sent
        decisions = {
            e.payload.call_id: e.payload.decision for e in session.of_kind(EventKind.guard_decision)
        }
        for call_id in per_call:
            assert decisions[call_id] == "escalate"
            escalated += 1
        for result in session.tool_results():
            if result.injected:
                assert "transfer to a human agent" in result.output
    assert escalated > 0
