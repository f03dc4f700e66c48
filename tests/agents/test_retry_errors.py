"""Provider failures against a real HTTP server: retries, Retry-After, exhaustion, auth."""

from __future__ import annotations

import email.utils
import socket
import time
from typing import Any

import httpx
import pytest

from sessionproof.agents import AgentRequest, _openai
from sessionproof.agents._retry import (
    RetryPolicy,
    call_with_retries,
    redact,
    retry_after_seconds,
)
from sessionproof.errors import InfraError
from sessionproof.records import ErrorClass, Message

from .conftest import FAST, KEY, compat_agent
from .fakeprovider import FakeProvider, Reply, completion, error


def _request() -> AgentRequest:
    return AgentRequest(messages=[Message.system("Be brief."), Message.user("Hi")], tools=[])


Waits = list[tuple[float, int]]


@pytest.fixture
def waits(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> Waits:
    """Each wait the agent's retries ask for, with the requests the server had seen by then.

    The agent's calls go through the real `call_with_retries` with a recording sleep: the test
    reads what was waited for and when, not the wall clock of a shared machine."""
    seen: Waits = []

    async def sleep(seconds: float) -> None:
        seen.append((seconds, len(fake.posts())))

    def with_recorded_sleep(*args: Any, **kwargs: Any) -> Any:
        return call_with_retries(*args, **kwargs, sleep=sleep)

    monkeypatch.setattr(_openai, "call_with_retries", with_recorded_sleep)
    return seen


@pytest.mark.slow
async def test_429_retry_after_seconds_is_honoured(fake: FakeProvider, waits: Waits) -> None:
    # The policy's own backoff is 10 ms, so a wait of one second can only come from the header.
    fake.push(error("slow down", 429, **{"retry-after": "1"}), Reply(completion("hello")))
    agent = compat_agent(fake)
    response = await agent.respond(_request())
    await agent.aclose()
    assert response.message.content == "hello"
    assert len(fake.posts()) == 2
    assert response.model_calls[0].attempts == 2
    # One wait, of the second asked for, after the first request and before the second.
    assert waits == [(1.0, 1)]


async def test_retry_after_ms_wins_over_exponential_backoff(
    fake: FakeProvider, waits: Waits
) -> None:
    slow = RetryPolicy(attempts=3, wait_initial=5.0, wait_max=5.0, wait_jitter=0.0)
    fake.push(
        error("busy", 429, **{"retry-after-ms": "300", "retry-after": "9"}),
        Reply(completion("ok")),
    )
    agent = compat_agent(fake, retry=slow)
    response = await agent.respond(_request())
    await agent.aclose()
    assert response.message.content == "ok"
    assert len(fake.posts()) == 2
    # 300 ms: neither the 9 s of retry-after nor the policy's 5 s backoff.
    assert waits == [(0.3, 1)]


async def test_5xx_then_success_is_retried(fake: FakeProvider) -> None:
    fake.push(error("boom", 500), error("bad gateway", 502), Reply(completion("done")))
    agent = compat_agent(fake)
    response = await agent.respond(_request())
    await agent.aclose()
    assert response.message.content == "done"
    assert response.model_calls[0].attempts == 3
    assert len(fake.posts()) == 3


async def test_timeout_then_success_is_retried(fake: FakeProvider) -> None:
    fake.push(Reply(completion("late"), delay_s=1.0), Reply(completion("on time")))
    agent = compat_agent(fake, timeout_s=0.3)
    response = await agent.respond(_request())
    await agent.aclose()
    assert response.message.content == "on time"
    assert response.model_calls[0].attempts == 2


async def test_exhausted_retries_raise_infra_error(fake: FakeProvider) -> None:
    fake.push(*[error("overloaded", 503) for _ in range(FAST.attempts + 2)])
    agent = compat_agent(fake)
    with pytest.raises(InfraError) as info:
        await agent.respond(_request())
    await agent.aclose()
    text = str(info.value)
    assert "\n" not in text
    assert "HTTP 503" in text and f"after {FAST.attempts} attempts" in text
    assert len(fake.posts()) == FAST.attempts


@pytest.mark.slow
async def test_timeouts_exhausted_raise_infra_error(fake: FakeProvider) -> None:
    fake.push(*[Reply(completion("x"), delay_s=0.6) for _ in range(2)])
    agent = compat_agent(fake, timeout_s=0.2, retry=RetryPolicy(attempts=2, wait_initial=0.01))
    with pytest.raises(InfraError, match="timed out after 2 attempts"):
        await agent.respond(_request())
    await agent.aclose()


async def test_connection_refused_raises_infra_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # The port is free again and nothing listens on it.
    url = f"http://127.0.0.1:{port}/v1"
    from sessionproof.agents._openai import OpenAICompatAgent

    agent = OpenAICompatAgent(
        name="x", model="m", api_key=KEY, base_url=url, retry=FAST, tool_mode="native"
    )
    with pytest.raises(InfraError, match="cannot connect") as info:
        await agent.respond(_request())
    await agent.aclose()
    assert f"after {FAST.attempts} attempts" in str(info.value)


@pytest.mark.parametrize("status", [401, 403])
async def test_rejected_key_is_not_retried_and_not_printed(fake: FakeProvider, status: int) -> None:
    fake.push(error(f"Incorrect API key provided: {KEY}", status))
    agent = compat_agent(fake)
    with pytest.raises(InfraError) as info:
        await agent.respond(_request())
    await agent.aclose()
    assert "key was rejected" in str(info.value)
    assert KEY not in str(info.value) and "SECRETKEY" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert len(fake.posts()) == 1
    # The key did reach the server, as a bearer token: proof the test exercises a real key.
    assert fake.posts()[0].headers.get("authorization") == f"Bearer {KEY}"


async def test_other_4xx_is_not_retried_and_keeps_provider_message(fake: FakeProvider) -> None:
    fake.push(error("model 'nope' does not exist", 404))
    agent = compat_agent(fake)
    with pytest.raises(InfraError, match=r"HTTP 404.*model 'nope' does not exist"):
        await agent.respond(_request())
    await agent.aclose()
    assert len(fake.posts()) == 1


async def test_provider_message_echoing_a_key_is_redacted(fake: FakeProvider) -> None:
    fake.push(error(f"bad request for key {KEY}", 400))
    agent = compat_agent(fake)
    with pytest.raises(InfraError) as info:
        await agent.respond(_request())
    await agent.aclose()
    assert "SECRETKEY" not in str(info.value)
    assert "[redacted]" in str(info.value)


async def test_retry_after_beyond_the_cap_fails_at_once(fake: FakeProvider) -> None:
    fake.push(error("quota", 429, **{"retry-after": "3600"}), Reply(completion("never")))
    agent = compat_agent(fake, retry=RetryPolicy(attempts=3, max_retry_after=10))
    with pytest.raises(InfraError, match="asks to wait 3600 s"):
        await agent.respond(_request())
    await agent.aclose()
    assert len(fake.posts()) == 1


async def test_llama_cpp_rejecting_model_output_is_the_models_failure(fake: FakeProvider) -> None:
    # llama.cpp answers 500 when the model's text does not fit the tool-call format; a retry
    # at temperature 0 would give the same text, and it is not an infrastructure failure.
    msg = "The model produced output that does not match the expected peg-native format"
    fake.push(Reply({"error": {"code": 500, "message": msg, "type": "server_error"}}, status=500))
    agent = compat_agent(fake)
    response = await agent.respond(_request())
    await agent.aclose()
    assert len(fake.posts()) == 1
    assert [i.error_class for i in response.issues] == [ErrorClass.malformed_output]
    assert response.message.content is None and not response.message.tool_calls
    assert response.model_calls[0].attempts == 1


async def test_non_json_success_body_is_an_infra_error(fake: FakeProvider) -> None:
    fake.push(Reply(raw=b"<html>gateway</html>", headers={"content-type": "text/html"}))
    agent = compat_agent(fake)
    with pytest.raises(InfraError):
        await agent.respond(_request())
    await agent.aclose()


async def test_model_call_records_hold_no_secret(fake: FakeProvider) -> None:
    fake.push(Reply(completion("hi")))
    agent = compat_agent(fake)
    response = await agent.respond(_request())
    await agent.aclose()
    assert KEY not in response.model_dump_json()


def test_retry_after_header_forms() -> None:
    assert retry_after_seconds(httpx.Headers({"retry-after": "7"})) == 7.0
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "250"})) == 0.25
    assert retry_after_seconds(httpx.Headers({})) is None
    assert retry_after_seconds(None) is None
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    wait = retry_after_seconds(httpx.Headers({"retry-after": future}))
    assert wait is not None and 25 <= wait <= 31
    # Broken headers are ignored, not fatal.
    assert retry_after_seconds(httpx.Headers({"retry-after": "soon"})) is None
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "x", "retry-after": "2"})) == 2.0


def test_redact_removes_keys_and_tokens() -> None:
    other = "sk-" + "proj-" + "abcdefghijk"
    text = redact(f"key {KEY} and Bearer abc.def and {other}", "my-own-secret")
    assert "SECRETKEY" not in text and "abc.def" not in text and "sk-proj" not in text
    assert redact("hello my-own-secret", "my-own-secret") == "hello [redacted]"
