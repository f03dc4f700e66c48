"""The engine: the session loop, the run executor, the judge protocol it consumes and the
termination rule. It imports neither suites nor scoring: a suite is a `JudgedSuite`
structurally."""

from ._boundary import ScenarioHooks, SessionHooks
from ._judge import Judge
from ._loop import run_session
from ._runner import Progress, execute_run
from ._writer import SessionSink

__all__ = [
    "Judge",
    "Progress",
    "ScenarioHooks",
    "SessionHooks",
    "SessionSink",
    "execute_run",
    "run_session",
]
