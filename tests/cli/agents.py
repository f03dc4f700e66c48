"""Agents given to the CLI as `python:tests.cli.agents:NAME` specs."""

from __future__ import annotations

import time

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.records import Message, ToolCall

_oracle = OracleAgent()


async def mute(request: AgentRequest) -> AgentResponse:
    """The oracle, except it never states facts: fails exactly the scenarios that need some."""
    response = await _oracle.respond(request)
    if response.message.tool_calls:
        return response
    return AgentResponse(message=Message.assistant("All done."))


async def off_by_one(request: AgentRequest) -> AgentResponse:
    """The oracle, except every cancel_order targets the wrong order."""
    response = await _oracle.respond(request)
    for call in response.message.tool_calls:
        if call.name == "cancel_order" and call.arguments:
            call.arguments = {**call.arguments, "order_id": "9999"}
    return response


def slow(request: AgentRequest) -> Message | AgentResponse:
    """A slow oracle (sync, to exercise that path): gives a kill time to land mid-run."""
    import asyncio

    time.sleep(0.03)
    return asyncio.run(_oracle.respond(request))


LEAKED_KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0KLmn"


async def leaky(request: AgentRequest) -> AgentResponse:
    """An agent that blurts out a credential, in text and in tool arguments."""
    if request.step == 0:
        call = ToolCall(
            id="leak",
            name="find_customer_by_email",
            arguments={"email": f"x@example.com?api_key={LEAKED_KEY}"},
        )
        return AgentResponse(message=Message.assistant(None, [call]))
    return AgentResponse(message=Message.assistant(f"Use Bearer {LEAKED_KEY} to log in."))
