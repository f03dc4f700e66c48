"""External agents: `http-agent:URL` and `mcp-agent:COMMAND` — a small real agent (its own
loop over the `openai` SDK against a fake OpenAI-compatible server on loopback) calling the
session's tools over MCP, scored end to end; and every way such an agent can break."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.agents import make_agent
from sessionproof.cli._internal import app
from sessionproof.errors import ModelSpecError
from sessionproof.records import ErrorClass, Session, TerminationReason
from sessionproof.records._internal import AgentErrorEvent

from ..agents.fakeprovider import FakeProvider, Reply, completion
from .openai_mcp_agent import AgentServer

AGENT = Path(__file__).parent / "openai_mcp_agent.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    result = CliRunner().invoke(app, ["init", str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    """The fake model the agent asks, scripted to do the scaffold's three tasks in order."""
    fake = FakeProvider().start()
    monkeypatch.setenv("FAKE_OPENAI_URL", fake.url)
    try:
        yield fake
    finally:
        fake.stop()


def _tool(call_id: str, name: str, **args: str) -> Reply:
    return Reply(completion(tool_calls=[(call_id, name, args)], finish_reason="tool_calls"))


def _say(text: str) -> Reply:
    return Reply(completion(text))


ORDER_STATUS = [_tool("c1", "get_order", order_id="O1001"), _say("O1001 has shipped.")]
CANCEL = [
    _tool("c2", "get_order", order_id="O1002"),
    _tool("c3", "cancel_order", order_id="O1002", reason="ordered_by_mistake"),
    _say("Order O1002 is cancelled."),
]
MOVED = [
    _tool("c4", "update_address", order_id="O1003", address="22 Birch Road"),
    _say("Your address is updated."),
    _tool("c5", "cancel_order", order_id="O1003", reason="changed_mind"),
    _say("Cancelled as you asked."),
]


def _run(project: Path, spec: str, **extra: object) -> dict[str, Session]:
    config = runs.RunConfig(suite=str(project), model=spec, concurrency=1, **extra)
    report = runs.run(config)
    return {s.scenario_id: s for s in report.sessions}


def _check_scored(sessions: dict[str, Session]) -> None:
    assert set(sessions) == {"order-status", "cancel-teapot", "moved-house"}
    for session in sessions.values():
        assert session.outcome is not None and session.outcome.success, session.outcome
    # The calls made over MCP are the session's tool calls and results, as in a run.
    cancel = sessions["cancel-teapot"]
    assert [c.name for c in cancel.tool_calls()] == ["get_order", "cancel_order"]
    assert '"cancelled"' in cancel.tool_results()[1].output
    assert sessions["moved-house"].termination is TerminationReason.user_stop


@pytest.mark.slow
def test_http_agent_calls_the_served_tools_and_is_scored(
    project: Path, model: FakeProvider, tmp_path: Path
) -> None:
    model.push(*ORDER_STATUS, *CANCEL, *MOVED)
    store = tmp_path / "s.duckdb"
    with AgentServer() as agent:
        config = runs.RunConfig(
            suite=str(project), model=f"http-agent:{agent.url}", concurrency=1, store=store
        )
        report = runs.run(config)
        turns = list(agent.turns)
    sessions = {s.scenario_id: s for s in report.sessions}
    _check_scored(sessions)
    # The stored run's metrics read the calls made over MCP like any agent's.
    (arm,) = runs.metrics(report.run_id, store).arms.values()
    assert arm.summary.session_accuracy == 1.0
    assert arm.calls is not None and arm.calls.calls == 5
    assert arm.calls.call_validity_rate == 1.0
    assert len(turns) == 4  # one POST per user turn
    assert {t["session_id"] for t in turns} == {s.session_id for s in sessions.values()}
    # Each session had its own MCP server.
    assert len({t["mcp_url"] for t in turns}) == 3
    # The model saw the tools the MCP server listed, and the tool results.
    first = model.posts()[0].body
    assert {t["function"]["name"] for t in first["tools"]} >= {"get_order", "cancel_order"}
    assert model.posts()[1].body["messages"][-1]["role"] == "tool"


