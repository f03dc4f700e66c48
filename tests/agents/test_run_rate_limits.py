"""A whole run against a loopback provider that answers 429 (Retry-After) to 30% of calls:
no session fails, and the run summary says what the limiter saw."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sessionproof.errors import ConfigError
from sessionproof.runs import RunConfig, run

from .fakeprovider import FakeProvider, Reply, Seen, completion, error


def storming(seed: int) -> FakeProvider:
    """429 with `Retry-After: 0` to 30% of calls (seeded); else a text reply that ends the
    conversation once it is longer than 8 messages."""
    rng = random.Random(seed)

    def respond(seen: Seen) -> Reply:
        if rng.random() < 0.3:
            return error("rate limited", 429, **{"retry-after": "0"})
        long = len(seen.body.get("messages", [])) > 8
        return Reply(completion("Thanks, that is all. ###STOP###" if long else "Tell me more?"))

    return FakeProvider(responder=respond).start()


@pytest.fixture
def storm() -> FakeProvider:
    server = storming(seed=3)
    yield server  # type: ignore[misc]
    server.stop()


@pytest.mark.slow
def test_a_429_storm_costs_no_session(storm: FakeProvider, tmp_path: Path) -> None:
    config = RunConfig(
        suite="tau2-airline",
        model=f"openai-compat:fake@{storm.url}",
        limit=4,
        trials=2,
        concurrency=4,
        tool_mode="native",
        store=tmp_path / "s.duckdb",
        rpm=100000,
    )
    report = run(config)
    assert len(report.sessions) == 8
    assert {s.termination.value for s in report.sessions} == {"user_stop"}
    stats = report.concurrency
    assert stats is not None
    posts = len(storm.posts())
    assert stats.requests == posts
    assert 0 < stats.rate_limited < posts
    assert 1 <= stats.peak <= 4 and stats.window_min < 4
    assert report.to_json()["concurrency"]["rate_limited"] == stats.rate_limited


def test_rate_limits_are_validated() -> None:
    with pytest.raises(ConfigError, match="rpm"):
        RunConfig(suite="demo", model="oracle", rpm=0)


def test_reference_agents_report_no_concurrency() -> None:
    report = run(RunConfig(suite="demo", model="oracle", limit=1))
    assert report.concurrency is None
    assert "concurrency" not in report.to_json()
