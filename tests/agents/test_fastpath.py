"""The agents' fast path (`agents._fastpath`) and the SDK's public path hold the same
conversation: the same loopback server sees the same requests, the agent returns the same
replies, retries the same failures and raises the same errors either way."""

from __future__ import annotations

from typing import Any

import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._openai import OpenAICompatAgent
from sessionproof.errors import InfraError
from sessionproof.records import Message, ToolResult

from .conftest import compat_agent, weather_tools
from .fakeprovider import FakeProvider, Reply, completion, error

_SAME_HEADERS = ("authorization", "content-type", "user-agent", "accept")


async def _conversation(agent: OpenAICompatAgent, fake: FakeProvider) -> list[Any]:
    """A tool call, its result, a reply after a 429 and a 503, then a request that fails
    for good; what the agent returned at each step (the error's text for the last)."""
    tools = weather_tools()
    fake.push(
        Reply(completion(None, [("call_1", "get_weather", {"city": "Oslo"})])),
        error("slow down", 429, **{"retry-after": "0.01"}),
        error("overloaded", 503),
        Reply(completion("It is sunny in Oslo.", finish_reason="stop")),
        error("bad request body", 400),
    )
    history = [Message.user("What is the weather in Oslo?")]
    out: list[Any] = []
    first = await agent.respond(AgentRequest(messages=history, tools=tools, step=0))
    out.append(first.model_dump(exclude={"model_calls": {"__all__": {"latency_s"}}}))
    history += [
        first.message,
        Message.tool(ToolResult(call_id="call_1", name="get_weather", output='{"sky": "sun"}')),
    ]
    second = await agent.respond(AgentRequest(messages=history, tools=tools, step=1))
    out.append(second.model_dump(exclude={"model_calls": {"__all__": {"latency_s"}}}))
    with pytest.raises(InfraError) as failed:
        await agent.respond(AgentRequest(messages=history, tools=tools, step=2))
    out.append(str(failed.value))
    await agent.aclose()
    return out


async def test_the_same_conversation_on_both_paths(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_agent = compat_agent(fake)
    assert fast_agent._direct is not None  # the fast path: the SDK's client.post is unused

    async def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the SDK's client.post was used on the fast path")

    monkeypatch.setattr(fast_agent._client, "post", refuse)
    fast = await _conversation(fast_agent, fake)
    fast_seen = fake.posts()

    monkeypatch.setenv("SESSIONPROOF_NO_FASTPATH", "1")
    sdk_agent = compat_agent(fake)
    assert sdk_agent._direct is None  # the SDK's public path
    sdk = await _conversation(sdk_agent, fake)
    sdk_seen = fake.posts()[len(fast_seen) :]

    assert fast == sdk
    assert fast[0]["message"]["tool_calls"][0]["name"] == "get_weather"
    assert fast[1]["message"]["content"] == "It is sunny in Oslo."
    assert fast[1]["model_calls"][0]["attempts"] == 3  # the 429 and the 503 retried
    assert "HTTP 400" in fast[2] and "bad request body" in fast[2]
    assert len(fast_seen) == len(sdk_seen) == 5
    for a, b in zip(fast_seen, sdk_seen, strict=True):
        assert (a.method, a.path, a.body) == (b.method, b.path, b.body)
        for name in _SAME_HEADERS:
            assert a.headers[name] == b.headers[name], name