@pytest.mark.slow
def test_mcp_agent_process_per_session_is_scored(project: Path, model: FakeProvider) -> None:
    model.push(*ORDER_STATUS, *CANCEL, *MOVED)
    sessions = _run(project, f"mcp-agent:python {AGENT} stdio")
    _check_scored(sessions)


@pytest.mark.slow
def test_faults_reach_an_external_agent(project: Path, model: FakeProvider) -> None:
    model.push(*ORDER_STATUS)
    sessions = _run(project, f"mcp-agent:python {AGENT} stdio", faults="100%", limit=1)
    (result,) = sessions["order-status"].tool_results()
    assert result.injected and result.error_class is not None
    # The agent got the failure as its MCP result and told the model.
    assert model.posts()[1].body["messages"][-1]["content"].startswith("Error:")
    assert not sessions["order-status"].outcome.success  # type: ignore[union-attr]


def _agent_error(session: Session) -> AgentErrorEvent:
    (event,) = [e for e in session.events if isinstance(e, AgentErrorEvent)]
    return event


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "error_class", "says"),
    [
        ("crash", ErrorClass.unavailable, "exited with code 3"),
        ("garbage", ErrorClass.malformed_output, "not JSON"),
        ("hang", ErrorClass.timeout, "no reply within"),
    ],
)
def test_a_broken_agent_process_ends_its_session_classified_and_the_run_goes_on(
    project: Path, model: FakeProvider, mode: str, error_class: ErrorClass, says: str
) -> None:
    # Only the turn that says "cancel" misbehaves: order-status runs first and is judged.
    model.push(*ORDER_STATUS, _say("Noted."))
    spec = f"mcp-agent:python {AGENT} {mode}"
    # The limit is per decision and the first one includes the process's start (seconds on a
    # busy machine); a hang costs the whole limit, so that case stops after one bad session.
    sessions = _run(project, spec, agent_timeout=20.0, limit=2 if mode == "hang" else None)
    assert sessions["order-status"].outcome is not None
    assert sessions["order-status"].outcome.success
    bad = sessions["cancel-teapot"]
    assert bad.termination is TerminationReason.too_many_errors
    event = _agent_error(bad)
    assert event.payload.error_class == error_class
    assert says in event.payload.message
    if mode == "crash":
        assert "giving up on purpose" in event.payload.message  # its stderr tail
    if mode != "hang":  # moved-house's second turn also says cancel: it fails the same way
        assert sessions["moved-house"].termination is TerminationReason.too_many_errors


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_agent_url_that_refuses_is_infra_error_for_each_session(project: Path) -> None:
    sessions = _run(project, f"http-agent:http://127.0.0.1:{_free_port()}/turn")
    assert len(sessions) == 3
    for session in sessions.values():
        assert session.termination is TerminationReason.infra_error
        assert "cannot be reached" in session.termination_detail
        assert session.outcome is None  # not judged: not the agent's failure


def test_an_agent_url_answering_non_json_is_malformed_output(project: Path) -> None:
    fake = FakeProvider().start()
    try:
        fake.push(Reply(raw=b"<html>oops</html>"), Reply(raw=b'{"reply": "x"}'))
        sessions = _run(project, f"http-agent:{fake.url}/turn", limit=2)
    finally:
        fake.stop()
    first, second = sessions["order-status"], sessions["cancel-teapot"]
    assert _agent_error(first).payload.error_class is ErrorClass.malformed_output
    assert "not JSON" in _agent_error(first).payload.message
    assert 'without a "message"' in _agent_error(second).payload.message
    assert first.termination is second.termination is TerminationReason.too_many_errors


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("http-agent:ftp://example.org/x", "cannot read the agent URL"),
        ("http-agent:", "unknown model spec"),
        ("mcp-agent:no-such-program-xyz --flag", "not found"),
        ("mcp-agent:python 'unclosed", "cannot read the command"),
    ],
)
def test_bad_external_agent_specs_are_one_line_errors(spec: str, says: str) -> None:
    with pytest.raises(ModelSpecError, match=says):
        make_agent(spec)


def test_the_agent_name_carries_no_url_credentials() -> None:
    secret = "pw" + "x" * 12
    agent = make_agent(f"http-agent:http://user:{secret}@127.0.0.1:9/turn")
    assert secret not in agent.name
