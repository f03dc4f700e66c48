"""A `python:` agent: a plain function that sessionproof calls for every agent step.

No model, just rules, so it runs anywhere: it answers "where is my order?" questions on the
demo shop. From the folder this file is in:

    sessionproof run --suite demo --model python:order_status_agent:respond --limit 1

The function gets an `AgentRequest` (the conversation so far, the tools it may call now, the
turn and step) and returns an `AgentResponse` (or a plain `Message`). An assistant message with
tool calls asks the harness to run them; their results come back as `tool` messages in the
next request, and a message without tool calls is the agent's reply to the user. A failed call
(a tool error or an injected fault) comes back as a `tool` message starting "Error:". The
function may be `async`; it must not block (sessions run concurrently in one event loop).
"""

from __future__ import annotations

import json
import re

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message, ToolCall

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
ORDER_NUMBER = re.compile(r"\b\d{4}\b")


def _since_last_user(messages: list[Message]) -> tuple[str, list[Message]]:
    """The latest user message and every message after it."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return messages[i].content or "", messages[i + 1 :]
    return "", list(messages)


def _lookups(text: str, request: AgentRequest) -> list[ToolCall]:
    """The calls the user's message asks for: who they are, then each order they name."""
    calls = []
    if email := EMAIL.search(text):
        args = {"email": email.group(0).rstrip(".")}
        calls.append(
            ToolCall(id=f"t{request.turn}-who", name="find_customer_by_email", arguments=args)
        )
    for number in dict.fromkeys(ORDER_NUMBER.findall(text)):
        calls.append(
            ToolCall(
                id=f"t{request.turn}-{number}", name="get_order", arguments={"order_id": number}
            )
        )
    return calls


def _describe(result: Message) -> str | None:
    """One sentence about an order from a get_order result, or None for other results."""
    try:
        order = json.loads(result.content or "")
    except ValueError:
        return None
    if not isinstance(order, dict) or "status" not in order or "id" not in order:
        return None
    sentence = f"Order {order['id']} is {order['status']}"
    shipment = order.get("shipment")
    if isinstance(shipment, dict):
        sentence += f", shipped with {shipment['carrier']} (tracking {shipment['tracking_number']})"
    return sentence + "."


def respond(request: AgentRequest) -> AgentResponse:
    """Look up what the latest user message names, retry a failed lookup once, then answer."""
    text, since = _since_last_user(request.messages)
    tools = {t.name for t in request.tools}
    calls_made = [c for m in since if m.role == "assistant" for c in m.tool_calls]
    results = [m for m in since if m.role == "tool"]
    if not calls_made:
        calls = [c for c in _lookups(text, request) if c.name in tools]
        if calls:
            return AgentResponse(message=Message.assistant(None, calls))
        return AgentResponse(message=Message.assistant("Glad I could help. Anything else?"))
    failed = [r for r in results if (r.content or "").startswith("Error:")]
    retried = {c.id for c in calls_made if c.id.endswith("-retry")}
    retry = [
        ToolCall(id=f"{c.id}-retry", name=c.name, arguments=c.arguments)
        for c in calls_made
        if c.id in {r.tool_call_id for r in failed} and f"{c.id}-retry" not in retried
    ]
    if retry:
        return AgentResponse(message=Message.assistant(None, retry))
    found = [s for r in results if (s := _describe(r)) is not None]
    reply = " ".join(found) if found else "Sorry, I could not find that order."
    return AgentResponse(message=Message.assistant(reply))
