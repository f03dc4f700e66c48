"""sessionproof: prove whether a tool-calling agent survives whole multi-turn sessions.

import sessionproof
result = sessionproof.run_suite("demo", "oracle")
print(result.summary.session_accuracy)

`run_suite`, `arun_suite` and `RunResult` load the harness (engine, scoring, suites, store) on
first use, not on `import sessionproof`: a team importing only `sessionproof.guard` into its
service pays for the guard and the records, nothing else.
"""

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from ._api import RunResult, arun_suite, run_suite

_LAZY = frozenset({"RunResult", "arun_suite", "run_suite"})

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


def __getattr__(name: str) -> Any:
    """The harness's entry points, imported on first use (module attribute hook, PEP 562)."""
    if name in _LAZY:
        from . import _api

        return getattr(_api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
