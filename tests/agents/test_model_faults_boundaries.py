"""The table of both boundaries reads the tool side right: without the guard every injected
tool fault reaches the agent; with it, the retried ones are absorbed."""

from __future__ import annotations

import pytest

from sessionproof.records import EventKind
from sessionproof.runs import RunConfig, run
from sessionproof.scoring._internal import boundary_rows


@pytest.mark.slow
def test_tool_faults_absorbed_by_the_guard_and_surfaced_without_it() -> None:
    arms = ["faults=rate_limited:40%", "faults=rate_limited:40% guard"]
    report = run(RunConfig(suite="demo", model="oracle", trials=2, arms=arms, seed=3))
    by_arm = {arm: [s for s in report.sessions if s.arm == arm] for arm in arms}
    rows = {row[0]: row for row in boundary_rows(by_arm)}
    plain, guarded = rows[arms[0]], rows[arms[1]]
    injected = {
        arm: sum(1 for s in found for e in s.events if e.kind is EventKind.fault_injected)
        for arm, found in by_arm.items()
    }
    # No guard: nothing absorbed, every injected fault surfaced; no model fault on either.
    assert plain[1:] == ["0", str(injected[arms[0]]), "0", "0", "0"]
    absorbed, surfaced = int(guarded[1]), int(guarded[2])
    assert absorbed > 0 and absorbed + surfaced == injected[arms[1]]
    assert guarded[3:] == ["0", "0", "0"]
