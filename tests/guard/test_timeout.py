"""Per-call timeouts, and exceptions whose own text cannot be shown."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from sessionproof.errors import ConfigError
from sessionproof.guard import Guard, GuardConfig, VirtualClock
from sessionproof.guard._internal import Decision
from sessionproof.records import ErrorClass

TINY = 0.05


class Unprintable(Exception):
    """An exception whose own text raises."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


class NotText(Exception):
    """An exception whose __str__ returns something that is not text."""

    def __str__(self) -> Any:
        return 42


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Blocks a tool until the test ends (so no thread outlives it for long)."""
    event = threading.Event()
    yield event
    event.set()


@pytest.mark.parametrize("exc_type", [Unprintable, NotText])
async def test_an_exception_whose_text_raises_is_reported_not_raised(
    exc_type: type[Exception],
) -> None:
    def tool() -> None:
        raise exc_type()

    guard = Guard(clock=VirtualClock())
    result = await guard.wrap(tool, name="t")()
    assert not result.ok and exc_type.__name__ in result.output
    sync = Guard(clock=VirtualClock()).wrap(tool, name="t").call_sync()
    assert not sync.ok and exc_type.__name__ in sync.output


async def test_a_hanging_sync_read_times_out_and_is_retried(gate: threading.Event) -> None:
    calls: list[int] = []

    def lookup() -> str:
        calls.append(1)
        gate.wait(30)
        return "late"

    guard = Guard(GuardConfig(max_attempts=2), clock=VirtualClock(), timeout_s=TINY)
    result = await guard.wrap(lookup)()
    assert not result.ok and result.error_class is ErrorClass.timeout
    assert "did not answer within" in result.output
    assert result.attempts == 2 == len(calls)
    assert [d.decision for d in result.decisions] == [Decision.retry, Decision.pass_]


async def test_a_hanging_write_is_never_sent_again(gate: threading.Event) -> None:
    def cancel() -> str:
        gate.wait(30)
        return "done"

    guard = Guard(clock=VirtualClock(), timeout_s=TINY)
    result = await guard.wrap(cancel, write=True)()
    assert result.decision is Decision.no_retry_write
    assert result.error_class is ErrorClass.timeout and result.attempts == 1


async def test_a_hanging_async_tool_times_out_and_is_cancelled() -> None:
    cancelled: list[bool] = []

    async def lookup() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "never"

    guard = Guard(GuardConfig(max_attempts=1), clock=VirtualClock(), timeout_s=TINY)
    result = await guard.wrap(lookup)()
    assert result.error_class is ErrorClass.timeout and cancelled == [True]


async def test_a_tool_raising_its_own_timeout_error_is_not_the_guards_timeout() -> None:
    def lookup() -> str:
        raise TimeoutError("upstream took too long")

    guard = Guard(GuardConfig(max_attempts=1), clock=VirtualClock(), timeout_s=5)
    result = await guard.wrap(lookup)()
    assert result.error_class is ErrorClass.timeout
    assert "upstream took too long" in result.output and "did not answer" not in result.output


async def test_a_sync_tool_does_not_block_the_event_loop() -> None:
    # The tool waits for an event only another coroutine sets: run on the loop's thread it
    # would block that coroutine until its own wait ran out.
    released = threading.Event()

    def wait_for_release() -> str:
        return "released" if released.wait(10) else "blocked"

    async def release() -> None:
        released.set()

    guard = Guard(clock=VirtualClock(), timeout_s=30)  # asking for a timeout opts in
    result, _ = await asyncio.gather(guard.wrap(wait_for_release)(), release())
    assert result.ok and result.value == "released"


async def test_by_default_a_sync_tool_runs_inline_on_the_callers_thread() -> None:
    # Thread-bound tools (an sqlite connection) must keep working under the default guard.
    seen: list[int] = []

    def lookup() -> str:
        seen.append(threading.get_ident())
        return "ok"

    guard = Guard(clock=VirtualClock())
    tool = guard.wrap(lookup)
    result = await tool()
    assert result.ok and seen == [threading.get_ident()] and tool.timeout_s is None
    assert guard.wrap(lookup, name="timed", timeout_s=2).timeout_s == 2
    assert Guard(GuardConfig(timeout_s=4)).wrap(lookup).timeout_s == 4

    async def fetch() -> str:
        return "ok"

    assert guard.wrap(fetch).timeout_s == GuardConfig().timeout_s


def test_call_sync_times_out(gate: threading.Event) -> None:
    def lookup() -> str:
        gate.wait(30)
        return "late"

    guard = Guard(GuardConfig(max_attempts=1), clock=VirtualClock())
    result = guard.wrap(lookup, timeout_s=TINY).call_sync()
    assert result.error_class is ErrorClass.timeout and "did not answer" in result.output


async def test_a_tool_may_override_or_switch_off_the_guards_timeout() -> None:
    def slow() -> str:
        threading.Event().wait(0.3)
        return "answer"

    guard = Guard(GuardConfig(max_attempts=1), clock=VirtualClock(), timeout_s=0.01)
    assert (await guard.wrap(slow, name="a", timeout_s=None)()).value == "answer"
    assert (await guard.wrap(slow, name="b", timeout_s=10)()).value == "answer"
    assert (await guard.wrap(slow, name="c")()).error_class is ErrorClass.timeout


def test_timeouts_default_on_and_must_be_positive() -> None:
    assert GuardConfig().timeout_s is not None and GuardConfig().timeout_s > 0
    assert Guard(GuardConfig(timeout_s=None)).config.timeout_s is None
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ConfigError):
            Guard(timeout_s=bad)
        with pytest.raises(ConfigError):
            Guard().wrap(lambda: 1, name="t", timeout_s=bad)
