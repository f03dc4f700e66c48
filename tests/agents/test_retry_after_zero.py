"""A provider answering every request 429 with a wait of zero, a negative one or NaN: the
waits back off and the give-up is bounded in wall time (issue 41.20)."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from sessionproof.agents._ratelimit import ProviderGate
from sessionproof.agents._retry import RetryPolicy, call_with_retries
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan
from sessionproof.records import TerminationReason
from sessionproof.suites import Suite
from sessionproof.users import ScriptedUser

from .conftest import compat_agent
from .fakeprovider import FakeProvider, Reply, error
from .test_ratelimit import FakeClock, RateLimited, classify

BOUNDED = RetryPolicy(
    attempts=3, wait_initial=0.05, wait_max=0.4, wait_jitter=0.0, rate_limit_wait=2.0
)
"""A two-second rate-limit budget, so the give-up comes quickly."""

HINTS = [
    {"retry-after": "0"},
    {"retry-after": "-5"},
    {"retry-after-ms": "NaN"},
    {"retry-after-ms": "-300"},
    {"retry-after-ms": "0"},
]


def always_429(headers: dict[str, str]) -> FakeProvider:
    def respond(_seen: object) -> Reply:
        return error("slow down", 429, **headers)

    return FakeProvider(responder=respond).start()  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("hint", HINTS, ids=lambda h: "=".join(next(iter(h.items()))))
async def test_a_429_storm_asking_no_wait_ends_the_session_as_infra_error(
    hint: dict[str, str],
) -> None:
    server = always_429(hint)
    try:
        scenario = load_scenarios()[0]
        plan = SessionPlan(run_id="r", session_id=scenario.id, scenario=scenario, trial=0)
        agent = compat_agent(server, retry=BOUNDED)
        start = time.monotonic()
        session = await asyncio.wait_for(
            run_session(
                plan, Suite("demo", [scenario]), agent, ScriptedUser(scenario.user.turns or [])
            ),
            timeout=30,
        )
        elapsed = time.monotonic() - start
        await agent.aclose()
    finally:
        server.stop()
    assert session.termination is TerminationReason.infra_error
    assert session.verdict is None  # not judged: never a failure charged to the agent
    posts = server.posts()
    # Before: ~1,000 requests a second until the wait_for above gave up. Now the waits back
    # off (0.05, 0.1, 0.2, 0.4, 0.4, ...) and stop once two seconds are spent.
    assert 3 <= len(posts) <= 12, len(posts)
    gaps = [b.t - a.t for a, b in itertools.pairwise(posts)]
    assert min(gaps) >= 0.04
    assert elapsed < 6.0


@pytest.mark.slow
async def test_time_queued_at_the_gate_is_not_spent_from_the_429_budget() -> None:
    # One place in the window. The request is refused (429, no wait asked), and while it backs
    # off another request takes the place for 1.5 s; then it is refused again. The wall-time
    # budget (1 s) counts the 429s' waits and the requests, not the queue behind the run's
    # other requests: it is not given up on at the second 429.
    gate = ProviderGate(1)
    answers = iter([RateLimited(0), RateLimited(0)])

    async def call() -> str:
        for exc in answers:
            raise exc
        return "ok"

    async def holder() -> None:
        await asyncio.sleep(0.02)  # once the first attempt has given its place back
        async with gate.slot():
            await asyncio.sleep(1.5)

    policy = RetryPolicy(wait_initial=0.05, wait_jitter=0.0, rate_limit_wait=1.0)
    other = asyncio.create_task(holder())
    value, attempts = await call_with_retries(
        call, provider="p", policy=policy, classify=classify, gate=gate
    )
    await other
    assert (value, attempts) == ("ok", 3)


@pytest.mark.parametrize("asked", [0.0, -3.0, float("nan")])
async def test_a_wait_of_nothing_starts_at_the_floor_and_doubles(asked: float) -> None:
    clock = FakeClock()
    answers = iter([RateLimited(asked)] * 5)

    async def call() -> str:
        for exc in answers:
            raise exc
        return "ok"

    policy = RetryPolicy(wait_initial=5.0, wait_max=0.6, wait_jitter=0.0)
    value, attempts = await call_with_retries(
        call, provider="p", policy=policy, classify=classify, sleep=clock.sleep
    )
    assert (value, attempts) == ("ok", 6)
    # Before: five immediate resends (sleeps of 0, or NaN). Not the 5 s backoff for a 429
    # without any Retry-After either: the provider did ask to come back soon.
    assert clock.sleeps == [0.05, 0.1, 0.2, 0.4, 0.6]
