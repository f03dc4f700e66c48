"""The run's progress on stderr when it is not a terminal: one plain line per session."""

from __future__ import annotations

import io

from rich.console import Console

from sessionproof.cli._progress import RunProgress
from sessionproof.records import TerminationReason
from tests.store.factory import session


def test_a_log_gets_one_line_per_session_with_the_running_accuracy() -> None:
    out = io.StringIO()
    console = Console(file=out, width=20)  # a narrow log: lines must not wrap
    done = [
        session("r1", "book[x]", 0, success=True),
        session("r1", "book[x]", 1, success=False),
        session("r1", "cancel", 0, success=None, termination=TerminationReason.infra_error),
    ]
    with RunProgress(console, "run") as progress:
        progress.start(4, 1)
        for s in done:
            progress.advance(s)
    assert out.getvalue().splitlines() == [
        "[2/4] book[x].t0.baseline pass (user_stop); running accuracy 100%",
        "[3/4] book[x].t1.baseline fail (user_stop); running accuracy 50%",
        "[4/4] cancel.t0.baseline not judged (infra_error); running accuracy 50%",
    ]
