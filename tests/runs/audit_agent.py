"""A `python:` agent for the audit's store test: the scenario's gold calls and facts in trial 0,
nothing useful in trial 1 (so every task that needs an action flips), and nothing useful ever
on `NEVER` (so no run passes it)."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message, ToolCall

NEVER = "cancel-pending-by-mistake"


def respond(request: AgentRequest) -> AgentResponse:
    """Gold calls of the turn, once, then the facts; a bare "Done." when it is to fail."""
    scenario = request.scenario
    assert scenario is not None
    acted = False
    for msg in reversed(request.messages):
        if msg.role == "user":
            break
        acted = acted or bool(msg.role == "assistant" and msg.tool_calls)
    failing = ".t1" in request.session_id or scenario.id == NEVER
    last = max(len(scenario.user.turns or []) - 1, 0)
    gold = [a for a in scenario.criteria.gold_actions if min(a.turn or 0, last) == request.turn]
    if failing:
        return AgentResponse(message=Message.assistant("Done."))
    if acted or not gold:
        facts = "; ".join(scenario.criteria.communicate)
        return AgentResponse(message=Message.assistant(f"Done. {facts}"))
    calls = [
        ToolCall(id=f"a-{request.turn}-{i}", name=a.tool, arguments=dict(a.args))
        for i, a in enumerate(gold)
    ]
    return AgentResponse(message=Message.assistant(None, calls))
