"""A `python:` agent for the environment tests: the scenario's gold calls, one per step, each
failed call retried once, then the facts to communicate. It reads the scenario from the
request (as reference agents may), so faults decide which sessions pass."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message, ToolCall


def _this_turn(messages: list[Message]) -> list[Message]:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return messages[i + 1 :]
    return []


def respond(request: AgentRequest) -> AgentResponse:
    """The next gold call of this turn (a failed one once more), or the closing reply."""
    scenario = request.scenario
    assert scenario is not None
    last_turn = max(len(scenario.user.turns or []) - 1, 0)
    gold = [
        a
        for a in scenario.criteria.gold_actions
        if min(a.turn if a.turn is not None else 0, last_turn) == request.turn
    ]
    since = _this_turn(request.messages)
    made = [c for m in since if m.role == "assistant" for c in m.tool_calls]
    results = {m.tool_call_id: m.content or "" for m in since if m.role == "tool"}
    failed = [c for c in made if results.get(c.id, "").startswith("Error")]
    retried = {c.id.removesuffix("-retry") for c in made if c.id.endswith("-retry")}
    for call in failed:
        if not call.id.endswith("-retry") and call.id not in retried:
            again = ToolCall(id=f"{call.id}-retry", name=call.name, arguments=call.arguments)
            return AgentResponse(message=Message.assistant(None, [again]))
    first_tries = [c for c in made if not c.id.endswith("-retry")]
    if len(first_tries) < len(gold):
        action = gold[len(first_tries)]
        call_id = f"g{request.turn}-{len(first_tries)}"
        call = ToolCall(id=call_id, name=action.tool, arguments=dict(action.args))
        return AgentResponse(message=Message.assistant(None, [call]))
    facts = scenario.criteria.communicate
    return AgentResponse(message=Message.assistant("Done. " + "; ".join(facts)))
