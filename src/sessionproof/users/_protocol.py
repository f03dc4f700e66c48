"""The user side of a session."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..records import Message
from ..records._internal import ModelCall


class UserReply(BaseModel):
    """The user's next message, or a stop."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    stop: bool = False
    model_calls: list[ModelCall] = Field(default_factory=list)


class User(Protocol):
    """Anything that plays the user."""

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """The message for user turn `turn` (0-based), given the conversation so far."""
        ...
