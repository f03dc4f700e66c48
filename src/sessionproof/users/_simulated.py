"""Simulated users: an LLM given the scenario's instructions and persona."""

from __future__ import annotations

from ..agents import Agent, AgentRequest
from ..agents._internal import STOP_TOKEN
from ..records import Message, ToolCall, ToolResult, ToolSpec
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
{tools_rule}
- When your goal is met, or the agent cannot help further, reply with exactly {stop}.
"""

_NO_TOOLS = "- Do not act as the agent and do not call tools."
_WITH_TOOLS = """- Do not act as the agent. You have tools of your own (your device, your account
  page): when the agent asks you to check or change something on your side, do it with your tools,
  one step at a time, and tell the agent what they showed. Never make up what a tool would
  show, and do not change things on your own initiative."""


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
        parts = {
            "instructions": instructions.strip(),
            "persona": f"\nHow you behave:\n{persona.strip()}\n" if persona else "",
            "stop": STOP_TOKEN,
        }
        self.system = _SYSTEM.format(tools_rule=_NO_TOOLS, **parts)
        """The user model's system prompt (a user without tools of its own)."""
        self.system_with_tools = _SYSTEM.format(tools_rule=_WITH_TOOLS, **parts)
        """The system prompt when the user holds tools (`give_tools`)."""
        self._history = _Flipped()
        self._tools: list[ToolSpec] = []
        self._own: list[tuple[int, Message]] = []
        """The user's own tool traffic, each at the length the flipped history had then."""
        self._seen = 0

    def give_tools(self, tools: list[ToolSpec]) -> None:
        """The user's own tools, offered to the user model with its next request."""
        self._tools = list(tools)

    def observe(self, calls: list[ToolCall], results: list[ToolResult]) -> None:
        """Keep the user's calls and their results in its own view of the dialogue."""
        self._own.append((self._seen, Message.assistant(None, list(calls))))
        self._own.extend((self._seen, Message.tool(r)) for r in results)

    def _merged(self, history: list[Message]) -> list[Message]:
        if not self._own:
            return history
        out: list[Message] = []
        own = iter(self._own)
        pending = next(own, None)
        for i, msg in enumerate(history):
            while pending is not None and pending[0] <= i:
                out.append(pending[1])
                pending = next(own, None)
            out.append(msg)
        while pending is not None:
            out.append(pending[1])
            pending = next(own, None)
        return out

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """Ask the user model for its next message."""
        history = self._history.of(conversation)
        if not history:
            history = [Message.user("Hi! How can I help you today?")]
        self._seen = len(history)
        system = self.system_with_tools if self._tools else self.system
        request = AgentRequest(
            messages=[Message.system(system), *self._merged(history)],
            tools=list(self._tools),
            turn=turn,
            seed=self.seed,
        )
        response = await self.model.respond(request)
        calls = [c.model_copy(update={"role": "user"}) for c in response.model_calls]
        if response.message.tool_calls and self._tools:
            return UserReply(tool_calls=list(response.message.tool_calls), model_calls=calls)
        text = (response.message.content or "").strip()
        stop = any(tok in text for tok in STOP_TOKENS)
        for tok in STOP_TOKENS:
            text = text.replace(tok, "").strip()
        if stop:
            return UserReply(text=text or None, stop=True, model_calls=calls)
        return UserReply(text=text or "(no reply)", model_calls=calls)
