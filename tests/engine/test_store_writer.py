"""Finished sessions are written off the event loop, one at a time, and count as finished
only once written."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.agents._internal import ProviderGate
from sessionproof.domains import Domain, DomainSpec
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan
from sessionproof.errors import StoreError
from sessionproof.records import Outcome, Scenario, Session
from sessionproof.suites import Suite

from . import world  # registers the counter domain (its spec is spied on below)
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


class _Gated(OracleAgent):
    """The oracle behind a provider gate of two places, each request held for a few passes
    of the loop; notes which session each admitted request came from."""

    def __init__(self) -> None:
        self.gate = ProviderGate(2)
        self.admitted: list[str] = []

    async def respond(self, request: AgentRequest) -> AgentResponse:
        async with self.gate.slot() as slot:
            self.admitted.append(request.session_id)
            for _ in range(3):
                await asyncio.sleep(0)
            slot.ok()
        return await super().respond(request)


async def _ranked_run(request_slots: int) -> tuple[list[str], list[str]]:
    """(sessions in the order they ended, sessions of the requests in the order admitted)."""
    suite = Suite("t", [scenario(f"s{i}", turns=4) for i in range(8)])
    plan = RunPlan(run_id="r", concurrency=8, request_slots=request_slots)
    agent = _Gated()
    done = await execute_run(suite, agent, plan, _Sink())
    assert sorted(s.session_id for s in done) == sorted(f"s{i}.t0" for i in range(8))
    return [s.session_id for s in done], agent.admitted


def _last_request_of(session_id: str, admitted: list[str]) -> float:
    """How far into the run's requests the session's last one came (0 to 1)."""
    last = max(i for i, sid in enumerate(admitted) if sid == session_id)
    return (last + 1) / len(admitted)


async def test_sessions_queue_requests_by_their_place_so_the_first_end_first() -> None:
    # Eight sessions in flight, two request places: the first six queue by their place in
    # the run and end in that order, the first of them within the first third of the
    # run's requests; the last two (one per place) share a rank and end last.
    order, admitted = await _ranked_run(request_slots=2)
    assert order[:6] == [f"s{i}.t0" for i in range(6)]
    assert _last_request_of("s0.t0", admitted) < 1 / 3
    # With one shared rank (as many places as sessions) they advance in lockstep instead:
    # the first session's last request comes in the last quarter.
    _, lockstep = await _ranked_run(request_slots=8)
    assert _last_request_of("s0.t0", lockstep) > 0.75


class _PreloadSpy(world.CounterSpec):
    """The counter domain, noting when its shared state is preloaded (or failing to)."""

    def __init__(self, log: list[str], fail: bool = False) -> None:
        self.log = log
        self.fail = fail

    def preload(self) -> None:
        self.log.append("preload")
        if self.fail:
            raise RuntimeError("base DB unreadable")


class _SpiedSuite(Suite):
    def __init__(self, scenarios: list[Scenario], spec: _PreloadSpy) -> None:
        super().__init__("t", scenarios)
        self.spec = spec

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        return self.spec

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        self.spec.log.append("verdict")
        return super().evaluate(scenario, session, final_domain)


class _Slow(OracleAgent):
    """The oracle, answering after a few passes of the loop (a model call's wait)."""

    async def respond(self, request: AgentRequest) -> AgentResponse:
        for _ in range(3):
            await asyncio.sleep(0)
        return await super().respond(request)


async def test_a_run_preloads_each_domain_once_while_its_first_requests_wait() -> None:
    log: list[str] = []
    suite = _SpiedSuite([scenario(f"s{i}") for i in range(6)], _PreloadSpy(log))
    done = await execute_run(suite, _Slow(), RunPlan(run_id="r", concurrency=6), _Sink())
    assert len(done) == 6
    # Once for the one domain six scenarios share, before the first verdict needed it.
    assert log.count("preload") == 1 and log.index("preload") < log.index("verdict")


async def test_a_preload_that_fails_costs_the_run_nothing() -> None:
    log: list[str] = []
    suite = _SpiedSuite([scenario("s0"), scenario("s1")], _PreloadSpy(log, fail=True))
    done = await execute_run(suite, _Slow(), RunPlan(run_id="r", concurrency=2), _Sink())
    assert sorted(s.session_id for s in done) == ["s0.t0", "s1.t0"]
    assert all(s.outcome is not None and s.outcome.success for s in done)
    assert log.count("preload") == 1
