"""openai-compat requests go straight on aiohttp (`_direct`): the SDK's headers, the SDK's
error types, none of its per-request machinery."""

from __future__ import annotations

import socket

import openai
import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._direct import DirectPost
from sessionproof.records import Message

from .conftest import KEY, compat_agent
from .fakeprovider import FakeProvider, Reply, completion, error


async def test_openai_compat_requests_skip_the_sdks_client_post(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = compat_agent(fake)

    async def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the SDK's client.post was used")

    monkeypatch.setattr(agent._client, "post", refuse)
    fake.push(Reply(completion("hello")))
    reply = await agent.respond(AgentRequest(messages=[Message.user("hi")], tools=[]))
    await agent.aclose()
    assert reply.message.content == "hello"
    (seen,) = fake.posts()
    assert seen.path == "/v1/chat/completions"
    # The headers the SDK's own client builds: auth, JSON, its user agent.
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["user-agent"].startswith("AsyncOpenAI/Python")
    assert seen.body["messages"] == [{"role": "user", "content": "hi"}]


async def test_failed_direct_posts_raise_the_sdks_error_types(fake: FakeProvider) -> None:
    agent = compat_agent(fake)
    direct = DirectPost(agent._client, "/chat/completions", 5.0)
    fake.push(error("slow down", 429, **{"retry-after": "3"}), error("bad", 400))
    with pytest.raises(openai.RateLimitError) as limited:
        await direct.post(b"{}")
    assert limited.value.response.headers["retry-after"] == "3"
    assert "slow down" in limited.value.message
    failure = agent.classify_failure(limited.value)
    assert failure is not None and failure.retryable
    with pytest.raises(openai.BadRequestError):
        await direct.post(b"{}")
    await direct.aclose()
    await agent.aclose()


async def test_a_refused_direct_post_is_a_connection_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = openai.AsyncOpenAI(api_key=KEY, base_url=f"http://127.0.0.1:{port}/v1")
    direct = DirectPost(client, "/chat/completions", 5.0)
    with pytest.raises(openai.APIConnectionError) as refused:
        await direct.post(b"{}")
    assert not isinstance(refused.value, openai.APITimeoutError)
    assert isinstance(refused.value.__cause__, OSError)
    await direct.aclose()
    await client.close()


def test_the_environments_proxy_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    client = openai.AsyncOpenAI(api_key=KEY, base_url="http://10.0.0.1:8000/v1")
    direct = DirectPost(client, "/chat/completions", 5.0)
    assert str(direct._proxy) == "http://127.0.0.1:3128"
    monkeypatch.setenv("NO_PROXY", "10.0.0.1")
    assert DirectPost(client, "/chat/completions", 5.0)._proxy is None


async def test_a_url_with_credentials_gets_a_connection_on_the_httpx_path(
    fake: FakeProvider,
) -> None:
    # Such a URL stays on the SDK's httpx client. It was given aiohttp's spelling of "no
    # connection cap" (max_connections=0), which httpx reads as a pool of zero connections:
    # every request waited out the pool timeout and failed, each of its retries too.
    url = fake.url.replace("http://", "http://someone:" + "pw" * 6 + "@")
    fake.push(Reply(completion("hello")))
    agent = compat_agent(fake, base_url=url, timeout_s=2.0)
    assert agent._direct is None  # the SDK path, not the direct POST
    reply = await agent.respond(AgentRequest(messages=[Message.user("hi")], tools=[]))
    await agent.aclose()
    assert reply.message.content == "hello"
    assert fake.posts()[0].path == "/v1/chat/completions"
