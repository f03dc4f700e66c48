"""The engine: the session loop, the run executor, the judge protocol it consumes and the
termination rule. It imports neither suites nor scoring: a suite is a `JudgedSuite`
structurally."""

from ._boundary import NoHooks, ScenarioHooks, SessionHooks
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
    RunItem,
    RunPlan,
    SessionList,
    execute_run,
    plan_session,
    session_id,
    session_seed,
    todo_items,
    user_for,
)
from ._served import REPLY_TOOL, USER_DONE, ServedSession
from ._writer import GroupWriter, SessionSink

__all__ = [
    "DEFAULT_AGENT_TIMEOUT_S",
    "DEFAULT_MAX_ERRORS",
    "DEFAULT_MAX_STEPS",
    "PREMATURE",
    "REPLY_TOOL",
    "USER_DONE",
    "GroupWriter",
    "HooksFactory",
    "Judge",
    "JudgedSuite",
    "NoHooks",
    "Progress",
    "RunItem",
    "RunPlan",
    "ScenarioHooks",
    "ServedSession",
    "SessionHooks",
    "SessionList",
    "SessionPlan",
    "SessionSink",
    "execute_run",
    "plan_session",
    "run_session",
    "session_id",
    "session_seed",
    "todo_items",
    "user_for",
    "with_termination",
]
