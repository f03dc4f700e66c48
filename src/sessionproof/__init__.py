"""sessionproof: prove whether a tool-calling agent survives whole multi-turn sessions.

import sessionproof
result = sessionproof.run_suite("demo", "oracle")
print(result.summary.session_accuracy)

`run_suite`, `arun_suite` and `RunResult` load the harness (engine, scoring, suites, store) on
first use, not on `import sessionproof`: a team importing only `sessionproof.guard` into its
service pays for the guard and the records, nothing else.
"""

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__

if TYPE_CHECKING:
    from ._api import RunResult, arun_suite, run_suite
    from .records import Criteria, Outcome, Scenario, Session

# The records (pydantic models, ~0.15 s) load on first use too: `sessionproof --help` and a
# command that needs no record start without them.
_MODULE_OF: dict[str, str] = {
    "Criteria": ".records",
    "Outcome": ".records",
    "RunResult": "._api",
    "Scenario": ".records",
    "Session": ".records",
    "arun_suite": "._api",
    "run_suite": "._api",
}

__all__ = [
    "Criteria",
    "Outcome",
    "RunResult",
    "Scenario",
    "Session",
    "__version__",
    "arun_suite",
    "run_suite",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
