"""A `python:` agent for the readings test: the oracle, except that it does nothing useful in
the second user turn (index 1) of every session."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message, ToolCall

BROKEN_TURN = 1


def respond(request: AgentRequest) -> AgentResponse:
    """Gold calls of the turn, once, then a reply; at `BROKEN_TURN` only the reply."""
    scenario = request.scenario
    assert scenario is not None
    acted = False
    for msg in reversed(request.messages):
        if msg.role == "user":
            break
        acted = acted or bool(msg.role == "assistant" and msg.tool_calls)
    gold = [a for a in scenario.criteria.gold_actions if (a.turn or 0) == request.turn]
    if acted or not gold or request.turn == BROKEN_TURN:
        return AgentResponse(message=Message.assistant("Done."))
    calls = [
        ToolCall(id=f"s-{request.turn}-{i}", name=a.tool, arguments=dict(a.args))
        for i, a in enumerate(gold)
    ]
    return AgentResponse(message=Message.assistant(None, calls))
