"""Simulated users: an LLM given the scenario's instructions and persona."""

from __future__ import annotations

from ..agents import Agent, AgentRequest
from ..agents._internal import STOP_TOKEN
from ..records import Message
from ._protocol import UserReply

STOP_TOKENS = (STOP_TOKEN, "###TRANSFER###", "###OUT-OF-SCOPE###")

_SYSTEM = """You are playing a customer talking to a customer-service agent. Stay in character.

Your goal and what you know:
{instructions}
{persona}
Rules:
- Write only what the customer says, one short message at a time, in the first person.
- Reveal information only when the agent asks for it or it is needed; never invent facts that
  are not in your goal.
- Do not act as the agent and do not call tools.
- When your goal is met, or the agent cannot help further, reply with exactly {stop}.
"""


def _flip(conversation: list[Message]) -> list[Message]:
    # The user model sees the dialogue from its side: the agent's words arrive as "user"
    # messages and its own earlier turns are "assistant" messages. Tool traffic is hidden.
    flipped: list[Message] = []
    for msg in conversation:
        if msg.role == "assistant" and msg.content:
            flipped.append(Message.user(msg.content))
        elif msg.role == "user" and msg.content:
            flipped.append(Message.assistant(msg.content))
    return flipped


class _Flipped:
    """`_flip` of a conversation that only grows, kept up to date one new message at a
    time (flipping the whole history at every turn made it quadratic in the session)."""

    def __init__(self) -> None:
        self._seen: list[Message] = []
        self._flipped: list[Message] = []

    def of(self, conversation: list[Message]) -> list[Message]:
        n = len(self._seen)
        grown = len(conversation) >= n and all(
            a is b for a, b in zip(conversation[:n], self._seen, strict=True)
        )
        if not grown:  # rewritten, not appended to: start over
            self._seen, self._flipped = [], []
            n = 0
        tail = conversation[n:]
        self._seen.extend(tail)
        self._flipped.extend(_flip(tail))
        return list(self._flipped)


class SimulatedUser:
    """A user played by a model, ending with an explicit stop token."""

    def __init__(
        self,
        model: Agent,
        instructions: str,
        persona: str | None = None,
        seed: int | None = None,
    ) -> None:
        self.model = model
        self.seed = seed
        """Sent with each request (None: the model's own); `run --vary` sets it per session."""
        self.system = _SYSTEM.format(
            instructions=instructions.strip(),
            persona=f"\nHow you behave:\n{persona.strip()}\n" if persona else "",
            stop=STOP_TOKEN,
        )
        self._history = _Flipped()

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """Ask the user model for its next message."""
        history = self._history.of(conversation)
        if not history:
            history = [Message.user("Hi! How can I help you today?")]
        request = AgentRequest(
            messages=[Message.system(self.system), *history], tools=[], turn=turn, seed=self.seed
        )
        response = await self.model.respond(request)
        calls = [c.model_copy(update={"role": "user"}) for c in response.model_calls]
        text = (response.message.content or "").strip()
        stop = any(tok in text for tok in STOP_TOKENS)
        for tok in STOP_TOKENS:
            text = text.replace(tok, "").strip()
        if stop:
            return UserReply(text=text or None, stop=True, model_calls=calls)
        return UserReply(text=text or "(no reply)", model_calls=calls)
