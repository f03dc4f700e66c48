"""`python:` agents for the gold-call tests: one that never calls a tool, one that makes the
gold calls in reverse order, one that gets one argument wrong."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message, ToolCall


def lazy(request: AgentRequest) -> AgentResponse:
    """Says it is done and calls nothing."""
    return AgentResponse(message=Message.assistant("All done, nothing else needed."))


def _gold_once(
    request: AgentRequest, *, reverse: bool = False, bump: bool = False
) -> AgentResponse:
    scenario = request.scenario
    assert scenario is not None
    if any(m.role == "assistant" and m.tool_calls for m in request.messages):
        return AgentResponse(message=Message.assistant("Done."))
    gold = list(scenario.criteria.gold_actions)
    calls = []
    for i, action in enumerate(gold[::-1] if reverse else gold):
        args = dict(action.args)
        if bump and "amount" in args:
            args["amount"] += 1
        calls.append(ToolCall(id=f"a-{i}", name=action.tool, arguments=args))
    return AgentResponse(message=Message.assistant(None, calls))


def backwards(request: AgentRequest) -> AgentResponse:
    """Every gold call, right arguments, in reverse order."""
    return _gold_once(request, reverse=True)


def off_by_one(request: AgentRequest) -> AgentResponse:
    """Every gold call in order, with an `amount` one more than the gold one."""
    return _gold_once(request, bump=True)
