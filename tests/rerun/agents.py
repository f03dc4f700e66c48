"""Agents handed to `rerun` as `python:tests.rerun.agents:NAME` specs."""

from __future__ import annotations

import re

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message, ToolCall

_ORDER = re.compile(r"\b(1\d{3})\b")


def silent(request: AgentRequest) -> Message:
    """Deliberately wrong: never calls a tool and never states a fact."""
    return Message.assistant("I am sorry, I cannot look into that right now.")


async def canceller(request: AgentRequest) -> AgentResponse:
    """A tiny demo-domain agent: cancels the order a user asks to cancel, once per turn."""
    last = request.messages[-1]
    if last.role == "user" and "cancel" in (last.content or "").lower():
        found = _ORDER.search(last.content or "")
        if found:
            call = ToolCall(
                id=f"c{request.turn}",
                name="cancel_order",
                arguments={"order_id": found.group(1), "reason": "ordered_by_mistake"},
            )
            return AgentResponse(message=Message.assistant(None, [call]))
    return AgentResponse(message=Message.assistant("Done."))
