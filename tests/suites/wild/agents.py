"""Agents for the wild-suite and perturbation tests, also usable as `python:` specs."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.records import Message, ToolCall

_oracle = OracleAgent()


def _since_user(request: AgentRequest) -> list[Message]:
    for i in range(len(request.messages) - 1, -1, -1):
        if request.messages[i].role == "user":
            return request.messages[i + 1 :]
    return []


async def never_batches(request: AgentRequest) -> AgentResponse:
    """The oracle's calls, one per assistant message: right calls, never the batched path."""
    scenario = request.scenario
    if scenario is None:
        return await _oracle.respond(request)
    last = max(len(scenario.user.turns or []) - 1, 0)
    gold = [a for a in scenario.criteria.gold_actions if min(a.turn or 0, last) == request.turn]
    done = sum(len(m.tool_calls) for m in _since_user(request) if m.role == "assistant")
    if done >= len(gold):
        return await _oracle.respond(request)
    action = gold[done]
    call = ToolCall(id=f"one-{request.turn}-{done}", name=action.tool, arguments=dict(action.args))
    return AgentResponse(message=Message.assistant(None, [call]))


async def chatty(request: AgentRequest) -> AgentResponse:
    """The oracle, except it answers small talk ("thanks") with a tool call."""
    last = next((m for m in reversed(request.messages) if m.role == "user"), None)
    acted = any(m.role == "assistant" and m.tool_calls for m in _since_user(request))
    if last is not None and "helpful" in (last.content or "") and not acted:
        call = ToolCall(id="chatty", name="list_customer_orders", arguments={"customer_id": "C01"})
        return AgentResponse(message=Message.assistant(None, [call]))
    return await _oracle.respond(request)


async def guesses(request: AgentRequest) -> AgentResponse:
    """The oracle, except it never asks: a gold call whose values the user withholds until
    asked (`ask_first`) is made one turn early, with the withheld values guessed."""
    scenario = request.scenario
    response = await _oracle.respond(request)
    if scenario is None:
        return response
    acted = any(m.role == "assistant" and m.tool_calls for m in _since_user(request))
    early = [
        a for a in scenario.criteria.gold_actions if a.ask_first and a.turn == request.turn + 1
    ]
    if early and not acted:
        calls = [
            ToolCall(
                id=f"guess-{request.turn}-{i}",
                name=a.tool,
                arguments={**a.args, **{k: "1001" for k in a.ask_first}},
            )
            for i, a in enumerate(early)
        ]
        return AgentResponse(
            message=Message.assistant(None, [*response.message.tool_calls, *calls])
        )
    text = response.message.content or ""
    if "?" in text:
        return AgentResponse(message=Message.assistant(text.split(" Could you")[0]))
    return response
