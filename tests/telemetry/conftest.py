"""A stored demo run with faults and the guard: sessions with failed tool calls, guard retries
and injected faults, made once per module (the oracle agent, no model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.records import Session, ToolResultEvent
from sessionproof.records._internal import Decision, FaultInjectedEvent, GuardDecisionEvent
from sessionproof.runs import RunConfig, RunReport, run


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunReport]:
    """(store path, report) of the demo suite run by the oracle under faults and the guard."""
    store = tmp_path_factory.mktemp("otel") / "s.duckdb"
    config = RunConfig(
        suite="demo",
        model="oracle",
        faults="rate_limited:30%,not_found:10%",
        guard=True,
        store=store,
    )
    return store, run(config)


def rich_session(sessions: list[Session]) -> Session:
    """A session with a failed tool call, a guard retry and an injected fault."""
    for s in sessions:
        failed = any(e.payload.error_class for e in s.events_of(ToolResultEvent))
        retried = any(e.payload.decision is Decision.retry for e in s.events_of(GuardDecisionEvent))
        if failed and retried and s.events_of(FaultInjectedEvent):
            return s
    raise AssertionError("the seeded run has no session with all three")
