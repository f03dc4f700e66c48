"""Sessions and outcomes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ._errors import TerminationReason
from ._events import Event, EventKind
from ._messages import Message, ModelCall, ToolCall, ToolResult, Usage


class CriterionResult(BaseModel):
    """One criterion's verdict and the evidence for it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """e.g. `db`, `communicate`, `forbidden`, `action`, `nl_assertion`."""
    passed: bool | None
    """None when the criterion could not be evaluated (never silently counted as passed)."""
    evidence: str = ""


class Outcome(BaseModel):
    """The verdict of one session."""

    model_config = ConfigDict(extra="forbid")

    success: bool
    reward: float
    criteria: list[CriterionResult] = Field(default_factory=list)

    def criterion(self, name: str) -> CriterionResult | None:
        """The result of criterion `name`, if it was judged."""
        return next((c for c in self.criteria if c.name == name), None)


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
        return bool(self.outcome and self.outcome.success)

    def of_kind(self, kind: EventKind) -> list[Event]:
        """Events of one kind, in order."""
        return [e for e in self.events if e.kind is kind]

    def messages(self) -> list[Message]:
        """The conversation (user, assistant and tool messages) in order."""
        out: list[Message] = []
        for e in self.events:
            if e.kind in (EventKind.user_message, EventKind.assistant_message):
                out.append(Message.model_validate(e.payload))
            elif e.kind is EventKind.tool_result:
                out.append(Message.tool(ToolResult.model_validate(e.payload)))
        return out

    def tool_calls(self) -> list[ToolCall]:
        """Every tool call the agent emitted, in order."""
        return [ToolCall.model_validate(e.payload) for e in self.of_kind(EventKind.tool_call)]

    def tool_results(self) -> list[ToolResult]:
        """Every tool result, in order."""
        return [ToolResult.model_validate(e.payload) for e in self.of_kind(EventKind.tool_result)]

    def model_calls(self) -> list[ModelCall]:
        """Every model request, in order."""
        return [ModelCall.model_validate(e.payload) for e in self.of_kind(EventKind.model_call)]

    def agent_texts(self) -> list[str]:
        """The text of every assistant message."""
        return [
            str(e.payload.get("content") or "") for e in self.of_kind(EventKind.assistant_message)
        ]
