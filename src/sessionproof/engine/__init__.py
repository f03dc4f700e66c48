"""The engine: the session loop, the run executor, the judge protocol it consumes and the
termination rule. It imports neither suites nor scoring: a suite is a `JudgedSuite`
structurally."""

from ._boundary import (
    MAX_TOOL_OUTPUT_CHARS,
    CallContext,
    Emit,
    NoHooks,
    SessionHooks,
    ToolBoundary,
    execute_on_domain,
)
from ._judge import PREMATURE, Judge, JudgedSuite, with_termination
from ._loop import (
    DEFAULT_AGENT_TIMEOUT_S,
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_STEPS,
    SessionPlan,
    run_session,
)
from ._runner import (
    HooksFactory,
    Progress,
    RunPlan,
    SessionList,
    SessionSink,
    execute_run,
    session_id,
    session_seed,
    user_for,
)

__all__ = [
    "DEFAULT_AGENT_TIMEOUT_S",
    "DEFAULT_MAX_ERRORS",
    "DEFAULT_MAX_STEPS",
    "MAX_TOOL_OUTPUT_CHARS",
    "PREMATURE",
    "CallContext",
    "Emit",
    "HooksFactory",
    "Judge",
    "JudgedSuite",
    "NoHooks",
    "Progress",
    "RunPlan",
    "SessionHooks",
    "SessionList",
    "SessionPlan",
    "SessionSink",
    "ToolBoundary",
    "execute_on_domain",
    "execute_run",
    "run_session",
    "session_id",
    "session_seed",
    "user_for",
    "with_termination",
]
