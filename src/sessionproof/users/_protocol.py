"""The user side of a session."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..records import Message, ToolCall, ToolResult, ToolSpec
from ..records._internal import ModelCall


class UserReply(BaseModel):
    """The user's next message, or a stop; or calls on the user's own tools first."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    stop: bool = False
    model_calls: list[ModelCall] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Calls on the user's own tools (dual control). The engine runs them on the user's
    tool source, hands the results to `ToolUser.observe`, and asks again unless this reply
    also says something (`text`) or stops."""


class User(Protocol):
    """Anything that plays the user."""

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """The message for user turn `turn` (0-based), given the conversation so far."""
        ...


@runtime_checkable
class ToolUser(Protocol):
    """A user who holds tools of its own (optional: the engine checks for it).

    The engine lists the user's tools before each of its replies (`give_tools`: drift on
    the user's side may change them from one turn on) and hands back what its calls
    returned (`observe`). The agent never sees this traffic: it sees what the user says."""

    def give_tools(self, tools: list[ToolSpec]) -> None:
        """The tools the user can call now."""
        ...

    def observe(self, calls: list[ToolCall], results: list[ToolResult]) -> None:
        """The results of the user's last calls, in order."""
        ...
