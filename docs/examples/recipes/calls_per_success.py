"""Recipe: a metric of your own, registered, so every output of sessionproof carries it.

A metric is a name, a definition (printed with its numbers) and a value per session; the
default aggregation is the mean with a 95% bootstrap interval over scenarios. Importing this
module registers it: from then on `show RUN --metrics` (and `--json`), the HTML report and the
trace export's `gen_ai.evaluation.result` events show it, one value per arm. Sessions that
were not judged are left out (counted in `not_judged`), a None value is "not applicable"
(counted apart, never a zero), and a session the function raises on is listed in `missing`
with the reason while the others are still counted.

In a package, declare it as an entry point instead of importing it:

    [project.entry-points."sessionproof.metrics"]
    calls_per_success = "my_package.metrics:calls_per_success"
"""

from __future__ import annotations

from sessionproof.records import ToolCallEvent
from sessionproof.scoring import SessionInput, metric


@metric(
    "calls_per_success",
    "tool calls the agent made per passed session (failed sessions are not applicable; "
    "sessions that were not judged are left out); mean with a 95% bootstrap interval.",
)
def calls_per_success(item: SessionInput) -> float | None:
    """The session's tool calls when it passed; None (not applicable) when it failed."""
    if not item.session.verdict:
        return None
    return len(item.session.events_of(ToolCallEvent))
