"""Conversation records: messages, tool calls and tool results."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from . import _trusted
from ._errors import ErrorClass
from ._fastpath import instance
from ._trusted import trusted, usable

Role = Literal["system", "user", "assistant", "tool"]
"""Who speaks a `Message`: the system prompt, the user, the agent (assistant) or a tool."""


class ToolCall(BaseModel):
    """One tool call an agent asked for."""

    model_config = ConfigDict(extra="forbid")

    id: str
    """Call id, unique within the session; tool results refer to it."""
    name: str
    """Name of the tool the agent asked for (it may not exist)."""
    arguments: dict[str, Any] | None = None
    """Parsed arguments, or None when the raw text did not parse as a JSON object."""
    raw_arguments: str | None = None
    """The arguments exactly as the model sent them, when they were text."""
    parse_error: str | None = None
    """Why `raw_arguments` could not be parsed, if it could not."""


class ToolResult(BaseModel):
    """What came back from one tool call (or what the harness answered instead)."""

    model_config = ConfigDict(extra="forbid")

    call_id: str
    """Id of the `ToolCall` this answers."""
    name: str
    """Tool name, copied from the call."""
    output: str
    """The text the agent sees: JSON for structured results, an error message on failure."""
    error_class: ErrorClass | None = None
    """Taxonomy class when the call failed; None on success."""
    error: str | None = None
    """Human-readable error text, when the call failed."""
    injected: bool = False
    """True when the failure was injected by a fault plan rather than met naturally."""
    latency_s: float = 0.0
    """Wall time spent executing the call."""

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.error_class is None


class Message(BaseModel):
    """One chat message in provider-neutral form."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str | None = None
    """Text content; None for an assistant message carrying only tool calls."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Tool calls carried by an assistant message, in the order the model emitted them."""
    tool_call_id: str | None = None
    """For role `tool`: the call this message answers."""
    name: str | None = None
    """For role `tool`: the tool's name."""

    @classmethod
    def system(cls, text: str) -> Message:
        """A system message."""
        return cls(role="system", content=text)

    # The builders below skip validating values already of their fields' exact types
    # (`instance` with every field filled in order: the same message, a third of the cost);
    # anything else is validated.

    @classmethod
    def user(cls, text: str) -> Message:
        """A user message."""
        if cls is Message and type(text) is str and _trusted.ENABLED and _FAST:
            fields: dict[str, Any] = {"role": "user", "content": text, "tool_calls": []}
            fields.update(_NO_TOOL)
            return instance(Message, fields, {"role", "content"})
        return cls(role="user", content=text)

    @classmethod
    def assistant(
        cls, text: str | None = None, tool_calls: list[ToolCall] | None = None
    ) -> Message:
        """An assistant message with text and/or tool calls."""
        calls = list(tool_calls or [])
        if (
            cls is Message
            and (text is None or type(text) is str)
            and all(type(c) is ToolCall for c in calls)
            and _trusted.ENABLED
            and _FAST
        ):
            fields = {"role": "assistant", "content": text, "tool_calls": calls}
            fields.update(_NO_TOOL)
            return instance(Message, fields, {"role", "content", "tool_calls"})
        return cls(role="assistant", content=text, tool_calls=calls)

    @classmethod
    def tool(cls, result: ToolResult) -> Message:
        """The tool message that carries `result` back to the model."""
        output, call_id, name = result.output, result.call_id, result.name
        if cls is Message and type(output) is str and type(call_id) is str and type(name) is str:
            values = {"role": "tool", "content": output, "tool_call_id": call_id, "name": name}
            return trusted(Message, values)
        return cls(role="tool", content=output, tool_call_id=call_id, name=name)


_NO_TOOL: dict[str, Any] = {"tool_call_id": None, "name": None}
_FAST = usable(Message) and list(Message.model_fields) == [
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
]
"""`Message.user`/`assistant` fill every field in this order; checked once."""


ModelRole = Literal["agent", "user", "judge"]
"""Who a `ModelCall` was made for: the agent under test, the simulated user or the NL judge."""


class Usage(BaseModel):
    """Token usage summed over model calls."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


class ModelCall(BaseModel):
    """One request to a model provider. Never holds credentials."""

    model_config = ConfigDict(extra="forbid")

    provider: str
    model: str
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str | None = None
    response_id: str | None = None
    attempts: int = 1
    """How many HTTP attempts the call took, retries included."""
    role: ModelRole = "agent"
    """Who made the call: the agent under test, the simulated user or the NL judge (stores
    written before this field read as the agent's, which is all they recorded then)."""
