"""The typed vocabulary every part of sessionproof speaks. Depends on nothing of ours."""

from ._errors import ErrorClass, TerminationReason
from ._events import (
    AssistantMessageEvent,
    Event,
    EventKind,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
    parse_events,
)
from ._messages import Message, ToolCall, ToolResult
from ._outcome import CriterionResult, Outcome
from ._payloads import Termination
from ._scenario import Action, Criteria, ExpectedCall, ForbiddenAction, Scenario, UserSpec
from ._session import Session
from ._tools import ToolSpec

__all__ = [
    "Action",
    "AssistantMessageEvent",
    "Criteria",
    "CriterionResult",
    "ErrorClass",
    "Event",
    "EventKind",
    "ExpectedCall",
    "ForbiddenAction",
    "Message",
    "Outcome",
    "Scenario",
    "Session",
    "Termination",
    "TerminationReason",
    "ToolCall",
    "ToolCallEvent",
    "ToolResult",
    "ToolResultEvent",
    "ToolSpec",
    "UserMessageEvent",
    "UserSpec",
    "parse_events",
]
