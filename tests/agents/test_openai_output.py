"""Broken and unusual model output through a real HTTP server, and what the adapter sends."""

from __future__ import annotations

import json

from sessionproof.agents import AgentRequest
from sessionproof.agents._openai import to_openai_messages
from sessionproof.agents._parse import MAX_REPLY_CHARS
from sessionproof.records import ErrorClass, Message, ToolCall, ToolResult

from .conftest import compat_agent, weather_tools
from .fakeprovider import FakeProvider, Reply, completion


def _request(**kw: object) -> AgentRequest:
    base: dict[str, object] = {
        "messages": [Message.system("Policy."), Message.user("Weather in Paris?")],
        "tools": weather_tools(),
    }
    base.update(kw)
    return AgentRequest(**base)  # type: ignore[arg-type]


async def _one(fake: FakeProvider, body: dict[str, object], **kw: object):  # type: ignore[no-untyped-def]
    fake.push(Reply(body))
    agent = compat_agent(fake, **kw)
    try:
        return await agent.respond(_request())
    finally:
        await agent.aclose()


async def test_invalid_json_arguments_become_a_parse_error(fake: FakeProvider) -> None:
    raw = '{"city": "Paris"'
    response = await _one(fake, completion(None, [("c1", "get_weather", raw)]))
    (call,) = response.message.tool_calls
    assert call.arguments is None
    assert call.raw_arguments == raw
    assert call.parse_error is not None and "invalid JSON" in call.parse_error
    assert [i.error_class for i in response.issues] == [ErrorClass.malformed_output]


async def test_non_object_arguments_are_a_parse_error(fake: FakeProvider) -> None:
    response = await _one(fake, completion(None, [("c1", "get_weather", '["Paris"]')]))
    (call,) = response.message.tool_calls
    assert call.arguments is None and call.parse_error == "expected a JSON object, got an array"


async def test_unknown_tool_name_is_kept_as_a_call(fake: FakeProvider) -> None:
    response = await _one(fake, completion(None, [("c1", "launch_rocket", {"to": "moon"})]))
    (call,) = response.message.tool_calls
    assert call.name == "launch_rocket" and call.arguments == {"to": "moon"}
    assert response.issues == []


async def test_parallel_calls_keep_their_order(fake: FakeProvider) -> None:
    calls = [("a1", "get_weather", {"city": "Paris"}), ("a2", "book_table", {"people": 2})]
    response = await _one(fake, completion("Both.", calls, finish_reason="tool_calls"))
    assert [(c.id, c.name, c.arguments) for c in response.message.tool_calls] == [
        ("a1", "get_weather", {"city": "Paris"}),
        ("a2", "book_table", {"people": 2}),
    ]
    assert response.message.content == "Both."
    assert response.issues == []


async def test_missing_or_repeated_call_ids_are_made_unique(fake: FakeProvider) -> None:
    calls: list[tuple[str | None, str, object]] = [
        ("", "get_weather", {}),
        ("dup", "get_weather", {}),
        ("dup", "book_table", {}),
    ]
    response = await _one(fake, completion(None, calls))
    ids = [c.id for c in response.message.tool_calls]
    assert len(set(ids)) == 3 and ids[1] == "dup" and all(ids)


async def test_empty_reply_is_classified(fake: FakeProvider) -> None:
    response = await _one(fake, completion(None))
    assert response.message.content is None and response.message.tool_calls == []
    assert [i.error_class for i in response.issues] == [ErrorClass.empty_result]
    blank = await _one(fake, completion("   \n"))
    assert [i.error_class for i in blank.issues] == [ErrorClass.empty_result]


async def test_five_megabyte_reply_is_cut_and_classified(fake: FakeProvider) -> None:
    huge = "x" * (5 * 1024 * 1024)
    response = await _one(fake, completion(huge))
    text = response.message.content
    assert text is not None and len(text) < MAX_REPLY_CHARS + 100
    assert text.startswith("x" * 1000) and text.endswith(f"[truncated: {len(huge)} characters]")
    assert [i.error_class for i in response.issues] == [ErrorClass.truncated_output]


async def test_length_stop_and_content_filter_are_classified(fake: FakeProvider) -> None:
    cut = await _one(fake, completion("The weather in", finish_reason="length"))
    assert [i.error_class for i in cut.issues] == [ErrorClass.truncated_output]
    assert cut.message.content == "The weather in"
    filtered = await _one(fake, completion(None, finish_reason="content_filter"))
    assert ErrorClass.policy_refusal in [i.error_class for i in filtered.issues]


async def test_model_call_is_recorded(fake: FakeProvider) -> None:
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 9,
        "total_tokens": 129,
        "prompt_tokens_details": {"cached_tokens": 64},
    }
    body = completion("Sunny.", usage=usage, response_id="chatcmpl-42")
    response = await _one(fake, body)
    (record,) = response.model_calls
    assert record.provider == "openai-compat" and record.model == "fake-model"
    assert (record.usage.input_tokens, record.usage.output_tokens) == (120, 9)
    assert record.usage.cached_tokens == 64
    assert record.response_id == "chatcmpl-42" and record.finish_reason == "stop"
    assert record.attempts == 1 and record.latency_s > 0


async def test_request_body_carries_tools_history_and_sampling(fake: FakeProvider) -> None:
    good = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    broken = ToolCall(id="c2", name="get_weather", raw_arguments="{oops", parse_error="bad")
    history = [
        Message.system("Policy."),
        Message.user("Weather?"),
        Message.assistant("Checking.", [good, broken]),
        Message.tool(ToolResult(call_id="c1", name="get_weather", output='{"sky": "clear"}')),
        Message.tool(ToolResult(call_id="c2", name="get_weather", output="Error: bad")),
    ]
    fake.push(Reply(completion("Clear.")))
    agent = compat_agent(fake, seed=3, max_tokens=50, tool_choice="required")
    await agent.respond(_request(messages=history, seed=11))
    await agent.aclose()
    body = fake.posts()[0].body
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather", "book_table"]
    assert body["tool_choice"] == "required"
    assert body["seed"] == 11  # the request's seed wins over the agent's default
    assert body["max_tokens"] == 50 and body["temperature"] == 0.0
    sent = body["messages"][2]
    assert sent["content"] == "Checking."
    assert [json.loads(c["function"]["arguments"]) for c in sent["tool_calls"]] == [
        {"city": "Paris"},
        {},  # unparsable past arguments are sent as an empty object, never as broken JSON
    ]
    assert [m["tool_call_id"] for m in body["messages"][3:]] == ["c1", "c2"]
    assert "response_format" not in body


async def test_no_tools_means_no_tools_field(fake: FakeProvider) -> None:
    fake.push(Reply(completion("Hello.")))
    agent = compat_agent(fake)
    await agent.respond(AgentRequest(messages=[Message.user("Hi")], tools=[]))
    await agent.aclose()
    assert "tools" not in fake.posts()[0].body


def test_assistant_without_content_or_calls_is_sent_as_empty_text() -> None:
    (entry,) = to_openai_messages([Message.assistant(None)])
    assert entry == {"role": "assistant", "content": ""}
