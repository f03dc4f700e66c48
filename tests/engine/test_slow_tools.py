"""A slow synchronous tool holds up only its own session, not the others in the run."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from pydantic import BaseModel, ConfigDict

from sessionproof.agents import AgentRequest, ScriptedAgent
from sessionproof.domains import Domain, DomainSpec, SchemaTool, SchemaTools
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan
from sessionproof.records import Message, Scenario, Session, ToolCall, ToolSpec, UserSpec
from sessionproof.suites import Suite

# Generous: with the tool off the event loop the wait ends as soon as the other session is
# done (milliseconds); only a blocked loop would sit it out.
PATIENCE_S = 10.0
OPEN: dict[str, Any] = {"type": "object", "properties": {}}


class _Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Spec(DomainSpec):
    def __init__(self, name: str, tools: SchemaTools) -> None:
        self.name = name
        self._tools = tools

    def create(self) -> Domain[Any]:
        return Domain(self.name, _Nothing(), self._tools, policy="", transfer_tools=frozenset())


class _TwoWorlds(Suite):
    """Each scenario runs in the domain named after it."""

    def __init__(self, specs: dict[str, DomainSpec]) -> None:
        scenarios = [Scenario(id=n, domain=n, user=UserSpec(turns=["go"])) for n in specs]
        super().__init__("two-worlds", scenarios)
        self.specs = specs

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        return self.specs[scenario.id]


class _Sink:
    def __init__(self, done: threading.Event) -> None:
        self.done = done
        self.order: list[str] = []

    def write_session(self, session: Session) -> None:
        self.order.append(session.scenario_id)
        if session.scenario_id == "fast":
            self.done.set()


def _call_then_stop(request: AgentRequest) -> Message:
    if any(m.role == "tool" for m in request.messages):
        return Message.assistant("Done.")
    name = request.tools[0].name
    return Message.assistant(None, [ToolCall(id="c1", name=name, arguments={})])


async def test_slow_sync_tool_does_not_block_the_other_session() -> None:
    slow_started, fast_done = threading.Event(), threading.Event()
    seen_while_sleeping: list[bool] = []

    def slow() -> str:
        # A blocking tool (think: a synchronous HTTP client). It sleeps until the other
        # session has finished, and notes whether that happened during its sleep.
        slow_started.set()
        seen_while_sleeping.append(fast_done.wait(timeout=PATIENCE_S))
        return "slow answer"

    async def fast() -> str:
        # Starts only once the slow tool is asleep, so the two really overlap.
        await asyncio.to_thread(slow_started.wait, PATIENCE_S)
        return "fast answer"

    def tools(name: str, fn: Any) -> SchemaTools:
        return SchemaTools([SchemaTool(ToolSpec(name=name, description="d", parameters=OPEN), fn)])

    suite = _TwoWorlds(
        {"slow": _Spec("slow", tools("slow", slow)), "fast": _Spec("fast", tools("fast", fast))}
    )
    sink = _Sink(fast_done)
    plan = RunPlan(run_id="r", concurrency=2)
    await execute_run(suite, ScriptedAgent(_call_then_stop), plan, sink)
    assert seen_while_sleeping == [True]  # the fast session ended while the slow tool slept
    assert sink.order == ["fast", "slow"]
