"""Scripted users: fixed turns, then stop."""

from __future__ import annotations

from ..records import Message
from ._protocol import UserReply


class ScriptedUser:
    """Sends the scenario's turns one per user turn, then ends the session (user_stop)."""

    def __init__(self, turns: list[str]) -> None:
        self.turns = list(turns)

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """The next scripted turn, or a stop when the script is done."""
        if turn < len(self.turns):
            return UserReply(text=self.turns[turn])
        return UserReply(stop=True)


class InstructionUser(ScriptedUser):
    """A stand-in for a simulated user when no user model is available (reference agents).

    It states the scenario's instructions as one message and stops after the agent answers,
    which is all a reference agent such as the oracle needs.
    """

    def __init__(self, instructions: str) -> None:
        super().__init__([instructions])
