"""Finished sessions are written off the event loop, one at a time, and count as finished
only once written."""

from __future__ import annotations

import asyncio
import threading

import pytest

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.engine import RunPlan, execute_run
from sessionproof.errors import StoreError
from sessionproof.records import Session
from sessionproof.suites import Suite

from . import world  # noqa: F401  (registers the counter domain)
from .test_session_loop import scenario


class _Sink:
    """Records the thread of every write, and how many writes overlap."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.threads: set[int] = set()
        self.written: list[str] = []
        self.active = 0
        self.overlap = 0
        self.fail_on = fail_on
        self._lock = threading.Lock()

    def write_session(self, session: Session) -> None:
        with self._lock:
            self.active += 1
            self.overlap = max(self.overlap, self.active)
        self.threads.add(threading.get_ident())
        try:
            if session.scenario_id == self.fail_on:
                raise StoreError("disk full")
            self.written.append(session.session_id)
        finally:
            with self._lock:
                self.active -= 1


class _Progress:
    def __init__(self, sink: _Sink) -> None:
        self.sink = sink
        self.acked: list[str] = []

    def start(self, total: int, done: int) -> None:
        pass

    def advance(self, session: Session) -> None:
        # Acknowledged only after the write returned.
        assert session.session_id in self.sink.written
        self.acked.append(session.session_id)


async def test_sessions_are_written_off_the_loop_one_at_a_time() -> None:
    suite = Suite("t", [scenario(n) for n in ("one", "two", "three", "four")])
    sink = _Sink()
    progress = _Progress(sink)
    plan = RunPlan(run_id="r", trials=3, concurrency=8)
    done = await execute_run(suite, OracleAgent(), plan, sink, progress=progress)
    assert threading.get_ident() not in sink.threads
    assert sink.overlap == 1
    assert sorted(sink.written) == sorted(s.session_id for s in done)
    assert sorted(progress.acked) == sorted(sink.written) and len(done) == 12


async def test_a_failed_write_fails_the_run_and_is_not_acknowledged() -> None:
    suite = Suite("t", [scenario("one"), scenario("two")])
    sink = _Sink(fail_on="two")
    progress = _Progress(sink)
    with pytest.raises(StoreError, match="disk full"):
        await execute_run(suite, OracleAgent(), RunPlan(run_id="r"), sink, progress=progress)
    assert all("two" not in s for s in progress.acked)


class _FirstCallPolls(OracleAgent):
    """Notes which worker task each call comes from; the first call asks the loop to note
    when it next gets to run its other callbacks (socket reads and writes among them)."""

    def __init__(self) -> None:
        self.log: list[object] = []

    async def respond(self, request: AgentRequest) -> AgentResponse:
        if not self.log:
            asyncio.get_running_loop().call_soon(self.log.append, "loop polled")
        self.log.append(asyncio.current_task())
        return await super().respond(request)


async def test_sessions_start_in_groups_so_the_loop_polls_between_them() -> None:
    # 64 sessions at once: a session's set-up would otherwise hold every other callback
    # (the first requests' connections) until all 64 had started.
    suite = Suite("t", [scenario(f"s{i}") for i in range(64)])
    agent = _FirstCallPolls()
    done = await execute_run(suite, agent, RunPlan(run_id="r", concurrency=64), _Sink())
    assert len(done) == 64
    before = agent.log[: agent.log.index("loop polled")]
    assert 1 <= len(set(map(id, before))) <= 16
