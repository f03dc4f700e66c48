"""The scripted user of a perturbed scenario: it gives a withheld value only when asked."""

from __future__ import annotations

from ..records import Message
from ..users import UserReply


def asked(conversation: list[Message]) -> bool:
    """True when an agent reply since the user's last message asks a question ("?")."""
    for message in reversed(conversation):
        if message.role == "user":
            return False
        if message.role == "assistant" and "?" in (message.content or ""):
            return True
    return False


class AnsweringUser:
    """Sends the scenario's turns, prefixing a turn with its withheld value when the agent
    has just asked; an answer-only turn nobody asked for ends the session (user_stop)."""

    def __init__(self, turns: list[str], answers: dict[int, str]) -> None:
        self.turns = list(turns)
        self.answers = dict(answers)

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """Turn `turn` of the script, with its answer when the agent asked for it."""
        if turn >= len(self.turns):
            return UserReply(stop=True)
        text = self.turns[turn]
        answer = self.answers.get(turn)
        if answer is not None and asked(conversation):
            text = f"{answer} {text}".strip()
        if not text:
            return UserReply(stop=True)
        return UserReply(text=text)
