"""Hostile `python:` agents (issue 41.22): a plain function that blocks is timed out without
holding the other sessions; `sys.exit()` in an agent ends its session, not the run; an agent
that ends its worker process on every try is stored as infra_error and the rest run on."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest

from sessionproof.executors._internal import fork_available
from sessionproof.records import ErrorClass, Session, TerminationReason
from sessionproof.records._internal import AgentErrorEvent
from sessionproof.runs import RunConfig, resume, run
from sessionproof.store import Store

from .hostile_agents import SPANS_ENV, TARGET

pytestmark = pytest.mark.slow  # most tests here take seconds each

SPEC = "python:tests.runs.hostile_agents:"


def _config(store: Path, agent: str, **extra: Any) -> RunConfig:
    fields: dict[str, Any] = {
        "suite": "demo",
        "model": SPEC + agent,
        "limit": 4,
        "concurrency": 4,
        "store": store,
    }
    fields.update(extra)
    return RunConfig(**fields)


def _by_scenario(sessions: list[Session]) -> dict[str, Session]:
    return {s.scenario_id: s for s in sessions}


def _status(store: Path, run_id: str) -> str:
    with Store.open(store, read_only=True) as db:
        (found,) = [r for r in db.list_runs() if r.run_id == run_id]
    return str(found.status)


def _agent_error(session: Session) -> AgentErrorEvent:
    (event,) = [e for e in session.events if isinstance(e, AgentErrorEvent)]
    return event


def test_a_blocking_plain_function_is_timed_out_and_holds_no_other_session(
    tmp_path: Path,
) -> None:
    start = time.monotonic()
    report = run(_config(tmp_path / "s.duckdb", "blocks", agent_timeout=2.0))
    elapsed = time.monotonic() - start
    # Before: the 20 s sleep ran on the event loop, the limit could not fire, and the run
    # took the whole 20 s (the session then counted as answered).
    assert elapsed < 15, elapsed
    sessions = _by_scenario(report.sessions)
    hung = sessions.pop(TARGET)
    assert hung.termination is TerminationReason.too_many_errors
    assert _agent_error(hung).payload.error_class is ErrorClass.timeout
    assert all(s.verdict is True for s in sessions.values()), sessions


def test_plain_functions_of_concurrent_sessions_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans = tmp_path / "spans.txt"
    monkeypatch.setenv(SPANS_ENV, str(spans))
    report = run(_config(tmp_path / "s.duckdb", "sleepy"))
    assert report.summary.sessions == 4
    times = sorted(tuple(map(float, line.split())) for line in spans.read_text().splitlines())
    overlapping = sum(b[0] < a[1] for a, b in itertools.pairwise(times))
    # Before: one decision after another on the loop (no overlap at all).
    assert overlapping >= len(times) // 2, times


@pytest.mark.parametrize(
    "executor",
    [
        "local",
        pytest.param(
            "local:2", marks=pytest.mark.skipif(not fork_available(), reason="forked workers")
        ),
    ],
)
def test_sys_exit_in_an_agent_ends_its_session_not_the_run(tmp_path: Path, executor: str) -> None:
    store = tmp_path / "s.duckdb"
    report = run(_config(store, "calls_exit", executor=executor))
    sessions = _by_scenario(report.sessions)
    assert len(sessions) == 4
    bad = sessions.pop(TARGET)
    assert bad.termination is TerminationReason.too_many_errors
    assert "called exit(4)" in _agent_error(bad).payload.message
    assert all(s.verdict is True for s in sessions.values())
    assert _status(store, report.run_id) == "finished"


@pytest.mark.skipif(not fork_available(), reason="worker processes are forked")
def test_an_agent_ending_its_worker_every_time_is_recorded_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.duckdb"
    report = run(_config(store, "exits_process", executor="local:2"))
    sessions = _by_scenario(report.sessions)
    assert len(sessions) == 4
    poison = sessions.pop(TARGET)
    assert poison.termination is TerminationReason.infra_error
    assert poison.verdict is None  # not judged: neither a pass nor a failure
    assert "exited with code 3" in poison.termination_detail
    assert "4 tries" in poison.termination_detail
    assert all(s.verdict is True for s in sessions.values())
    assert _status(store, report.run_id) == "finished"
    assert report.summary.infra_errors == 1
    # A resume has nothing left to run (the poison session is stored), and does not abort.
    again = resume(report.run_id, store=store)
    assert again.summary.sessions == 4
