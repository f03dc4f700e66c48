"""The Anthropic adapter: message conversion (no network) and requests against the fake server."""

from __future__ import annotations

from typing import Any

import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._anthropic import AnthropicAgent, to_anthropic
from sessionproof.errors import InfraError
from sessionproof.records import ErrorClass, Message, ToolCall, ToolResult

from .conftest import FAST, KEY, weather_tools
from .fakeprovider import FakeProvider, Reply, error


def _message(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 30,
            "output_tokens": 12,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 5,
        },
    }


def _agent(fake: FakeProvider) -> AnthropicAgent:
    return AnthropicAgent(
        name="anthropic:claude-test",
        model="claude-test",
        api_key=KEY,
        base_url=fake.root,
        retry=FAST,
        timeout_s=5.0,
    )


def test_conversion_separates_system_and_merges_tool_results() -> None:
    calls = [
        ToolCall(id="call:1", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="c2", name="get_weather", raw_arguments="{bad", parse_error="x"),
    ]
    messages = [
        Message.system("Policy A."),
        Message.user("Weather in two places?"),
        Message.assistant("Checking both.", calls),
        Message.tool(ToolResult(call_id="call:1", name="get_weather", output="sunny")),
        Message.tool(ToolResult(call_id="c2", name="get_weather", output="Error: bad")),
        Message.user("Thanks"),
        Message.assistant(None),
    ]
    system, out = to_anthropic(messages)
    assert system == "Policy A."
    assert [m["role"] for m in out] == ["user", "assistant", "user", "assistant"]
    blocks = out[1]["content"]
    assert blocks[0] == {"type": "text", "text": "Checking both."}
    assert [(b["id"], b["input"]) for b in blocks[1:]] == [
        ("call_1", {"city": "Paris"}),
        ("c2", {}),
    ]
    results = out[2]["content"]
    # Both tool results and the user's next line travel in one user turn, results first.
    assert [b["type"] for b in results] == ["tool_result", "tool_result", "text"]
    assert [b.get("tool_use_id") for b in results[:2]] == ["call_1", "c2"]
    assert out[3]["content"] == [{"type": "text", "text": "(no reply)"}]


async def test_request_and_reply_through_the_fake_server(fake: FakeProvider) -> None:
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        {"type": "tool_use", "id": "toolu_2", "name": "unknown_tool", "input": {}},
    ]
    fake.push(Reply(_message(content, stop="tool_use")))
    agent = _agent(fake)
    request = AgentRequest(
        messages=[Message.system("Policy."), Message.user("Weather in Oslo?")],
        tools=weather_tools(),
    )
    response = await agent.respond(request)
    await agent.aclose()
    seen = fake.posts()[0]
    assert seen.path == "/v1/messages"
    assert KEY in (seen.headers.get("x-api-key") or seen.headers.get("authorization") or "")
    assert seen.body["system"] == "Policy."
    assert seen.body["tools"][0]["input_schema"]["properties"] == {"city": {"type": "string"}}
    assert seen.body["max_tokens"] == 4096
    assert response.message.content == "Let me look."
    assert [(c.id, c.name) for c in response.message.tool_calls] == [
        ("toolu_1", "get_weather"),
        ("toolu_2", "unknown_tool"),
    ]
    (record,) = response.model_calls
    assert record.provider == "anthropic" and record.response_id == "msg_01"
    assert (record.usage.input_tokens, record.usage.cached_tokens) == (135, 100)
    assert record.finish_reason == "tool_use" and response.issues == []


async def test_max_tokens_stop_and_empty_reply_are_classified(fake: FakeProvider) -> None:
    fake.push(Reply(_message([{"type": "text", "text": "cut"}], stop="max_tokens")))
    fake.push(Reply(_message([], stop="end_turn")))
    agent = _agent(fake)
    request = AgentRequest(messages=[Message.user("Hi")], tools=[])
    cut = await agent.respond(request)
    empty = await agent.respond(request)
    await agent.aclose()
    assert [i.error_class for i in cut.issues] == [ErrorClass.truncated_output]
    assert [i.error_class for i in empty.issues] == [ErrorClass.empty_result]


async def test_overloaded_is_retried_then_exhausted(fake: FakeProvider) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    fake.push(Reply(overloaded, status=529), Reply(_message([{"type": "text", "text": "ok"}])))
    agent = _agent(fake)
    request = AgentRequest(messages=[Message.user("Hi")], tools=[])
    response = await agent.respond(request)
    assert response.model_calls[0].attempts == 2
    fake.push(*[Reply(overloaded, status=529) for _ in range(FAST.attempts)])
    with pytest.raises(InfraError, match=r"HTTP 529.*Overloaded"):
        await agent.respond(request)
    fake.push(error("invalid x-api-key", 401))
    with pytest.raises(InfraError, match="key was rejected"):
        await agent.respond(request)
    await agent.aclose()


async def test_explicit_temperature_travels_in_the_body(fake: FakeProvider) -> None:
    fake.push(Reply(_message([{"type": "text", "text": "ok"}])), Reply(_message([])))
    agent = _agent(fake)
    request = AgentRequest(messages=[Message.user("Hi")], tools=[])
    await agent.respond(request)
    agent.temperature = 0.2
    await agent.respond(request)
    await agent.aclose()
    first, second = (s.body for s in fake.posts())
    assert "temperature" not in first
    assert second["temperature"] == 0.2
