"""The agent boundary: whatever a reply holds, however long it takes, only its session pays."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.agents._python_agent import PythonAgent
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import EventKind, Session, TerminationReason
from sessionproof.store import RunManifest, Store
from sessionproof.suites import Suite, load_suite

from . import hostile

WHAT_IS_WRONG = {
    "numpy_int": "numpy.int64",
    "numpy_array": "numpy.ndarray",
    "bare_object": "object",
    "a_lambda": "function",
    "ellipsis": "ellipsis",
    "bad_bytes": "bytes",
    "recursive_dict": "nested deeper than",
    "deep_list": "nested deeper than",
    "huge_int": "64-bit",
    "int_over_64_bits": "64-bit",
    "not_a_number": "nan",
    "constructed": "ToolCall",
}
"""A fragment of the agent_error message each hostile agent must get."""


def demo(limit: int = 3) -> Suite:
    return load_suite("demo").limited(limit)


def python_agent(name: str) -> PythonAgent:
    return PythonAgent(getattr(hostile, name), f"python:tests.engine.hostile:{name}")


async def run_into_store(tmp_path: Path, agent: Any, **plan: Any) -> list[Session]:
    """Run the demo's first scenarios with `agent` into a real store; what it holds after."""
    suite = demo()
    with Store.open(tmp_path / "s.duckdb") as store:
        store.create_run(
            RunManifest(
                run_id="r",
                suite="demo",
                suite_hash=suite.content_hash(),
                model=agent.name,
                scenario_ids=[s.id for s in suite.scenarios],
            )
        )
        await execute_run(suite, agent, RunPlan(run_id="r", **plan), store)
        store.set_status("r", "finished")
        return store.load_sessions("r")


def test_every_hostile_agent_has_an_expectation() -> None:
    assert set(WHAT_IS_WRONG) == set(hostile.HOSTILE)


@pytest.mark.parametrize("name", hostile.HOSTILE)
async def test_a_reply_that_is_not_plain_json_costs_only_its_session(
    tmp_path: Path, name: str
) -> None:
    sessions = {s.scenario_id: s for s in await run_into_store(tmp_path, python_agent(name))}
    assert set(sessions) == {s.id for s in demo().scenarios}
    bad = sessions.pop(hostile.TARGET)
    errors = bad.of_kind(EventKind.agent_error)
    assert errors, "the broken reply left no agent_error event"
    assert {e.payload.error_class for e in errors} == {"malformed_output"}
    assert WHAT_IS_WRONG[name] in errors[0].payload.message
    assert bad.termination is TerminationReason.too_many_errors
    assert bad.outcome is not None and not bad.success
    for call in bad.tool_calls():  # a broken call is kept, with why it cannot be run
        assert call.arguments is None and call.parse_error
    assert all(s.success for s in sessions.values())


async def test_timeout_ends_only_the_session_that_hangs(tmp_path: Path) -> None:
    sessions = {
        s.scenario_id: s
        for s in await run_into_store(tmp_path, python_agent("hangs"), agent_timeout=0.2)
    }
    bad = sessions.pop(hostile.TARGET)
    [error] = bad.of_kind(EventKind.agent_error)
    assert error.payload.error_class == "timeout"
    assert "0.2 s" in error.payload.message
    assert bad.termination is TerminationReason.too_many_errors
    assert len(sessions) == 2 and all(s.success for s in sessions.values())


async def test_an_agent_raising_cancelled_error_is_its_own_failure(tmp_path: Path) -> None:
    sessions = {s.scenario_id: s for s in await run_into_store(tmp_path, python_agent("cancels"))}
    bad = sessions.pop(hostile.TARGET)
    [error] = bad.of_kind(EventKind.agent_error)
    assert "CancelledError" in error.payload.message
    assert bad.termination is TerminationReason.too_many_errors
    assert len(sessions) == 2 and all(s.success for s in sessions.values())


async def test_cancelling_the_run_still_cancels_it() -> None:
    entered = asyncio.Event()

    async def waits(request: AgentRequest) -> AgentResponse:
        entered.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    task = asyncio.create_task(
        execute_run(demo(1), PythonAgent(waits, "python:waits"), RunPlan(run_id="r"), SessionList())
    )
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def _trace(session: Session) -> list[tuple[str, int, int, dict[str, Any]]]:
    # Timing differs between runs; everything else must be equal.
    return [
        (
            e.kind.value,
            e.turn,
            e.step,
            {k: v for k, v in e.payload.model_dump(mode="json").items() if k != "latency_s"},
        )
        for e in session.events
    ]


async def test_agents_cannot_edit_the_conversation_or_the_scenario() -> None:
    seen: list[list[str | None]] = []

    async def snooping_vandal(request: AgentRequest) -> AgentResponse:
        seen.append([m.content for m in request.messages])
        return await hostile.vandal(request)

    suite = demo(3)
    pristine = [s.model_copy(deep=True) for s in suite.scenarios]
    clean, dirty = SessionList(), SessionList()
    await execute_run(suite, OracleAgent(), RunPlan(run_id="r", trials=2, concurrency=1), clean)
    vandal = PythonAgent(snooping_vandal, "python:vandal")
    await execute_run(suite, vandal, RunPlan(run_id="r", trials=2, concurrency=1), dirty)
    assert len(seen) > len(dirty.sessions)  # more than one request per session
    assert not any("VANDALISED" in (c or "") for contents in seen for c in contents)
    assert suite.scenarios == pristine
    assert [_trace(s) for s in dirty.sessions] == [_trace(s) for s in clean.sessions]
    assert all(s.success for s in dirty.sessions)


@pytest.mark.parametrize("name", list(hostile.CONSTRUCTED))
async def test_a_reply_built_without_validation_costs_only_its_session(
    tmp_path: Path, name: str
) -> None:
    sessions = {s.scenario_id: s for s in await run_into_store(tmp_path, python_agent(name))}
    bad = sessions.pop(hostile.TARGET)
    errors = bad.of_kind(EventKind.agent_error) + [
        e for e in bad.of_kind(EventKind.tool_result) if e.payload.error_class is not None
    ]
    assert errors, "the broken reply left no classified error"
    assert len(sessions) == 2 and all(s.success for s in sessions.values())


@pytest.mark.parametrize("name", list(hostile.RAISES))
async def test_an_agent_raising_a_base_exception_is_its_own_failure(
    tmp_path: Path, name: str
) -> None:
    sessions = {s.scenario_id: s for s in await run_into_store(tmp_path, python_agent(name))}
    bad = sessions.pop(hostile.TARGET)
    [error] = bad.of_kind(EventKind.agent_error)
    assert error.payload.error_class == "unknown"
    assert ("GeneratorExit" if "generator" in name else "Unusual: mine") in error.payload.message
    assert bad.termination is TerminationReason.too_many_errors
    assert len(sessions) == 2 and all(s.success for s in sessions.values())
