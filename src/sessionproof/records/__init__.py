"""The typed vocabulary every part of sessionproof speaks. Depends on nothing of ours."""

from ._arguments import MAX_ARGUMENT_CHARS, parse_arguments
from ._errors import ErrorClass, TerminationReason
from ._events import (
    EVENT_ADAPTER,
    AgentErrorEvent,
    AssistantMessageEvent,
    DriftAppliedEvent,
    EndEvent,
    Event,
    EventBase,
    EventKind,
    EventPayload,
    FaultInjectedEvent,
    GuardDecisionEvent,
    ModelCallEvent,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
    VerdictEvent,
    make_event,
    parse_event,
)
from ._messages import Message, ModelCall, Role, ToolCall, ToolResult, Usage
from ._outcome import CriterionResult, Outcome
from ._payloads import (
    AgentError,
    Decision,
    DriftApplied,
    FaultInjected,
    GuardDecision,
    Termination,
)
from ._scenario import Action, Criteria, ExpectedCall, ForbiddenAction, Scenario, UserSpec
from ._session import Session
from ._tools import ToolSpec

__all__ = [
    "EVENT_ADAPTER",
    "MAX_ARGUMENT_CHARS",
    "Action",
    "AgentError",
    "AgentErrorEvent",
    "AssistantMessageEvent",
    "Criteria",
    "CriterionResult",
    "Decision",
    "DriftApplied",
    "DriftAppliedEvent",
    "EndEvent",
    "ErrorClass",
    "Event",
    "EventBase",
    "EventKind",
    "EventPayload",
    "ExpectedCall",
    "FaultInjected",
    "FaultInjectedEvent",
    "ForbiddenAction",
    "GuardDecision",
    "GuardDecisionEvent",
    "Message",
    "ModelCall",
    "ModelCallEvent",
    "Outcome",
    "Role",
    "Scenario",
    "Session",
    "Termination",
    "TerminationReason",
    "ToolCall",
    "ToolCallEvent",
    "ToolResult",
    "ToolResultEvent",
    "ToolSpec",
    "Usage",
    "UserMessageEvent",
    "UserSpec",
    "VerdictEvent",
    "make_event",
    "parse_arguments",
    "parse_event",
]
