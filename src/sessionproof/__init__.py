"""sessionproof: prove whether a tool-calling agent survives whole multi-turn sessions.

import sessionproof
result = sessionproof.run_suite("demo", "oracle")
print(result.summary.session_accuracy)
"""

from ._api import RunResult, arun_suite, run_suite
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

__version__ = "0.1.0"

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
