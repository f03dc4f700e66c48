"""Sessions: one trial's whole trace and its verdict."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ._errors import TerminationReason
from ._events import (
    AssistantMessageEvent,
    Event,
    EventBase,
    EventKind,
    ModelCallEvent,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
    UserToolCallEvent,
    UserToolResultEvent,
)
from ._messages import Message, ModelCall, ToolCall, ToolResult, Usage
from ._outcome import Outcome

E = TypeVar("E", bound=EventBase)


class Session(BaseModel):
    """One trial's full trace: every event in order, with its verdict."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    session_id: str
    scenario_id: str
    trial: int
    arm: str = "baseline"
    """The condition the session ran under, named by its spec string."""
    model: str = ""
    """Model spec, with no secret."""
    events: list[Event] = Field(default_factory=list)
    termination: TerminationReason
    termination_detail: str = ""
    outcome: Outcome | None = None
    usage: Usage = Field(default_factory=Usage)
    started_at: float = 0.0
    ended_at: float = 0.0
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def infra_error(self) -> bool:
        """True when the session ended for infrastructure reasons (not the agent's fault)."""
        return self.termination is TerminationReason.infra_error

    @property
    def success(self) -> bool:
        """True when the session was judged a success."""
        return bool(self.outcome and self.outcome.judged and self.outcome.success)

    @property
    def judged(self) -> bool:
        """True when the session has a verdict: it did not end in infra_error, it has an
        outcome, and that outcome was judged (`Outcome.not_judged` is None). Sessions that
        were not judged are excluded from accuracy and pass^k and counted apart."""
        return not self.infra_error and self.outcome is not None and self.outcome.judged

    @property
    def verdict(self) -> bool | None:
        """True (success), False (failure) or None (not judged: see `judged`)."""
        return self.success if self.judged else None

    def of_kind(self, kind: EventKind) -> list[Event]:
        """Events of one kind, in order."""
        return [e for e in self.events if e.kind is kind]

    def events_of(self, cls: type[E]) -> list[E]:
        """Events of one event model (e.g. `ToolCallEvent`), in order, typed as such."""
        return [e for e in self.events if isinstance(e, cls)]

    def messages(self) -> list[Message]:
        """The conversation (user, assistant and tool messages) in order."""
        out: list[Message] = []
        for e in self.events:
            if isinstance(e, UserMessageEvent | AssistantMessageEvent):
                out.append(e.payload)
            elif isinstance(e, ToolResultEvent):
                out.append(Message.tool(e.payload))
        return out

    def tool_calls(self) -> list[ToolCall]:
        """Every tool call the agent emitted, in order."""
        return [e.payload for e in self.events_of(ToolCallEvent)]

    def tool_results(self) -> list[ToolResult]:
        """Every tool result, in order."""
        return [e.payload for e in self.events_of(ToolResultEvent)]

    def user_tool_calls(self) -> list[ToolCall]:
        """Every call the user side made on its own tools (dual control), in order."""
        return [e.payload for e in self.events_of(UserToolCallEvent)]

    def user_tool_results(self) -> list[ToolResult]:
        """Every result of the user's own tool calls, in order."""
        return [e.payload for e in self.events_of(UserToolResultEvent)]

    def model_calls(self) -> list[ModelCall]:
        """Every model request, in order."""
        return [e.payload for e in self.events_of(ModelCallEvent)]

    def agent_texts(self) -> list[str]:
        """The text of every assistant message."""
        return [e.payload.content or "" for e in self.events_of(AssistantMessageEvent)]
