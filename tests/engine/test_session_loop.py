"""The session loop on a small world: terminations, parallel calls, and broken input."""

from __future__ import annotations

from typing import Any

import pytest

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent, ScriptedAgent
from sessionproof.agents._internal import OutputIssue
from sessionproof.engine import execute_run, run_session
from sessionproof.engine._internal import RunPlan, SessionList, SessionPlan
from sessionproof.errors import InfraError
from sessionproof.records import (
    Action,
    Criteria,
    ErrorClass,
    EventKind,
    Message,
    Scenario,
    Session,
    TerminationReason,
    ToolCall,
    UserSpec,
)
from sessionproof.suites import Suite
from sessionproof.users import ScriptedUser

from . import world  # noqa: F401  (registers the counter domain)


def scenario(sid: str = "s", turns: int = 2, **criteria: Any) -> Scenario:
    return Scenario(
        id=sid,
        domain="counter",
        user=UserSpec(turns=[f"turn {i}" for i in range(turns)]),
        criteria=Criteria(**criteria),
    )


async def run_one(agent: Any, sc: Scenario, **plan: Any) -> Session:
    suite = Suite("t", [sc])
    p = SessionPlan(run_id="r", session_id=sc.id, scenario=sc, trial=0, **plan)
    return await run_session(p, suite, agent, ScriptedUser(sc.user.turns or []))


def call(name: str, args: dict[str, Any] | None = None, cid: str = "c1", **kw: Any) -> ToolCall:
    return ToolCall(id=cid, name=name, arguments=args, **kw)


async def test_oracle_succeeds_and_user_stops() -> None:
    sc = scenario(gold_actions=[Action(tool="add", args={"name": "a", "by": 2})], communicate=["2"])
    s = await run_one(OracleAgent(), sc)
    assert s.termination is TerminationReason.user_stop
    assert s.success
    kinds = [e.kind for e in s.events]
    assert kinds[0] is EventKind.user_message and kinds[-1] is EventKind.verdict
    assert [e.seq for e in s.events] == list(range(len(s.events)))


async def test_wrong_argument_fails_on_state() -> None:
    sc = scenario(gold_actions=[Action(tool="add", args={"name": "a", "by": 2})])
    agent = ScriptedAgent([Message.assistant(None, [call("add", {"name": "a", "by": 3})])])
    s = await run_one(agent, sc)
    assert not s.success
    assert s.outcome is not None and s.outcome.criterion("db") is not None
    assert s.outcome.criterion("db").passed is False  # type: ignore[union-attr]


async def test_parallel_calls_all_run_in_order() -> None:
    calls = [
        call("add", {"name": "a", "by": 1}, "p1"),
        call("add", {"name": "b", "by": 1}, "p2"),
        call("read", {"name": "a"}, "p3"),
    ]
    sc = scenario(
        gold_actions=[
            Action(tool="add", args={"name": "a", "by": 1}),
            Action(tool="add", args={"name": "b", "by": 1}),
        ]
    )
    s = await run_one(ScriptedAgent([Message.assistant(None, calls)]), sc)
    assert [c.id for c in s.tool_calls()] == ["p1", "p2", "p3"]
    assert [r.call_id for r in s.tool_results()] == ["p1", "p2", "p3"]
    assert s.tool_results()[2].output == "1"
    assert s.success


async def test_broken_calls_are_classified_and_session_goes_on() -> None:
    bad = [
        call("add", None, "j", raw_arguments='{"name": "a", "by": ', parse_error="invalid JSON"),
        call("no_such_tool", {}, "u"),
        call("explode", {}, "x"),
        call("add", {"name": "a", "by": "lots"}, "v"),
        call("read", {"name": "zzz"}, "n"),
        call("huge", {}, "h"),
    ]
    agent = ScriptedAgent([Message.assistant(None, bad), Message.assistant("sorry")])
    s = await run_one(agent, scenario(turns=1))
    got = {r.call_id: r.error_class for r in s.tool_results()}
    assert got == {
        "j": ErrorClass.validation_error,
        "u": ErrorClass.validation_error,
        "x": ErrorClass.validation_error,
        "v": ErrorClass.validation_error,
        "n": ErrorClass.not_found,
        "h": ErrorClass.truncated_output,
    }
    by_id = {r.call_id: r for r in s.tool_results()}
    assert "could not parse arguments" in (by_id["j"].error or "")
    assert "unknown tool 'no_such_tool'" in (by_id["u"].error or "")
    assert "boom" in (by_id["x"].error or "")
    assert len(by_id["h"].output) < 300_000
    assert s.termination is TerminationReason.user_stop  # the run went on to the end


