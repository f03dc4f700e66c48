"""sessionproof: prove whether a tool-calling agent survives whole multi-turn sessions.

import sessionproof
result = sessionproof.run_suite("demo", "oracle")
print(result.summary.session_accuracy)
"""

from ._api import RunResult, arun_suite, run_suite
from ._version import __version__
from .records import (
    Action,
    Criteria,
    ErrorClass,
    Event,
    EventKind,
    Message,
    Outcome,
    Scenario,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
)

__all__ = [
    "Action",
    "Criteria",
    "ErrorClass",
    "Event",
    "EventKind",
    "Message",
    "Outcome",
    "RunResult",
    "Scenario",
    "Session",
    "TerminationReason",
    "ToolCall",
    "ToolResult",
    "__version__",
    "arun_suite",
    "run_suite",
]
