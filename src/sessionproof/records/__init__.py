"""The typed vocabulary every part of sessionproof speaks. Depends on nothing of ours."""

from ._arguments import MAX_ARGUMENT_CHARS, parse_arguments
from ._errors import ErrorClass, TerminationReason
from ._events import Event, EventKind
from ._messages import Message, ModelCall, Role, ToolCall, ToolResult, Usage
from ._scenario import Action, Criteria, ExpectedCall, ForbiddenAction, Scenario, UserSpec
from ._session import CriterionResult, Outcome, Session
from ._tools import ToolSpec

__all__ = [
    "MAX_ARGUMENT_CHARS",
    "Action",
    "Criteria",
    "CriterionResult",
    "ErrorClass",
    "Event",
    "EventKind",
    "ExpectedCall",
    "ForbiddenAction",
    "Message",
    "ModelCall",
    "Outcome",
    "Role",
    "Scenario",
    "Session",
    "TerminationReason",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "UserSpec",
    "parse_arguments",
]
