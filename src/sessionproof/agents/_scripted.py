"""Scripted agents: fixed replies for tests and for checking the harness itself."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from ..records import Message
from ._protocol import AgentRequest, AgentResponse

Policy = Callable[[AgentRequest], Message | AgentResponse | Awaitable[Message | AgentResponse]]


class ScriptedAgent:
    """An agent whose every reply comes from a function (sync or async) of the request.

    A plain list of messages is accepted too: they are returned in order, then a final
    "Done." text when the list runs out.
    """

    plays_users = False
    """Scripted, not a language model: it cannot play the simulated user."""

    def __init__(self, policy: Policy | list[Message], name: str = "scripted") -> None:
        self.name = name
        if isinstance(policy, list):
            queue = list(policy)

            def from_list(_: AgentRequest) -> Message:
                return queue.pop(0) if queue else Message.assistant("Done.")

            self._policy: Policy = from_list
        else:
            self._policy = policy

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Ask the policy for the next message."""
        reply = self._policy(request)
        if inspect.isawaitable(reply):
            reply = await reply
        if isinstance(reply, AgentResponse):
            return reply
        return AgentResponse(message=reply)

    async def aclose(self) -> None:
        """Nothing to release."""