async def test_empty_and_huge_replies_are_events() -> None:
    def policy(req: AgentRequest) -> AgentResponse:
        if req.turn == 0:
            return AgentResponse(
                message=Message.assistant(None),
                issues=[OutputIssue(error_class=ErrorClass.empty_result, message="empty reply")],
            )
        return AgentResponse(
            message=Message.assistant("y" * 1000),
            issues=[OutputIssue(error_class=ErrorClass.truncated_output, message="cut")],
        )

    s = await run_one(ScriptedAgent(policy), scenario(turns=2))
    errs = [e.payload.error_class for e in s.of_kind(EventKind.agent_error)]
    assert errs == ["empty_result", "truncated_output"]
    assert s.termination is TerminationReason.user_stop


async def test_terminations() -> None:
    loop = ScriptedAgent(lambda r: Message.assistant(None, [call("read", {"name": "a"})]))
    s = await run_one(loop, scenario(), max_steps=5)
    assert s.termination is TerminationReason.max_steps
    assert len(s.tool_calls()) == 5

    failing = ScriptedAgent(lambda r: Message.assistant(None, [call("read", {"name": "q"})]))
    s = await run_one(failing, scenario(), max_errors=3)
    assert s.termination is TerminationReason.too_many_errors

    transfer = ScriptedAgent(
        [Message.assistant(None, [call("transfer_to_human_agents", {"summary": "x"})])]
    )
    s = await run_one(transfer, scenario())
    assert s.termination is TerminationReason.transfer

    s = await run_one(ScriptedAgent([Message.assistant("bye ###STOP###")]), scenario())
    assert s.termination is TerminationReason.agent_stop


async def test_infra_error_is_not_judged_and_crash_is_agent_failure() -> None:
    def down(_: AgentRequest) -> Message:
        raise InfraError("provider unreachable after 6 attempts")

    s = await run_one(ScriptedAgent(down), scenario())
    assert s.termination is TerminationReason.infra_error
    assert s.outcome is None and s.infra_error

    def buggy(_: AgentRequest) -> Message:
        raise KeyError("oops")

    s = await run_one(ScriptedAgent(buggy), scenario())
    assert s.termination is TerminationReason.too_many_errors
    assert s.outcome is not None and not s.success
    assert "KeyError" in s.of_kind(EventKind.agent_error)[0].payload.message


async def test_execute_run_grid_and_skip() -> None:
    suite = Suite("t", [scenario("one"), scenario("two"), scenario("three")])
    sink = SessionList()
    plan = RunPlan(run_id="r", trials=2, concurrency=3, skip={("two", 1, "baseline")})
    done = await execute_run(suite, OracleAgent(), plan, sink)
    keys = sorted((s.scenario_id, s.trial) for s in sink.sessions)
    assert len(done) == 5
    expected = {(n, t) for n in ("one", "two", "three") for t in (0, 1)} - {("two", 1)}
    assert keys == sorted(expected)
    assert len({s.session_id for s in sink.sessions}) == 5


@pytest.mark.parametrize("trials", [1, 3])
async def test_session_seeds_are_paired_across_arms(trials: int) -> None:
    suite = Suite("t", [scenario("one")])
    sink = SessionList()
    plan = RunPlan(run_id="r", trials=trials, arms=["baseline", "other"])
    await execute_run(suite, OracleAgent(), plan, sink)
    ids = {s.session_id for s in sink.sessions}
    assert len(ids) == 2 * trials
    assert {s.arm for s in sink.sessions} == {"baseline", "other"}
