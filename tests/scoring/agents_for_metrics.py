"""Agents for the metrics tests (`python:tests.scoring.agents_for_metrics:NAME` on the CLI), and
helpers that play one session of a scenario through the real engine."""

from __future__ import annotations

from typing import Any

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent, ScriptedAgent
from sessionproof.domains import ToolContext, ToolSource, WrapperToolSource
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.engine import SessionHooks, run_session
from sessionproof.engine._internal import NoHooks, SessionPlan
from sessionproof.records import ErrorClass, Message, Scenario, Session, ToolCall, ToolResult
from sessionproof.suites import Suite
from sessionproof.users import ScriptedUser, User

_oracle = OracleAgent()
_OTHER_REASON = {"no_longer_needed": "ordered_by_mistake", "ordered_by_mistake": "no_longer_needed"}


async def sloppy(request: AgentRequest) -> AgentResponse:
    """The oracle, except every cancellation gives the other reason and items are never
    returned: cancel scenarios diverge by a wrong argument, return scenarios by a missing call."""
    response = await _oracle.respond(request)
    message = response.message
    if not message.tool_calls:
        return response
    kept = []
    for call in message.tool_calls:
        if call.name == "return_items":
            continue
        if call.name == "cancel_order" and call.arguments:
            reason = str(call.arguments.get("reason"))
            call.arguments = {**call.arguments, "reason": _OTHER_REASON.get(reason, reason)}
        kept.append(call)
    if not kept:
        return AgentResponse(message=Message.assistant("Let me know if you need anything else."))
    return AgentResponse(message=Message.assistant(message.content, kept))


def demo(scenario_id: str) -> Scenario:
    """One scenario of the built-in demo suite."""
    return next(s for s in load_scenarios() if s.id == scenario_id)


def calls(*items: tuple[str, dict[str, Any]], prefix: str = "c") -> Message:
    """An assistant message carrying these tool calls (ids `prefix0`, `prefix1`, ...)."""
    return Message.assistant(
        None, [ToolCall(id=f"{prefix}{i}", name=n, arguments=a) for i, (n, a) in enumerate(items)]
    )


def say(text: str) -> Message:
    """An assistant text reply."""
    return Message.assistant(text)


class Outage:
    """Session hooks: every call of `tool` meets a natural (not injected) failure, as when the
    backend itself is down."""

    def __init__(self, tool: str, error_class: ErrorClass = ErrorClass.server_error) -> None:
        self.tool = tool
        self.error_class = error_class

    def wrap(self, source: ToolSource) -> ToolSource:
        """Fail the chosen tool before it reaches the domain (tools listed unchanged)."""
        return _Failing(source, self)


class _Failing(WrapperToolSource):
    def __init__(self, inner: ToolSource, outage: Outage) -> None:
        super().__init__(inner)
        self.outage = outage

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        tool = self.outage.tool
        if call.name != tool:
            return await self.inner.call_tool(call, ctx)
        text = f"503 from the {tool} backend"
        return ToolResult(
            call_id=call.id,
            name=call.name,
            output=f"Error: {text}",
            error_class=self.outage.error_class,
            error=text,
        )


async def play(
    scenario: Scenario,
    agent: Any,
    *,
    user: User | None = None,
    hooks: SessionHooks | None = None,
    session_id: str | None = None,
    max_steps: int = 40,
    suite: Suite | None = None,
) -> Session:
    """One judged session of `scenario` through the engine (scripted user by default).

    `agent` is an Agent, or a list of messages for a `ScriptedAgent`; `suite` decides the
    domain and the verdict (default: a plain suite holding only `scenario`).
    """
    if isinstance(agent, list):
        agent = ScriptedAgent(agent)
    plan = SessionPlan(
        run_id="r",
        session_id=session_id or scenario.id,
        scenario=scenario,
        trial=0,
        hooks=hooks or NoHooks(),
        max_steps=max_steps,
    )
    turns = scenario.user.turns or [scenario.user.instructions or ""]
    suite = suite or Suite("metrics-tests", [scenario])
    return await run_session(plan, suite, agent, user or ScriptedUser(turns))
