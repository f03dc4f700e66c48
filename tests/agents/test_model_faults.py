"""Faults at the model boundary: the plan's grammar and draws, and whole runs against the
loopback fake OpenAI-compatible server (tests/agents/fakeprovider.py).

The agent is the real OpenAI-compatible adapter; the faults are served in its SDK's own
error types, so its real retry loop meets them. It also plays the simulated user, whose
requests run outside the model-fault scope and are never faulted.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from sessionproof.agents._retry import RetryPolicy
from sessionproof.conditions import parse_arm
from sessionproof.errors import ConfigError
from sessionproof.faults import ModelFaultPlan
from sessionproof.records import ErrorClass, EventKind, Session, TerminationReason
from sessionproof.records._internal import ProviderFaultKind
from sessionproof.runs import RunConfig, RunReport, export_traces, import_traces, run
from sessionproof.store import Store

from .conftest import compat_agent
from .fakeprovider import FakeProvider, Reply, Seen, completion

PATIENT = RetryPolicy(attempts=12, wait_initial=0.001, wait_max=0.005, wait_jitter=0.0)
"""Retries enough to absorb any run of faults these tests draw; waits kept short."""


# --- grammar ------------------------------------------------------------------------------


def test_the_spec_reads_kinds_rates_and_bursts() -> None:
    plan = ModelFaultPlan.parse(" 429x3:2%, 5xx:2% ,timeout:1%,cut_stream:1%,bad_args:0.5% ")
    assert plan.spec == "429x3:2%,5xx:2%,timeout:1%,cut_stream:1%,bad_args:0.5%"
    assert plan.rates == {
        ProviderFaultKind.rate_limited: 0.02,
        ProviderFaultKind.server_error: 0.02,
        ProviderFaultKind.timeout: 0.01,
        ProviderFaultKind.cut_stream: 0.01,
        ProviderFaultKind.bad_args: 0.005,
    }
    assert plan.bursts[ProviderFaultKind.rate_limited] == 3
    assert plan.bursts[ProviderFaultKind.server_error] == 1
    assert ModelFaultPlan.parse("5xxx2:10%").bursts == {ProviderFaultKind.server_error: 2}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty model-fault spec"),
        ("429", "needs KIND:RATE"),
        ("503:2%", "unknown kind '503'"),
        ("bad_arg:2%", "did you mean 'bad_args'"),
        ("bad_argsx2:2%", "bad_args takes no burst"),
        ("429x0:2%", "a burst is 1 to 20"),
        ("429:two", "is not a rate"),
        ("429:60%,5xx:50%", "more than 100%"),
        ("429:1%,429x2:1%", "given twice"),
    ],
)
def test_a_bad_spec_is_one_clear_error(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ModelFaultPlan.parse(spec)


def test_an_arm_carries_model_faults_apart_from_tool_faults() -> None:
    arm = parse_arm("faults=3%  model_faults=429x2:5%,bad_args:1%")
    assert arm.name == "faults=3% model_faults=429x2:5%,bad_args:1%"
    assert arm.faults is not None and arm.model_faults is not None
    assert arm.model_faults.rates[ProviderFaultKind.bad_args] == 0.01
    assert not arm.baseline
    with pytest.raises(ConfigError, match="model_faults= is given twice"):
        parse_arm("model_faults=429:1% model_faults=5xx:1%")


def test_draws_are_keyed_and_a_burst_covers_the_attempts_after_it() -> None:
    plan = ModelFaultPlan.parse("429x3:20%,5xx:10%")
    key = (7, "scenario-a", 0)
    drawn = {
        (call, attempt): plan.fault_at(*key, call, attempt)
        for call in range(200)
        for attempt in range(8)
    }
    # The same key gives the same fault, and a fresh plan object draws the same.
    again = ModelFaultPlan.parse("429x3:20%,5xx:10%")
    assert all(again.fault_at(*key, c, a) == f for (c, a), f in drawn.items())
    # Every attempt that itself draws a 429 is followed by two more 429s in the same call.
    own = [k for k in drawn if plan._drawn(*key, *k) is ProviderFaultKind.rate_limited]
    assert len(own) > 100
    for call, attempt in own:
        for later in (attempt + 1, attempt + 2):
            if later < 8 and plan._drawn(*key, call, later) is None:
                assert drawn[(call, later)] is ProviderFaultKind.rate_limited
    counts = Counter(drawn.values())
    assert counts[ProviderFaultKind.server_error] > 0 and counts[None] > 0
    # Another scenario draws differently.
    other = [plan.fault_at(7, "scenario-b", 0, c, 0) for c in range(200)]
    assert other != [drawn[(c, 0)] for c in range(200)]


# --- whole runs against the loopback fake provider ------------------------------------------


def _responder(seen: Seen) -> Reply:
    """The agent's first request of a turn gets a tool call, the next a text reply; the user
    (a request without tools) talks until the conversation is long, then stops."""
    messages = seen.body.get("messages", [])
    if seen.body.get("tools"):
        if messages[-1]["role"] == "user":
            call = ("call_1", "get_user_details", {"user_id": "mia_li_3668"})
            return Reply(completion(None, [call], finish_reason="tool_calls"))
        return Reply(completion("Your profile is in order. Anything else?"))
    long = len(messages) > 6
    return Reply(completion("Thanks, that is all. ###STOP###" if long else "And my bookings?"))


@pytest.fixture
def provider() -> Any:
    server = FakeProvider(responder=_responder).start()
    yield server
    server.stop()


def _report(
    provider: FakeProvider, arms: list[str], seed: int = 1, policy: RetryPolicy = PATIENT
) -> RunReport:
    agent = compat_agent(provider, retry=policy)
    return run(RunConfig(suite="tau2-airline", model=agent, limit=3, arms=arms, seed=seed))


def _run(provider: FakeProvider, arms: list[str], seed: int = 1) -> list[Session]:
    return list(_report(provider, arms, seed).sessions)


def _faults(session: Session) -> list[dict[str, Any]]:
    return [
        e.payload.model_dump(mode="json")
        for e in session.events
        if e.kind is EventKind.provider_fault
    ]


def _by_id(sessions: list[Session]) -> dict[str, list[dict[str, Any]]]:
    return {s.session_id: _faults(s) for s in sessions}


ALL_KINDS = "model_faults=429x2:10%,5xx:10%,timeout:5%,cut_stream:5%,bad_args:30%"


@pytest.mark.slow
def test_the_same_seed_serves_the_same_faults(provider: FakeProvider) -> None:
    first = _by_id(_run(provider, [ALL_KINDS], seed=1))
    second = _by_id(_run(provider, [ALL_KINDS], seed=1))
    other = _by_id(_run(provider, [ALL_KINDS], seed=2))
    assert first == second
    served = [f for faults in first.values() for f in faults]
    assert {f["fault"] for f in served} >= {"429", "5xx", "bad_args"}
    assert other != first


@pytest.mark.slow
def test_429_and_5xx_absorbed_by_retries_are_no_agent_failure(provider: FakeProvider) -> None:
    arm = "model_faults=429x3:25%,5xx:25%"
    sessions = _run(provider, ["baseline", arm])
    faulted = [s for s in sessions if s.arm == arm]
    baseline = {s.scenario_id: s for s in sessions if s.arm == "baseline"}
    served = [f for s in faulted for f in _faults(s)]
    assert len(served) >= 5 and {f["fault"] for f in served} == {"429", "5xx"}
    assert all(f["absorbed"] for f in served)
    for session in faulted:
        assert not [e for e in session.events if e.kind is EventKind.agent_error]
        # Paired with its baseline session: the same conversation, the same end.
        twin = baseline[session.scenario_id]
        assert session.termination == twin.termination
        assert session.outcome.success == twin.outcome.success
        calls = [e.payload for e in session.events if e.kind is EventKind.model_call]
        # Each fault cost its model call one attempt more (the users' calls met none).
        assert sum(c.attempts for c in calls) - len(calls) == len(_faults(session))
    assert not [e for s in sessions if s.arm == "baseline" for e in _faults(s)]


@pytest.mark.slow
def test_exhausted_retries_end_the_session_as_infra_error(provider: FakeProvider) -> None:
    policy = RetryPolicy(attempts=3, wait_initial=0.001, wait_max=0.002, wait_jitter=0.0)
    report = _report(provider, ["model_faults=5xx:100%"], policy=policy)
    # Excluded from accuracy and counted apart: neither a pass nor a failure.
    assert report.summary.infra_errors == report.summary.sessions == 3
    assert report.summary.session_accuracy is None
    for session in report.sessions:
        assert session.termination is TerminationReason.infra_error
        faults = _faults(session)
        assert [(f["model_call"], f["attempt"]) for f in faults] == [(0, 0), (0, 1), (0, 2)]
        assert not any(f["absorbed"] for f in faults)
        assert not [e for e in session.events if e.kind is EventKind.agent_error]
    # --json says the same, by boundary, fate and kind.
    (arm,) = report.arms
    assert report.to_json()["fault_boundaries"] == {
        arm: {
            "tool": {"absorbed": {}, "surfaced": {}},
            "model": {"absorbed": {}, "surfaced": {"5xx": 9}},
            "infra_errors": 3,
        }
    }
    # Only the users' requests reached the server: the agent's never left the client.
    assert provider.posts() and not [p for p in provider.posts() if p.body.get("tools")]


@pytest.mark.slow
def test_truncated_arguments_are_the_agents_malformed_output(provider: FakeProvider) -> None:
    sessions = _run(provider, ["model_faults=bad_args:100%"])
    for session in sessions:
        assert session.termination is not TerminationReason.infra_error
        faults = _faults(session)
        assert faults and all(f["fault"] == "bad_args" and not f["absorbed"] for f in faults)
        errors = [e.payload for e in session.events if e.kind is EventKind.agent_error]
        assert len(errors) == len(faults)
        assert {e.error_class for e in errors} == {ErrorClass.malformed_output}
        calls = [
            call
            for e in session.events
            if e.kind is EventKind.assistant_message
            for call in e.payload.tool_calls
        ]
        # What the agent's record holds is the damaged text, unparsed.
        assert calls and all(c.parse_error for c in calls)
        for call in calls:
            with pytest.raises(orjson.JSONDecodeError):
                orjson.loads(call.raw_arguments or "")


@pytest.mark.slow
def test_provider_faults_survive_an_otlp_export_and_import(
    provider: FakeProvider, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    agent = compat_agent(provider, retry=PATIENT)
    config = RunConfig(
        suite="tau2-airline", model=agent, limit=3, arms=[ALL_KINDS], seed=1, store=store
    )
    report = run(config)
    trace = tmp_path / "t.json"
    export_traces(report.run_id, store=store, output=trace)
    imported = import_traces(trace, store=tmp_path / "back.duckdb")
    with Store.open_for_reading(tmp_path / "back.duckdb") as db:
        back = db.load_sessions(imported.run_id)
    original = sorted(f for s in report.sessions for f in map(orjson.dumps, _faults(s)))
    assert original  # the run served faults, and the trace carried every one back
    assert sorted(f for s in back for f in map(orjson.dumps, _faults(s))) == original


def test_a_run_without_faults_has_no_boundary_key() -> None:
    report = run(RunConfig(suite="demo", model="oracle", limit=1))
    assert "fault_boundaries" not in report.to_json()


def test_model_faults_for_an_agent_without_provider_requests_are_refused() -> None:
    with pytest.raises(ConfigError, match="model faults need a provider model"):
        run(RunConfig(suite="demo", model="oracle", limit=1, model_faults="5xx:5%"))
