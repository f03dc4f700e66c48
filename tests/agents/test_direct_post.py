"""openai-compat requests go straight on aiohttp (`_direct`): the SDK's headers, the SDK's
error types, none of its per-request machinery."""

from __future__ import annotations

import socket
import sys

import openai
import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._direct import DirectPost, _http, status_error
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


_SDK_PARTS = ("_prepare_url", "_build_headers", "_make_status_error_from_response")
"""The openai client's private methods `DirectPost` borrows."""


def _without_sdk_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clients as a release without those methods (or their module) would make them."""
    for name in _SDK_PARTS:
        monkeypatch.setattr(openai.AsyncOpenAI, name, None)
    monkeypatch.setitem(sys.modules, "openai._models", None)  # importing it fails


async def test_without_the_sdks_private_parts_the_request_is_the_same(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = AgentRequest(messages=[Message.user("hi")], tools=[])
    seen = []
    for hidden in (False, True):
        if hidden:
            _without_sdk_parts(monkeypatch)
        agent = compat_agent(fake)
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
    # Only the SDK's own retry and timeout telemetry headers are missing, nothing is added.
    extra = {k.lower() for k in sdk.headers} - {k.lower() for k in public.headers}
    assert extra <= {"x-stainless-retry-count", "x-stainless-read-timeout"}
    assert {k.lower() for k in public.headers} <= {k.lower() for k in sdk.headers}


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
def test_without_the_sdks_private_parts_errors_keep_their_types(
    status: int, body: bytes, fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = compat_agent(fake)
    url = "http://127.0.0.1:9/v1/chat/completions"
    response = _http.Response(status, content=body, request=_http.Request("POST", url))
    sdk = agent._client._make_status_error_from_response(response)
    _without_sdk_parts(monkeypatch)
    public = status_error(agent._client, response)
    assert type(public) is type(sdk)
    assert (public.message, public.body, public.status_code) == (
        sdk.message,
        sdk.body,
        sdk.status_code,
    )
