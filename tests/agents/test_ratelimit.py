"""Rate-limit-aware admission: AIMD window, Retry-After per request, rpm buckets, 429 storms waited
out. All on a fake clock (no real waits, no timing asserts) or a loopback fake provider."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import pytest

from sessionproof.agents import AgentRequest, ProviderFailure
from sessionproof.agents._internal import RateLimiter, RateLimits, request_rank
from sessionproof.agents._ratelimit import ProviderGate, gate_key
from sessionproof.agents._retry import RetryPolicy, call_with_retries
from sessionproof.errors import InfraError
from sessionproof.records import Message

from .conftest import compat_agent
from .fakeprovider import FakeProvider, Reply, completion, error


class FakeClock:
    """Time that moves only when someone sleeps on it; records every sleep."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


class RateLimited(Exception):
    """A 429 from the fake provider below."""

    def __init__(self, retry_after: float | None) -> None:
        super().__init__("429")
        self.retry_after = retry_after


def classify(exc: BaseException) -> ProviderFailure | None:
    if isinstance(exc, RateLimited):
        wait = exc.retry_after
        return ProviderFailure.from_status(
            429, {} if wait is None else {"retry-after": f"{wait}"}, ""
        )
    return None


def storm(rate: float, seed: int, retry_after: float | None = 1.0) -> Callable[[], Awaitable[str]]:
    """A provider answering 429 to `rate` of the requests (seeded), else "ok"."""
    rng = random.Random(seed)

    async def call() -> str:
        await asyncio.sleep(0)
        if rng.random() < rate:
            raise RateLimited(retry_after)
        return "ok"

    return call


async def test_a_429_storm_never_turns_into_failures() -> None:
    # 30% of answers are 429 with Retry-After: 1. Before, six attempts were all a request had:
    # 0.3^6 of requests (a few per run of thousands) failed the session as infra_error.
    clock = FakeClock()
    gate = ProviderGate(64, clock=clock, sleep=clock.sleep)
    policy = RetryPolicy(attempts=2, wait_jitter=0.0)
    call = storm(0.3, seed=1)
    results = await asyncio.gather(
        *(
            call_with_retries(
                call, provider="p", policy=policy, classify=classify, gate=gate, sleep=clock.sleep
            )
            for _ in range(500)
        )
    )
    assert all(value == "ok" for value, _ in results)
    attempts = sum(n for _, n in results)
    stats = gate.stats()
    assert stats.rate_limited == attempts - 500 > 100  # each 429 was resent, none failed
    assert stats.requests == attempts
    assert stats.window_min < 64  # the window backed off
    assert all(wait == 1.0 for wait in clock.sleeps if wait != 0)  # Retry-After honoured


async def test_persistent_429s_end_past_the_bounded_total_wait() -> None:
    clock = FakeClock()
    policy = RetryPolicy(attempts=3, rate_limit_wait=10.0, wait_jitter=0.0)
    with pytest.raises(InfraError, match="rate limited after 11 attempts"):
        await call_with_retries(
            storm(1.0, seed=2), provider="p", policy=policy, classify=classify, sleep=clock.sleep
        )
    assert sum(clock.sleeps) == 10.0  # ten waits of one second, then it gave up


async def test_429_without_retry_after_backs_off_exponentially() -> None:
    clock = FakeClock()
    policy = RetryPolicy(wait_initial=0.5, wait_max=4.0, wait_jitter=0.0)
    answers = iter([RateLimited(None)] * 5)

    async def call() -> str:
        for exc in answers:
            raise exc
        return "ok"

    value, attempts = await call_with_retries(
        call, provider="p", policy=policy, classify=classify, sleep=clock.sleep
    )
    assert (value, attempts) == ("ok", 6)
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0, 4.0]


async def test_aimd_halves_once_per_generation_and_grows_back() -> None:
    clock = FakeClock()
    gate = ProviderGate(8, clock=clock, sleep=clock.sleep)
    # Eight requests in flight; all answer 429: the window halves once, not eight times.
    slots = [gate.slot() for _ in range(8)]
    held = [await s.__aenter__() for s in slots]
    assert gate.inflight == 8
    for slot in held:
        slot.rate_limited()
    for s in slots:
        await s.__aexit__(None, None, None)
    assert gate.window == 4
    # A window's worth of successes adds one place, up to the limit and never beyond.
    for _ in range(200):
        async with gate.slot() as slot:
            slot.ok()
    assert gate.window == 8
    assert gate.stats().window_min == 4


async def test_the_window_bounds_requests_in_flight() -> None:
    clock = FakeClock()
    gate = ProviderGate(3, clock=clock, sleep=clock.sleep)
    seen: list[int] = []
    release = asyncio.Event()

    async def request() -> None:
        async with gate.slot() as slot:
            seen.append(gate.inflight)
            await release.wait()
            slot.ok()

    tasks = [asyncio.create_task(request()) for _ in range(10)]
    for _ in range(5):
        await asyncio.sleep(0)
    assert gate.inflight == 3
    release.set()
    await asyncio.gather(*tasks)
    assert max(seen) == 3 and len(seen) == 10
    assert gate.stats().peak == 3


