"""The circuit breaker: opens after N consecutive failures, probes after a cool-down, closes."""

from __future__ import annotations

from typing import Any

from sessionproof.errors import ToolError
from sessionproof.guard import CircuitBreaker, Guard, GuardConfig, VirtualClock
from sessionproof.guard._internal import BreakerState, Decision
from sessionproof.records import ErrorClass


def test_breaker_cycle_on_a_clock_you_control() -> None:
    clock = VirtualClock()
    breaker = CircuitBreaker(threshold=3, cooldown_s=10, clock=clock)
    for _ in range(2):
        assert breaker.allow()
        breaker.record(False)
    assert breaker.state is BreakerState.closed
    breaker.record(False)
    assert breaker.state is BreakerState.open and not breaker.allow()
    assert breaker.retry_in() == 10
    clock.advance(9.9)
    assert not breaker.allow()
    clock.advance(0.1)
    assert breaker.state is BreakerState.half_open
    assert breaker.allow()  # the one probe
    assert not breaker.allow()  # no second call while the probe is out
    breaker.record(False)  # probe failed: open again, full cool-down
    assert breaker.state is BreakerState.open and breaker.retry_in() == 10
    clock.advance(10)
    assert breaker.allow()
    breaker.record(True)
    assert breaker.state is BreakerState.closed and breaker.failures == 0


def test_a_lost_probe_does_not_block_forever() -> None:
    clock = VirtualClock()
    breaker = CircuitBreaker(threshold=1, cooldown_s=5, clock=clock)
    breaker.record(False)
    clock.advance(5)
    assert breaker.allow()  # the probe goes out and never reports back (cancelled)
    clock.advance(4)
    assert not breaker.allow()
    clock.advance(1)
    assert breaker.allow()


def test_a_success_resets_the_count() -> None:
    breaker = CircuitBreaker(threshold=2, cooldown_s=1, clock=VirtualClock())
    breaker.record(False)
    breaker.record(True)
    breaker.record(False)
    assert breaker.state is BreakerState.closed


class Down:
    """A tool whose backend is down until `up` is set."""

    def __init__(self) -> None:
        self.up = False
        self.calls = 0

    def __call__(self, **_: Any) -> str:
        self.calls += 1
        if not self.up:
            raise ToolError("503 Service Unavailable", "unavailable")
        return "fine"


async def test_guard_fails_fast_while_open_and_closes_after_a_good_probe() -> None:
    clock = VirtualClock()
    config = GuardConfig(max_attempts=2, breaker_threshold=3, breaker_cooldown_s=60)
    guard = Guard(config, clock=clock)
    backend = Down()
    tool = guard.wrap(backend, name="inventory")
    first = await tool()  # 2 attempts, both fail
    second = await tool()  # 3rd failure opens the breaker mid-retry
    assert first.decision is Decision.pass_ and second.decision is Decision.breaker_open
    assert backend.calls == 3
    blocked = await tool()
    assert backend.calls == 3  # nothing sent
    assert blocked.decision is Decision.breaker_open
    assert blocked.error_class is ErrorClass.unavailable and blocked.attempts == 0
    assert "circuit breaker is open" in blocked.output
    clock.advance(60)
    backend.up = True
    probe = await tool()
    assert probe.ok and backend.calls == 4
    assert guard.breaker("inventory").state is BreakerState.closed


async def test_breakers_are_per_tool() -> None:
    guard = Guard(GuardConfig(max_attempts=1, breaker_threshold=1), clock=VirtualClock())
    down, ok = Down(), Down()
    ok.up = True
    await guard.wrap(down, name="a")()
    assert guard.breaker("a").state is BreakerState.open
    assert (await guard.wrap(ok, name="b")()).ok


async def test_request_errors_do_not_trip_the_breaker() -> None:
    guard = Guard(GuardConfig(breaker_threshold=2), clock=VirtualClock())

    def lookup(**_: Any) -> str:
        raise ToolError("order 9 not found", "not_found")

    tool = guard.wrap(lookup)
    for _ in range(5):
        assert (await tool()).decision is Decision.pass_
    assert guard.breaker("lookup").state is BreakerState.closed
