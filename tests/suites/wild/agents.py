"""Agents for the wild-suite and perturbation tests, also usable as `python:` specs."""

from __future__ import annotations

import json

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


SKIPPED_TASK = 2
"""The task (1-based) `loses_the_thread` fails."""


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


LOST_THREAD = "Sorry, I lost the thread there."
"""What `loses_the_thread` answers task 2 with; in its history it marks where it got lost."""


async def loses_the_thread(request: AgentRequest) -> AgentResponse:
    """An agent that fails task 2 and is derailed by its own failure: it answers the second
    user message with `LOST_THREAD`, and from then on remembers only what came after that
    reply. Otherwise it acts on what it remembers: a gold call of the turn once every id among
    its arguments is in its memory (user messages, tool results, the calls in its history),
    one step at a time, telling only the facts it remembers. On its own history a later task
    that needs something from before (the customer's id, that order, the first order) fails;
    from the gold prefix, whose history shows task 2 done, it does not."""
    scenario = request.scenario
    if scenario is None:
        return await _oracle.respond(request)
    if request.turn == SKIPPED_TASK - 1:
        return AgentResponse(message=Message.assistant(LOST_THREAD))
    memory = list(request.messages)
    for i, m in enumerate(memory):
        if m.role == "assistant" and m.content == LOST_THREAD:
            memory = memory[i + 1 :]
    seen = "\n".join(
        [m.content or "" for m in memory if m.role in ("user", "tool")]
        + [json.dumps(c.arguments) for m in memory if m.role == "assistant" for c in m.tool_calls]
    )
    made = [c for m in _since_user(request) if m.role == "assistant" for c in m.tool_calls]
    last = max(len(scenario.user.turns or []) - 1, 0)
    gold = [a for a in scenario.criteria.gold_actions if min(a.turn or 0, last) == request.turn]
    done = {(c.name, repr(c.arguments)) for c in made}
    todo = [a for a in gold if (a.tool, repr(dict(a.args))) not in done]
    # Ids (values with a digit) must have been seen; words (a reason, a category) it knows.
    ready = [
        a for a in todo if all(v in seen for v in _strings(a.args) if any(c.isdigit() for c in v))
    ]
    if ready:
        calls = [
            ToolCall(id=f"f-{request.turn}-{len(made) + i}", name=a.tool, arguments=dict(a.args))
            for i, a in enumerate(ready)
        ]
        return AgentResponse(message=Message.assistant(None, calls))
    # Nothing more it can do this turn: the oracle's reply (a question if due), but telling
    # only the facts its conversation shows (a status it never looked up, it cannot say).
    facts = [f for f in scenario.criteria.communicate if f.lower() in seen.lower()]
    text = "Done. " + "; ".join(facts) + "." if facts else "Done."
    wanted = [
        n.replace("_", " ")
        for a in scenario.criteria.gold_actions
        if a.turn == request.turn + 1 and request.turn < last
        for n in a.ask_first
    ]
    if wanted:
        text += " Could you tell me the " + " and the ".join(dict.fromkeys(wanted)) + "?"
    return AgentResponse(message=Message.assistant(text))


async def skips_repeated_reads(request: AgentRequest) -> AgentResponse:
    """The oracle, except a read whose answer is already in its history (the same call made,
    by it or in the gold prefix) is not made again."""
    response = await _oracle.respond(request)
    calls = response.message.tool_calls
    if not calls:
        return response
    made = {
        (c.name, json.dumps(c.arguments, sort_keys=True))
        for m in request.messages
        if m.role == "assistant"
        for c in m.tool_calls
    }
    fresh = [
        c
        for c in calls
        if not (
            c.name.startswith("get_") and (c.name, json.dumps(c.arguments, sort_keys=True)) in made
        )
    ]
    if fresh:
        return AgentResponse(message=Message.assistant(None, fresh))
    # Nothing new to call: answer as the oracle does once it has acted.
    acted = [*request.messages, Message.assistant(None, calls)]
    return await _oracle.respond(request.model_copy(update={"messages": acted}))
