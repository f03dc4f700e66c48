"""The embedded server's prompt cache: used across a session's steps, and reproducible.

Two runs of the same demo sessions, each on a fresh server with the slot cache on, give the
same transcripts; and the cache is really used (the server reports cached prompt tokens).
"""

from __future__ import annotations

from typing import Any

import pytest

from sessionproof.agents._local import LocalAgent, LocalConfig, default_model_path
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import Session
from sessionproof.records._internal import ModelCallEvent
from sessionproof.suites import load_suite

pytestmark = [pytest.mark.llama, pytest.mark.slow]  # a real llama.cpp server
pytest.importorskip("xllamacpp")


def _config() -> LocalConfig:
    try:
        path = default_model_path()
    except Exception as exc:  # the weights are an optional install
        pytest.skip(f"SmolLM2 weights not installed: {exc}")
    # A config no other test uses, so each run gets a server of its own, started cold.
    return LocalConfig(model_path=path, max_tokens=48, seed=11, cache_prompt=True)


async def _run(run_id: str) -> list[Session]:
    agent = LocalAgent(_config())
    sink = SessionList()
    plan = RunPlan(run_id=run_id, seed=0, concurrency=1, max_steps=4)
    try:
        await execute_run(load_suite("demo").limited(2), agent, plan, sink)
    finally:
        await agent.aclose()  # the last reference: the server stops
    return sorted(sink.sessions, key=lambda s: s.scenario_id)


def _transcript(session: Session) -> list[tuple[Any, ...]]:
    """What the sessions said and did, without times, latencies and response ids.

    Cached-token counts are left out too: a request retried after a timeout (a loaded
    machine) finds its own prompt cached, which changes the count but not the reply.
    """
    out: list[tuple[Any, ...]] = []
    for event in session.events:
        payload = event.payload.model_dump(mode="json")
        if isinstance(event, ModelCallEvent):
            usage = event.payload.usage
            payload = {
                "tokens": (usage.input_tokens, usage.output_tokens),
                "finish_reason": payload["finish_reason"],
            }
        out.append((event.kind.value, event.turn, event.step, payload))
    return out


async def test_two_cached_runs_give_identical_transcripts() -> None:
    first = await _run("cache-a")
    second = await _run("cache-b")
    assert [s.scenario_id for s in first] == [s.scenario_id for s in second]
    assert len(first) == 2
    for a, b in zip(first, second, strict=True):
        assert _transcript(a) == _transcript(b), a.scenario_id
        assert a.outcome == b.outcome and a.termination == b.termination
    # Steps after the first read the shared prefix from the slot, not again.
    cached = sum(s.usage.cached_tokens for s in first)
    assert cached > 0
    assert cached > sum(s.usage.input_tokens for s in first) // 2
