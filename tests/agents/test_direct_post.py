"""openai-compat requests go out on the fast path (`_fastpath`: our HTTP/1.1 client, or
aiohttp behind a proxy): the SDK's headers, the SDK's error types, none of its per-request
machinery; without the SDK's private parts, on the SDK's own `client.post`."""

from __future__ import annotations

import socket
import sys

import openai
import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._fastpath import SDK_PARTS, DirectPost
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


def _without_sdk_parts(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Clients as a release without those methods (or their module) would make them."""
    for name in names or SDK_PARTS:
        monkeypatch.setattr(openai.AsyncOpenAI, name, None)
    if not names:
        monkeypatch.setitem(sys.modules, "openai._models", None)  # importing it fails


async def test_without_the_sdks_private_parts_the_request_is_the_same(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = AgentRequest(messages=[Message.user("hi")], tools=[])
    seen = []
    for hidden in (False, True):
        if hidden:
            # Missing when the agent is made (it picks the SDK's path then); back for the
            # SDK's own use of them.
            with monkeypatch.context() as patch:
                _without_sdk_parts(patch)
                agent = compat_agent(fake)
            assert agent._direct is None
        else:
            agent = compat_agent(fake)
            assert agent._direct is not None
        fake.push(Reply(completion("hello")))
        reply = await agent.respond(request)
        await agent.aclose()
        assert reply.message.content == "hello"
        seen.append(fake.posts()[-1])
    sdk, public = seen
    assert public.path == sdk.path == "/v1/chat/completions"
    assert public.body == sdk.body
    for name in ("authorization", "content-type", "user-agent", "accept"):
        assert public.headers[name] == sdk.headers[name], name
    # Only the SDK's own retry and timeout telemetry headers and the transport's own
    # (aiohttp's keep-alive and encodings) may differ, nothing else.
    differ = {k.lower() for k in sdk.headers} ^ {k.lower() for k in public.headers}
    assert differ <= {"x-stainless-retry-count", "x-stainless-read-timeout"} | _TRANSPORT


_TRANSPORT = {"accept-encoding", "connection"}
"""Headers each transport adds on its own (aiohttp on the SDK's path)."""


def test_any_one_missing_private_part_selects_the_sdks_path(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in SDK_PARTS:
        with monkeypatch.context() as patch:
            _without_sdk_parts(patch, name)
            assert compat_agent(fake)._direct is None, name
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "openai._models", None)
        assert compat_agent(fake)._direct is None
    monkeypatch.setenv("SESSIONPROOF_NO_FASTPATH", "1")
    assert compat_agent(fake)._direct is None
    monkeypatch.setenv("SESSIONPROOF_NO_FASTPATH", "0")
    assert compat_agent(fake)._direct is not None


@pytest.mark.slow
@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 418, 422, 429, 500, 503])
@pytest.mark.parametrize(
    "body",
    [
        b'{"error": {"message": "no", "code": "x"}}',
        b'{"message": "top level"}',
        b'{"error": "a string"}',
        b"[1, 2]",
        b"plain text",
        b"",
    ],
)
async def test_both_paths_raise_the_same_error_for_a_status(
    status: int, body: bytes, fake: FakeProvider
) -> None:
    agent = compat_agent(fake)
    assert agent._direct is not None
    errors = []
    for send in (
        agent._direct.post,
        lambda b: agent._client.post("/chat/completions", cast_to=bytes, content=b),
    ):
        fake.push(Reply(raw=body, status=status))
        with pytest.raises(openai.APIStatusError) as caught:
            await send(b"{}")
        errors.append(caught.value)
    await agent.aclose()
    fast, sdk = errors
    assert type(fast) is type(sdk)
    assert (fast.message, fast.body, fast.status_code) == (sdk.message, sdk.body, sdk.status_code)
