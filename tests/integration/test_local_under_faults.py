"""The embedded local model (a real llama.cpp server) under faults and drift, end to end."""

from __future__ import annotations

import pytest

from sessionproof.agents._local import LocalAgent, LocalConfig, default_model_path
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import SessionHooks, execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import EventKind, Scenario
from sessionproof.scoring._internal import error_recovery
from sessionproof.suites import load_suite

pytestmark = [pytest.mark.llama, pytest.mark.slow]  # a real llama.cpp server
pytest.importorskip("xllamacpp")

ARMS = ["faults=timeout:40%,server_error:40% drift=rename_param", "faults=rate_limited:60% guard"]


def hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    return hooks_for(
        parse_arm(arm), seed, prefer_tools=[a.tool for a in scenario.criteria.gold_actions]
    )


async def test_local_model_run_under_faults_and_drift_completes() -> None:
    try:
        config = LocalConfig(model_path=default_model_path(), max_tokens=64)
    except Exception as exc:
        pytest.skip(f"SmolLM2 weights not installed: {exc}")
    # Prompted mode with a required tool call: every reply is a call, so faults are met.
    agent = LocalAgent(config, tool_mode="prompted", tool_choice="required")
    suite = load_suite("demo").limited(1)
    sink = SessionList()
    plan = RunPlan(run_id="local-faults", arms=ARMS, seed=3, concurrency=1, max_steps=4)
    try:
        await execute_run(suite, agent, plan, sink, hooks_for=hooks)
    finally:
        await agent.aclose()

    assert len(sink.sessions) == 2
    assert not any(s.infra_error for s in sink.sessions)
    for arm in ARMS:
        sessions = [s for s in sink.sessions if s.arm == arm]
        faults = [e for s in sessions for e in s.of_kind(EventKind.fault_injected)]
        report = error_recovery(sessions)
        assert faults, f"no fault met under {arm}"
        # Every injected fault: once in the trace, once in the recovery count.
        assert report.injected.failures == len(faults)
        ids = [(e.session_id, e.payload.call_id, e.payload.attempt) for e in faults]
        assert len(set(ids)) == len(ids)
    drifted = [s for s in sink.sessions if s.arm == ARMS[0]]
    assert all(s.of_kind(EventKind.drift_applied) for s in drifted)
