"""A `python:` agent whose demo sessions end all three ways: it makes the gold calls of the
first scenarios and says their facts (pass), does nothing in others (fail), and meets a
provider outage in every third one (infra_error: not judged)."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.errors import InfraError
from sessionproof.records import Message, ToolCall


def respond(request: AgentRequest) -> AgentResponse:
    """By the scenario's rank (its id's byte sum mod 3): 0, the turn's gold calls once, then a
    reply with the facts to say; 1, only a reply; 2, an outage."""
    scenario = request.scenario
    assert scenario is not None
    rank = sum(scenario.id.encode()) % 3
    if rank == 2:
        raise InfraError("the provider is down (test outage)")
    acted = False
    for msg in reversed(request.messages):
        if msg.role == "user":
            break
        acted = acted or bool(msg.role == "assistant" and msg.tool_calls)
    gold = [a for a in scenario.criteria.gold_actions if (a.turn or 0) == request.turn]
    if rank == 1:
        return AgentResponse(message=Message.assistant("Done."))
    if acted or not gold:
        facts = "; ".join(scenario.criteria.communicate)
        return AgentResponse(message=Message.assistant(f"Done. {facts}"))
    calls = [
        ToolCall(id=f"g-{request.turn}-{i}", name=a.tool, arguments=dict(a.args))
        for i, a in enumerate(gold)
    ]
    return AgentResponse(message=Message.assistant(None, calls))
