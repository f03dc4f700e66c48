"""Users with tools of their own (dual control): the user's calls are events of the user's
side, on the user's own state; faults and drift can target either side; stores keep it all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent, ScriptedAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan
from sessionproof.engine._runner import user_for
from sessionproof.records import (
    Action,
    Criteria,
    EventKind,
    Message,
    Scenario,
    Session,
    ToolCall,
    UserSpec,
    parse_events,
)
from sessionproof.records._internal import FaultInjected, FaultInjectedEvent
from sessionproof.store import Store
from sessionproof.suites import Suite
from sessionproof.users import SimulatedUser

from ..store.factory import manifest
from . import world  # noqa: F401  (registers the counter domain)


def dual(**user: Any) -> Scenario:
    """The agent adds to its counter b; the user holds a counter world of its own."""
    spec = {
        "turns": ["please add one to b", "thanks, and check mine"],
        "tools": "counter",
        "actions": [
            Action(tool="add", args={"name": "a", "by": 5}),
            Action(tool="read", args={"name": "a"}, turn=1),
        ],
    }
    spec.update(user)
    return Scenario(
        id="dual",
        domain="counter",
        user=UserSpec(**spec),
        criteria=Criteria(gold_actions=[Action(tool="add", args={"name": "b", "by": 1})]),
    )


async def run(sc: Scenario, arm: str = "baseline", agent: Any = None) -> Session:
    plan = SessionPlan(
        run_id="r",
        session_id="dual.t0",
        scenario=sc,
        trial=0,
        arm=arm,
        hooks=hooks_for(parse_arm(arm), 7),
    )
    return await run_session(plan, Suite("t", [sc]), agent or OracleAgent(), user_for(sc, None))


async def test_the_user_calls_its_own_tools_on_its_own_state() -> None:
    session = await run(dual())
    assert session.success
    user_calls = session.user_tool_calls()
    assert [(c.name, c.arguments) for c in user_calls] == [
        ("add", {"name": "a", "by": 5}),
        ("read", {"name": "a"}),
    ]
    # The user's world is its own: its counter a reads back 5 while the agent's domain
    # (judged on b) never saw the user's write.
    assert [r.output for r in session.user_tool_results()] == ["5", "5"]
    assert [c.name for c in session.tool_calls()] == ["add"]  # the agent's alone
    kinds = [e.kind for e in session.events]
    first_user_call = kinds.index(EventKind.user_tool_call)
    assert kinds[first_user_call + 1] is EventKind.user_tool_result
    assert first_user_call < kinds.index(EventKind.user_message)  # it acts, then speaks


async def test_faults_target_the_side_the_arm_names() -> None:
    on_user = await run(dual(), "user_faults=100%")
    faults = on_user.events_of(FaultInjectedEvent)
    assert faults and all(f.payload.side == "user" for f in faults)
    assert {f.payload.tool for f in faults} <= {"add", "read"}
    assert all(not r.ok and r.injected for r in on_user.user_tool_results())
    assert all(r.ok for r in on_user.tool_results())  # the agent's side untouched
    on_agent = await run(dual(), "faults=100%")
    assert all(f.payload.side == "agent" for f in on_agent.events_of(FaultInjectedEvent))
    assert all(r.ok for r in on_agent.user_tool_results())


async def test_user_drift_renames_what_the_user_sees() -> None:
    seen: list[list[str]] = []

    class Recording(SimulatedUser):
        def give_tools(self, tools: list[Any]) -> None:
            seen.append([t.name for t in tools])
            super().give_tools(tools)

    model = ScriptedAgent([Message.assistant("###STOP###")])
    sc = dual(turns=None, instructions="help", actions=[])
    plan = SessionPlan(
        run_id="r",
        session_id="s",
        scenario=sc,
        trial=0,
        arm="user_drift=rename_tool",
        hooks=hooks_for(parse_arm("user_drift=rename_tool"), 3),
    )
    session = await run_session(plan, Suite("t", [sc]), OracleAgent(), Recording(model, "help"))
    drift = session.of_kind(EventKind.drift_applied)
    assert drift and drift[0].payload.side == "user"  # type: ignore[union-attr]
    assert seen and set(seen[0]) != {"read", "add", "explode", "huge", "transfer_to_human_agents"}


async def test_a_simulated_user_gets_its_tools_and_their_results() -> None:
    requests: list[AgentRequest] = []

    def user_model(request: AgentRequest) -> AgentResponse:
        requests.append(request)
        if len(requests) == 1:
            call = ToolCall(id="u1", name="add", arguments={"name": "a", "by": 2})
            return AgentResponse(message=Message.assistant(None, [call]))
        return AgentResponse(message=Message.assistant("I added two. ###STOP###"))

    sc = dual(turns=None, instructions="add two to your counter a", actions=[])
    user = SimulatedUser(ScriptedAgent(user_model), "add two to your counter a")
    plan = SessionPlan(run_id="r", session_id="s", scenario=sc, trial=0)
    session = await run_session(plan, Suite("t", [sc]), OracleAgent(), user)
    assert [t.name for t in requests[0].tools] and "add" in {t.name for t in requests[0].tools}
    second = requests[1].messages
    assert any(m.role == "tool" and m.content == "2" for m in second)  # its own result
    assert session.user_tool_results()[0].output == "2"
    assert session.messages()[0].content == "I added two."  # the agent sees only words


async def test_a_user_without_tools_who_calls_one_gets_a_classified_error() -> None:
    sc = dual(tools=None, actions=[Action(tool="add", args={"name": "a", "by": 1})])
    session = await run(sc)
    (result,) = session.user_tool_results()
    assert not result.ok and "holds no tools" in result.output


async def test_user_events_round_trip_through_a_store(tmp_path: Path) -> None:
    session = await run(dual(), "user_faults=100%")
    with Store.open(tmp_path / "s.duckdb") as db:
        db.create_run(manifest("r", ["dual"]))
        db.write_session(session)
    with Store.open_for_reading(tmp_path / "s.duckdb") as db:
        (back,) = db.load_sessions("r")
    assert back.user_tool_calls() == session.user_tool_calls()
    assert back.user_tool_results() == session.user_tool_results()
    assert [f.payload.side for f in back.events_of(FaultInjectedEvent)] == ["user", "user"]


def test_old_payloads_read_as_the_agents_and_agent_dumps_are_unchanged() -> None:
    old = {"call_id": "c", "tool": "t", "error_class": "timeout", "committed": False}
    fault = FaultInjected.model_validate(old)
    assert fault.side == "agent"
    assert "side" not in fault.model_dump(mode="json")
    event = {
        "run_id": "r",
        "session_id": "s",
        "seq": 0,
        "turn": 0,
        "step": 0,
        "t_wall": 0.0,
        "t_mono": 0.0,
        "kind": "user_tool_call",
        "payload": {"id": "u", "name": "add", "arguments": {}},
    }
    (parsed,) = parse_events([event])
    assert parsed.kind is EventKind.user_tool_call


def test_a_scripted_users_action_past_its_script_is_refused() -> None:
    with pytest.raises(ValidationError, match="past the 1 scripted turn"):
        UserSpec(turns=["hi"], actions=[Action(tool="add", turn=1)])


@pytest.mark.parametrize(
    ("user", "message"),
    [
        ({"tools": "nosuch"}, "user.tools: unknown domain 'nosuch'"),
        ({"tools": "counter", "actions": [{"tool": "ad"}]}, "user has no tool 'ad'"),
        ({"actions": [{"tool": "add"}]}, r"user.actions.0: the user holds no tools"),
    ],
)
def test_a_suite_file_with_bad_user_tools_is_refused_at_load(
    tmp_path: Path, user: dict[str, Any], message: str
) -> None:
    from sessionproof.errors import InputFileError
    from sessionproof.suites import load_suite

    scenario = {
        "id": "s",
        "domain": "counter",
        "user": {"turns": ["hi"], **user},
        "criteria": {"communicate": ["hi"]},
    }
    path = tmp_path / "suite.json"
    path.write_text(json.dumps([scenario]))
    with pytest.raises(InputFileError, match=message):
        load_suite(str(path))


async def test_a_served_session_runs_the_users_own_calls_too() -> None:
    from sessionproof.engine._internal import ServedSession

    sc = dual()
    served = ServedSession(
        run_id="r",
        session_id="s",
        scenario=sc,
        judge=Suite("t", [sc]),
        user=user_for(sc, None),
    )
    assert await served.open_turn() == "please add one to b"
    await served.call_tool("add", {"name": "b", "by": 1})
    answer = await served.call_tool("reply_to_user", {"text": "Done."})
    assert answer.output == "thanks, and check mine"
    session = await served.finish()
    assert [c.name for c in session.user_tool_calls()] == ["add", "read"]
    assert [r.output for r in session.user_tool_results()] == ["5", "5"]
    assert session.success
