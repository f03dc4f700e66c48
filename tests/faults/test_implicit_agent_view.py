"""Implicit faults reach the agent only as tool results: a run on tau2-retail under every
kind, with an agent that keeps every request it received, shows no fault name, marker or
`injected` flag in any message, and no error class on a result an implicit fault changed."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import Message, Scenario, ToolCall, ToolResultEvent
from sessionproof.records._internal import ImplicitFaultEvent, ImplicitFaultKind
from sessionproof.suites import load_suite

pytestmark = pytest.mark.slow
ARM = "faults=" + ",".join(f"{k.value}:14%" for k in ImplicitFaultKind)
MARKERS = re.compile(
    "|".join([*(k.value for k in ImplicitFaultKind), "implicit", "injected", "fault"]), re.I
)


class Rereading:
    """The oracle, plus a read of each order before and after every call that names one
    (so reads meet stale, wrong, partial and corrupted answers); keeps every request."""

    name = "rereading-oracle"

    def __init__(self) -> None:
        self.oracle = OracleAgent()
        self.requests: list[AgentRequest] = []

    async def respond(self, request: AgentRequest) -> AgentResponse:
        self.requests.append(request.model_copy(deep=True))
        reply = await self.oracle.respond(request)
        calls: list[ToolCall] = []
        for call in reply.message.tool_calls:
            order = (call.arguments or {}).get("order_id")
            read = [] if order is None else [("get_order_details", {"order_id": order})]
            for name, args in read:
                calls.append(ToolCall(id=f"{call.id}-pre", name=name, arguments=args))
            calls.append(call)
            for name, args in read:
                calls.append(ToolCall(id=f"{call.id}-post", name=name, arguments=args))
        message = Message(role="assistant", content=reply.message.content, tool_calls=calls)
        return reply.model_copy(update={"message": message})


def test_the_agent_sees_no_trace_of_implicit_faults() -> None:
    suite = load_suite("tau2-retail").limited(10)
    agent = Rereading()
    plan = RunPlan(run_id="r", arms=[ARM], trials=2, seed=1, concurrency=2)
    sink = SessionList()

    def hooks(arm: str, seed: int, scenario: Scenario):  # type: ignore[no-untyped-def]
        return hooks_for(parse_arm(arm), seed)

    asyncio.run(execute_run(suite, agent, plan, sink, hooks_for=hooks))  # type: ignore[arg-type]
    faults = [e for s in sink.sessions for e in s.events if isinstance(e, ImplicitFaultEvent)]
    assert len({e.payload.fault for e in faults}) >= 5, faults
    seen = 0
    for request in agent.requests:
        for message in request.messages:
            if message.role == "system":
                continue  # the domain's policy, the same in every arm
            text = json.dumps(message.model_dump(mode="json"))
            assert not MARKERS.search(text), text
            seen += message.role == "tool"
    assert seen > len(faults)
    changed = {(e.session_id, e.payload.call_id) for e in faults}
    results = [
        e.payload
        for s in sink.sessions
        for e in s.events
        if isinstance(e, ToolResultEvent) and (e.session_id, e.payload.call_id) in changed
    ]
    assert results and all(not r.injected and r.error_class is None for r in results)
