"""Cost per session and per successful session, split by role; unpriced models give tokens
only; `compare_cost` states the difference in one sentence."""

from __future__ import annotations

import json

import pytest

from sessionproof.scoring._internal import (
    CostSummary,
    Price,
    TraceCache,
    compare_cost,
    cost_summary,
    shipped_prices,
    tally_made,
)

from .sessions import call, session

PRICES = shipped_prices().merged(
    {
        "agent-m": Price(input=1.0, output=2.0, cached_input=0.5),
        "user-m": Price(input=0.5, output=1.0),
    },
    "test",
)


def _arm() -> CostSummary:
    sessions = [
        session(
            [
                call("agent", "agent-m", 1_000_000, 100_000, 200_000),
                call("user", "user-m", 200_000, 10_000),
            ],
            True,
            "a",
        ),
        session(
            [
                call("agent", "agent-m", 1_000_000, 100_000),
                call("judge", "gpt-4o-mini", 1_000_000, 0),
            ],
            False,
            "b",
        ),
        session([call("agent", "agent-m", 500_000, 0)], None, "c"),  # infra error: still paid
    ]
    return cost_summary(sessions, PRICES)


def test_cost_is_split_by_role_and_divided_by_sessions_and_successes() -> None:
    c = _arm()
    assert (c.sessions, c.successes) == (3, 1)
    agent = c.tokens["agent"]
    assert (agent.calls, agent.input_tokens, agent.output_tokens, agent.cached_tokens) == (
        3,
        2_500_000,
        200_000,
        200_000,
    )
    # agent: 0.8*1 + 0.2*0.5 + 0.1*2 = 1.1; 1.0 + 0.2 = 1.2; 0.5  → 2.8
    assert c.usd["agent"] == pytest.approx(2.8)
    assert c.usd["user"] == pytest.approx(0.2 * 0.5 + 0.01 * 1.0)
    assert c.usd["judge"] == pytest.approx(0.15)  # the shipped gpt-4o-mini input rate
    total = 2.8 + 0.11 + 0.15
    assert c.total_usd == pytest.approx(total)
    assert c.per_session.usd == pytest.approx(total / 3)
    assert c.per_success.usd == pytest.approx(total)  # one success pays for all three
    assert c.per_session.tokens == pytest.approx(c.total_tokens / 3)
    assert c.unpriced_models == [] and c.notes() == []
    assert c.prices_as_of == "2026-12-06" and c.prices_overridden_by == ["test"]
    dumped = json.loads(json.dumps(c.model_dump(mode="json")))
    assert set(dumped["usd"]) == {"agent", "user", "judge"}
    assert CostSummary.model_validate(dumped) == c


def test_a_model_without_a_price_gives_tokens_only_and_says_so() -> None:
    sessions = [
        session(
            [
                call("agent", "agent-m", 1000, 10),
                call("judge", "mystery-judge", 5000, 50, provider="openai-compat"),
            ],
            True,
        ),
    ]
    c = cost_summary(sessions, PRICES)
    assert c.usd["judge"] is None and c.usd["agent"] is not None and c.usd["user"] == 0.0
    assert c.total_usd is None and c.per_session.usd is None and c.per_success.usd is None
    assert c.tokens["judge"].input_tokens == 5000  # the tokens are still counted
    assert c.per_success.tokens == 1000 + 10 + 5000 + 50
    assert c.unpriced_models == ["openai-compat:mystery-judge"]
    assert c.notes() == ["no price for openai-compat:mystery-judge: tokens only"]


def test_per_success_is_undefined_without_a_success() -> None:
    c = cost_summary([session([call("agent", "agent-m", 10, 1)], False)], PRICES)
    assert c.per_success.usd is None and c.per_success.tokens is None
    assert c.per_success.undefined == "undefined (no successful session)"
    assert c.per_session.usd is not None
    empty = cost_summary([], PRICES)
    assert empty.per_session.undefined == "undefined (no session)" and empty.total_usd == 0.0


def test_compare_cost_says_how_much_cheaper_per_successful_session() -> None:
    def arm(tokens: int, wins: int, model: str = "agent-m") -> CostSummary:
        sessions = [session([call("agent", model, tokens, 0)], i < wins, str(i)) for i in range(4)]
        return cost_summary(sessions, PRICES)

    base = arm(1_000_000, 2)  # 4 USD / 2 successes = 2.0 per success
    assert (
        compare_cost(base, arm(1_000_000, 2)) == "costs the same per successful session (within 1%)"
    )
    assert compare_cost(base, arm(620_000, 2)) == "38% cheaper per successful session"
    assert compare_cost(base, arm(1_000_000, 1)) == "100% more expensive per successful session"
    assert compare_cost(base, arm(1_000_000, 0)) == (
        "cost per successful session not comparable: the candidate has no successful session"
    )
    unpriced = arm(500_000, 2, model="mystery")
    assert compare_cost(base, unpriced) == (
        "50% fewer tokens per successful session (no price for openai:mystery: tokens only)"
    )


def test_each_sessions_tally_is_made_once_and_priced_as_the_sum_of_its_calls() -> None:
    calls = [
        call("agent", "agent-m", 1_000, 300, 400),
        call("agent", "agent-m", 2_000, 100, 5_000),  # more cached than sent: billed as 2,000
        call("user", "user-m", 700, 50),
    ]
    sessions = [session(calls, True, "a"), session(calls[:1], False, "b")]
    by_call = {
        "agent": (1_000 - 400) * 1.0 + 400 * 0.5 + 300 * 2.0 + 2_000 * 0.5 + 100 * 2.0,
        "user": 700 * 0.5 + 50 * 1.0,
    }
    traces = TraceCache()
    warm = [tally_made(s, traces) for s in sessions]  # as a run makes them, session by session
    made = cost_summary(sessions, PRICES, traces)
    assert made.usd["agent"] == pytest.approx((by_call["agent"] + 600 * 1.0 + 200 + 600) / 1e6)
    assert made.usd["user"] == pytest.approx(by_call["user"] / 1e6)
    assert made.model_dump() == cost_summary(sessions, PRICES).model_dump()  # cache or not
    assert made.tokens["agent"].cached_tokens == 5_800  # as recorded, not as billed
    # The summary read the tallies made before it: the same objects, not made again.
    assert all(tally_made(s, traces) is t for s, t in zip(sessions, warm, strict=True))