async def _admitted_order(gate: ProviderGate, ranks: list[int], cancel: set[int]) -> list[int]:
    """Queue one request per rank behind a held place (in list order); cancel those at the
    positions in `cancel`; free the place; the positions in the order they got it."""
    order: list[int] = []

    async def request(position: int, rank: int) -> None:
        with request_rank(rank):
            async with gate.slot() as slot:
                order.append(position)
                slot.ok()

    async with gate.slot() as blocker:
        tasks = []
        for position, rank in enumerate(ranks):
            tasks.append(asyncio.create_task(request(position, rank)))
            await asyncio.sleep(0)  # queued in this order
        for position in cancel:
            tasks[position].cancel()
        await asyncio.sleep(0)
        blocker.ok()
    await asyncio.gather(*tasks, return_exceptions=True)
    return order


async def test_a_freed_place_goes_to_the_lowest_rank_then_the_longest_queued() -> None:
    clock = FakeClock()
    gate = ProviderGate(1, clock=clock, sleep=clock.sleep)
    order = await _admitted_order(gate, [5, 1, 3, 1, 0, 5], cancel=set())
    assert order == [4, 1, 3, 2, 0, 5]
    # No rank given: every request has the same one, so the queue is first come, first served.
    assert await _admitted_order(gate, [0] * 5, cancel=set()) == [0, 1, 2, 3, 4]


async def test_a_cancelled_queued_request_is_skipped_and_loses_no_place() -> None:
    clock = FakeClock()
    gate = ProviderGate(1, clock=clock, sleep=clock.sleep)
    # The best-ranked request gives up while queued: the next in line gets the place.
    assert await _admitted_order(gate, [2, 0, 1], cancel={1}) == [2, 0]
    assert gate.inflight == 0
    # And the gate still admits at once afterwards (nothing promised to a dead request).
    async with gate.slot() as slot:
        assert gate.inflight == 1
        slot.ok()


async def test_retry_after_holds_back_only_the_request_that_got_it() -> None:
    # While the 429'd request waits out its Retry-After (holding no place), another request
    # to the same provider is admitted at once: no wait of its own, the clock unmoved.
    clock = FakeClock()
    gate = ProviderGate(4, clock=clock, sleep=clock.sleep)
    answers = iter([RateLimited(5.0)])
    waiting, resume = asyncio.Event(), asyncio.Event()
    asked: list[float] = []

    async def wait_out(seconds: float) -> None:
        asked.append(seconds)
        waiting.set()
        await resume.wait()

    async def first() -> str:
        for exc in answers:
            raise exc
        return "resent"

    policy = RetryPolicy(wait_jitter=0.0)
    task = asyncio.create_task(
        call_with_retries(
            first, provider="p", policy=policy, classify=classify, gate=gate, sleep=wait_out
        )
    )
    await waiting.wait()
    assert gate.inflight == 0  # the waiting request holds no place
    async with gate.slot() as slot:
        assert clock.now == 0.0 and clock.sleeps == []  # admitted at once
        slot.ok()
    resume.set()
    assert await task == ("resent", 2)
    assert asked == [5.0]  # the 429'd request waited what the provider asked
    stats = gate.stats()
    assert stats.window_min == 2 and stats.rate_limited == 1  # halved once (then grew back)


async def test_rpm_spaces_requests_out() -> None:
    clock = FakeClock()
    gate = ProviderGate(100, RateLimits(rpm=60), clock=clock, sleep=clock.sleep)
    for _ in range(61):  # a minute's budget, then one a second
        async with gate.slot() as slot:
            slot.ok()
    assert clock.now == pytest.approx(1.0)
    for _ in range(3):
        async with gate.slot() as slot:
            slot.ok()
    assert clock.now == pytest.approx(4.0)


async def test_tpm_waits_for_tokens() -> None:
    clock = FakeClock()
    gate = ProviderGate(10, RateLimits(tpm=600), clock=clock, sleep=clock.sleep)
    async with gate.slot(tokens=600) as slot:
        slot.ok()
    async with gate.slot(tokens=100) as slot:  # 600 tokens a minute: 100 take 10 s to refill
        slot.ok()
    assert clock.now == pytest.approx(10.0)


def test_agent_and_user_share_one_gate_per_provider_model() -> None:
    limiter = RateLimiter(16)
    key = gate_key("openai-compat", "m", "http://h/v1")
    assert limiter.gate(key) is limiter.gate(key)
    assert limiter.gate(gate_key("openai-compat", "other", "http://h/v1")) is not limiter.gate(key)
    assert limiter.stats() is None  # nothing sent yet


async def test_adapter_waits_out_429s_from_a_loopback_server(fake: FakeProvider) -> None:
    # Four 429s in a row (Retry-After: 0) then an answer: with attempts=2 this failed before.
    fake.push(*[error("slow down", 429, **{"retry-after": "0"})] * 4, Reply(completion("hi")))
    limiter = RateLimiter(8)
    agent = compat_agent(fake, retry=RetryPolicy(attempts=2, wait_jitter=0.0), limiter=limiter)
    response = await agent.respond(AgentRequest(messages=[Message.user("hello")], tools=[]))
    await agent.aclose()
    assert response.message.content == "hi"
    assert response.model_calls[0].attempts == 5
    stats = limiter.stats()
    assert stats is not None
    assert (stats.requests, stats.rate_limited, stats.peak) == (5, 4, 1)
