"""Recipe: a model provider, so `--model canned:TEXT` works like the built-in specs.

A provider is a factory registered for one spec kind (the part before ':'). Register it in a
module your program imports before the run; import your SDK inside the factory, so the module
costs nothing until a spec of this kind is used.
"""

from __future__ import annotations

from sessionproof.agents import AgentOptions, AgentRequest, AgentResponse, provider
from sessionproof.records import Message


class CannedAgent:
    """An agent that gives the same reply at every step (stand-in for your SDK's client)."""

    def __init__(self, reply: str) -> None:
        self.name = f"canned:{reply}"  # the spec as shown and stored: never put a secret here
        self.reply = reply

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Answer every request with the canned text and no tool call."""
        return AgentResponse(message=Message.assistant(self.reply))

    async def aclose(self) -> None:
        """Release the client (nothing to release here); called once when the run ends."""


@provider("canned", accepts="canned:TEXT")
def canned(model: str | None, options: AgentOptions) -> CannedAgent:
    """The factory: `model` is the part after 'canned:' (required by default)."""
    assert model is not None
    return CannedAgent(model)
