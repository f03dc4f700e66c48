"""Retries by class: Retry-After, backoff with jitter, budgets, and replay safety for writes."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from sessionproof.errors import ConfigError, ToolError
from sessionproof.guard import Guard, GuardConfig, GuardDecision, VirtualClock
from sessionproof.guard._internal import Decision
from sessionproof.records import ErrorClass

E = ErrorClass


class Flaky:
    """Fails with the given exceptions (or error payloads), in order, then answers."""

    def __init__(self, *failures: BaseException | Any, answer: Any = None) -> None:
        self.failures = list(failures)
        self.answer = {"ok": True} if answer is None else answer
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if self.failures:
            failure = self.failures.pop(0)
            if isinstance(failure, BaseException):
                raise failure
            return failure
        return self.answer


def _guard(clock: VirtualClock, **config: Any) -> tuple[Guard, list[GuardDecision]]:
    seen: list[GuardDecision] = []
    guard = Guard(GuardConfig(**config), clock=clock, rng=random.Random(0), on_decision=seen.append)
    return guard, seen


async def test_retry_after_is_honoured_exactly() -> None:
    clock = VirtualClock()
    guard, seen = _guard(clock)
    tool = Flaky(
        ToolError("429 Too Many Requests. Retry after 7 seconds.", "rate_limited"),
        ToolError("slow down, retry after 1.5 s", "rate_limited"),
    )
    result = await guard.wrap(tool, name="search")({"q": "x"})
    assert result.ok and result.attempts == 3 and len(tool.calls) == 3
    assert clock.sleeps == [7.0, 1.5]
    assert clock.now() == pytest.approx(8.5)
    assert [d.decision for d in seen] == [Decision.retry, Decision.retry, Decision.pass_]
    assert [d.wait_s for d in seen[:2]] == [7.0, 1.5]
    assert seen[0].error_class is E.rate_limited and seen[0].attempt == 1


async def test_retry_after_too_long_is_not_waited_out() -> None:
    clock = VirtualClock()
    guard, _ = _guard(clock, max_retry_after_s=30)
    tool = Flaky(ToolError("rate limited; retry after 120 seconds", "rate_limited"))
    result = await guard.wrap(tool, name="search")()
    assert not result.ok and len(tool.calls) == 1 and clock.sleeps == []
    assert "120 seconds" in result.output and result.error_class is E.rate_limited


async def test_backoff_grows_exponentially_within_jitter() -> None:
    clock = VirtualClock()
    guard, _ = _guard(
        clock,
        wait_initial_s=1.0,
        wait_exp_base=2.0,
        wait_jitter_s=0.25,
        wait_max_s=100,
        max_attempts=5,
    )
    tool = Flaky(*[TimeoutError("slow")] * 4)
    result = await guard.wrap(tool, name="lookup")()
    assert result.ok
    for n, wait in enumerate(clock.sleeps):
        base = 2.0**n
        assert base <= wait <= base + 0.25
    # Jitter comes from the injected generator: the same seed gives the same waits.
    again = VirtualClock()
    guard2, _ = _guard(
        again,
        wait_initial_s=1.0,
        wait_exp_base=2.0,
        wait_jitter_s=0.25,
        wait_max_s=100,
        max_attempts=5,
    )
    await guard2.wrap(Flaky(*[TimeoutError("slow")] * 4), name="lookup")()
    assert again.sleeps == clock.sleeps


async def test_backoff_is_capped() -> None:
    clock = VirtualClock()
    guard, _ = _guard(clock, wait_initial_s=4, wait_max_s=5, wait_jitter_s=0, max_attempts=4)
    await guard.wrap(Flaky(*[ConnectionResetError()] * 3), name="t")()
    assert clock.sleeps == [4.0, 5.0, 5.0]


async def test_gives_up_after_max_attempts_with_advice() -> None:
    clock = VirtualClock()
    guard, seen = _guard(clock, max_attempts=3)
    tool = Flaky(*[ToolError("503 Service Unavailable", "unavailable")] * 5)
    result = await guard.wrap(tool, name="t")()
    assert len(tool.calls) == 3 and result.attempts == 3 and not result.ok
    assert result.error_class is E.unavailable and result.decision is Decision.pass_
    assert "failed 3 times" in result.output
    assert seen[-1].detail == "gave up after 3 attempts"


async def test_total_wait_budget_stops_retries() -> None:
    clock = VirtualClock()
    guard, _ = _guard(clock, max_attempts=10, max_total_wait_s=10)
    tool = Flaky(*[ToolError("retry after 4 seconds", "rate_limited")] * 10)
    await guard.wrap(tool, name="t")()
    assert sum(clock.sleeps) <= 10 and len(tool.calls) == 3  # 4 + 4, a third 4 would pass 10


@pytest.mark.parametrize(
    "failure",
    [ToolError("order 9 not found", "not_found"), ValueError("bad zip"), {"error": "forbidden"}],
)
async def test_non_retryable_failures_pass_through_unretried(failure: Any) -> None:
    clock = VirtualClock()
    guard, seen = _guard(clock)
    tool = Flaky(failure)
    result = await guard.wrap(tool, name="t")()
    assert len(tool.calls) == 1 and clock.sleeps == []
    assert not result.ok and result.output.startswith("Error:")
    assert Decision.retry not in {d.decision for d in seen}


async def test_error_payloads_are_classified_and_retried() -> None:
    clock = VirtualClock()
    guard, _ = _guard(clock)
    tool = Flaky({"error": {"code": 429, "retry_after": 3}}, answer=[1, 2])
    result = await guard.wrap(tool, name="t")()
    assert result.ok and result.value == [1, 2] and clock.sleeps == [3.0]


async def test_write_is_not_resent_after_an_unknown_outcome() -> None:
    clock = VirtualClock()
    guard, seen = _guard(clock)
    pay = Flaky(TimeoutError("read timed out"))
    result = await guard.wrap(pay, name="pay", write=True)({"amount": 5})
    assert len(pay.calls) == 1 and clock.sleeps == []
    assert result.decision is Decision.no_retry_write and not result.ok
    assert "may or may not have happened" in result.output
    assert seen[-1].decision is Decision.no_retry_write


async def test_write_with_idempotency_key_is_resent() -> None:
    clock = VirtualClock()
    guard, _ = _guard(clock)
    pay = Flaky(TimeoutError("read timed out"))
    tool = guard.wrap(pay, name="pay", write=True, idempotency_key="request_id")
    result = await tool({"amount": 5, "request_id": "r-1"})
    assert result.ok and len(pay.calls) == 2
    # The same tool without a key in the call is not re-sent.
    pay2 = Flaky(TimeoutError("read timed out"))
    guard2, _ = _guard(VirtualClock())
    tool2 = guard2.wrap(pay2, name="pay", write=True, idempotency_key="request_id")
    assert (await tool2({"amount": 5, "request_id": ""})).decision is Decision.no_retry_write
    assert len(pay2.calls) == 1


async def test_idempotent_write_and_refused_write_are_resent() -> None:
    guard, _ = _guard(VirtualClock())
    put = Flaky(ToolError("500 Internal Server Error", "server_error"))
    assert (await guard.wrap(put, name="put", write=True, idempotent=True)()).ok
    post = Flaky(ToolError("429 Too Many Requests", "rate_limited"))
    assert (await guard.wrap(post, name="post", write=True)()).ok  # refused before running
    assert len(put.calls) == 2 and len(post.calls) == 2


async def test_async_tools_are_awaited() -> None:
    guard, _ = _guard(VirtualClock())
    attempts = 0

    async def fetch(order_id: str) -> dict[str, str]:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise ConnectionRefusedError("connection refused")
        return {"order_id": order_id}

    result = await guard.wrap(fetch)({"order_id": "1042"})
    assert result.ok and result.value == {"order_id": "1042"} and attempts == 2
    assert json.loads(result.output) == {"order_id": "1042"}


async def test_unshowable_results_are_malformed_output() -> None:
    guard, _ = _guard(VirtualClock(), max_attempts=2)
    loop: dict[str, Any] = {}
    loop["self"] = loop
    huge = {"n": 2**70}
    broken = await guard.wrap(lambda: loop, name="loop")()
    assert broken.error_class is ErrorClass.malformed_output and not broken.ok
    assert broken.attempts == 2  # a garbled answer is worth one more try
    assert json.loads((await guard.wrap(lambda: huge, name="big")()).output) == huge


def test_sync_path_uses_the_clock_too() -> None:
    clock = VirtualClock()
    guard, _ = _guard(clock)
    tool = Flaky(ToolError("Retry after 2 seconds", "rate_limited"), answer="done")
    result = guard.wrap(tool, name="t").call_sync({"x": 1})
    assert result.ok and result.output == "done" and clock.sleeps == [2.0]
    assert tool.calls == [{"x": 1}, {"x": 1}]


def test_sync_call_of_an_async_tool_is_refused() -> None:
    async def fetch() -> int:
        return 1

    guard, _ = _guard(VirtualClock())
    with pytest.raises(ConfigError, match="await"):
        guard.wrap(fetch).call_sync()


def test_wrap_needs_a_callable() -> None:
    guard, _ = _guard(VirtualClock())
    with pytest.raises(ConfigError):
        guard.wrap("not a function")  # type: ignore[arg-type]


def test_bad_config_is_rejected() -> None:
    with pytest.raises(ValueError):
        GuardConfig(max_attempts=0)
    with pytest.raises(ValueError):
        GuardConfig(retries=3)  # type: ignore[call-arg]


async def test_keyword_arguments_and_unknown_tools_by_name() -> None:
    guard, seen = _guard(VirtualClock())
    tool = Flaky(answer="hi")
    guard.wrap(tool, name="greet")
    assert (await guard.call("greet", '{"who": "Ann"}')).output == "hi"
    assert tool.calls == [{"who": "Ann"}]
    missing = await guard.call("greeet", {})
    assert missing.decision is Decision.repair and "did you mean 'greet'" in missing.output.lower()
    assert missing.hints[0].suggestion == "did you mean 'greet'?"
    assert seen[-1].decision is Decision.repair
