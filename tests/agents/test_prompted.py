"""Prompted tool calling: the reply schema, the history rendering, reading replies back, and
the `auto` tool-mode choice against a server that publishes (or lacks) llama.cpp's /props."""

from __future__ import annotations

import json

import jsonschema
import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._openai import detect_tool_mode, server_root
from sessionproof.agents._parse import CallIds
from sessionproof.agents._prompted import (
    MAX_MESSAGE_CHARS,
    message_chars_for,
    parse_reply,
    reply_schema,
    response_format,
    system_text,
    to_chat_messages,
)
from sessionproof.records import ErrorClass, Message, ToolCall, ToolResult, ToolSpec

from .conftest import KEY, compat_agent, weather_tools
from .fakeprovider import FakeProvider, Reply, completion


def test_schema_accepts_messages_and_each_tools_own_arguments() -> None:
    schema = reply_schema(weather_tools())
    jsonschema.Draft202012Validator.check_schema(schema)
    ok = [
        {"type": "message", "content": "Hello"},
        {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "tool_call", "name": "book_table", "arguments": {"people": 4}},
    ]
    bad = [
        {"type": "tool_call", "name": "get_weather", "arguments": {"people": 4}},
        {"type": "tool_call", "name": "no_such_tool", "arguments": {}},
        {"type": "message"},
        {"type": "message", "content": "x", "extra": 1},
    ]
    for value in ok:
        jsonschema.validate(value, schema)
    for value in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(value, schema)


def test_required_tool_drops_the_message_branch() -> None:
    schema = reply_schema(weather_tools(), require_tool=True)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "message", "content": "no"}, schema)


def test_tools_with_refs_share_a_loose_branch() -> None:
    nested = ToolSpec(
        name="nested",
        description="Has $defs.",
        parameters={
            "type": "object",
            "$defs": {"Item": {"type": "object"}},
            "properties": {"item": {"$ref": "#/$defs/Item"}},
        },
    )
    schema = reply_schema([nested])
    assert "$defs" not in json.dumps(schema)
    jsonschema.validate({"type": "tool_call", "name": "nested", "arguments": {"a": 1}}, schema)
    assert response_format([nested])["json_schema"]["schema"] == schema


def test_system_text_lists_tools_after_the_policy() -> None:
    text = system_text("Be polite.", weather_tools())
    assert text.startswith("Be polite.")
    assert "get_weather" in text and "book_table" in text and '"tool_call"' in text


def test_history_is_rendered_in_the_reply_format() -> None:
    call = ToolCall(id="c1", name="get_weather", arguments={"city": "Oslo"})
    messages = [
        Message.system("Policy."),
        Message.user("Weather?"),
        Message.assistant(None, [call]),
        Message.tool(ToolResult(call_id="c1", name="get_weather", output='{"sky":"grey"}')),
        Message.user("And tomorrow?"),
    ]
    out = to_chat_messages(messages, weather_tools())
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert json.loads(out[2]["content"]) == {
        "type": "tool_call",
        "name": "get_weather",
        "arguments": {"city": "Oslo"},
    }
    # The tool result and the next user line are merged into one readable user turn.
    assert out[3]["content"].startswith("Tool result (get_weather, call c1):")
    assert "And tomorrow?" in out[3]["content"]


def test_parse_reply_reads_calls_and_messages() -> None:
    ids = CallIds()
    text, calls, issues = parse_reply(
        '{"type": "tool_call", "name": "get_weather", "arguments": {"city": "Rome"}}',
        ids=ids,
        step=2,
    )
    assert text is None and issues == []
    assert [(c.name, c.arguments, c.id) for c in calls] == [
        ("get_weather", {"city": "Rome"}, "call_2_1")
    ]
    text, calls, issues = parse_reply('{"type":"message","content":"Hi"}', ids=ids, step=2)
    assert (text, calls, issues) == ("Hi", [], [])


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "tool_call", "name": "get_weather", "argum',
        "plain words, no JSON",
        "[1, 2]",
        '{"type": "dance"}',
    ],
)
def test_parse_reply_classifies_broken_replies(raw: str) -> None:
    text, calls, issues = parse_reply(raw, ids=CallIds(), step=0)
    assert text == raw and calls == []
    assert [i.error_class for i in issues] == [ErrorClass.malformed_output]


def test_parse_reply_keeps_unknown_tools_and_bad_arguments() -> None:
    raw = '{"type": "tool_call", "name": "teleport", "arguments": [1]}'
    _, calls, _ = parse_reply(raw, ids=CallIds(), step=0)
    (call,) = calls
    assert call.name == "teleport" and call.arguments is None and call.parse_error


async def test_prompted_request_and_reply_through_a_server(fake: FakeProvider) -> None:
    reply = '{"type": "tool_call", "name": "get_weather", "arguments": {"city": "Lima"}}'
    fake.push(Reply(completion(reply)), Reply(completion('{"type": "message", "content": "Warm')))
    agent = compat_agent(fake, tool_mode="prompted")
    request = AgentRequest(messages=[Message.user("Weather in Lima?")], tools=weather_tools())
    first = await agent.respond(request)
    broken = await agent.respond(request)
    await agent.aclose()
    body = fake.posts()[0].body
    assert "tools" not in body
    assert body["response_format"]["type"] == "json_schema"
    assert (
        body["messages"][0]["role"] == "system" and "get_weather" in body["messages"][0]["content"]
    )
    (call,) = first.message.tool_calls
    assert call.name == "get_weather" and call.arguments == {"city": "Lima"}
    assert broken.message.tool_calls == []
    assert [i.error_class for i in broken.issues] == [ErrorClass.malformed_output]


async def test_prompted_mode_without_tools_sends_a_plain_chat(fake: FakeProvider) -> None:
    fake.push(Reply(completion("I am the user.")))
    agent = compat_agent(fake, tool_mode="prompted")
    response = await agent.respond(AgentRequest(messages=[Message.user("Hi")], tools=[]))
    await agent.aclose()
    assert "response_format" not in fake.posts()[0].body
    assert response.message.content == "I am the user."


@pytest.mark.parametrize(("supports", "mode"), [(False, "prompted"), (True, "native")])
async def test_auto_mode_reads_llama_cpp_props(
    fake: FakeProvider, supports: bool, mode: str
) -> None:
    fake.routes["/props"] = Reply({"chat_template_caps": {"supports_tool_calls": supports}})
    assert await detect_tool_mode(fake.url) == mode
    fake.push(Reply(completion("ok")))
    agent = compat_agent(fake, tool_mode="auto")
    await agent.respond(AgentRequest(messages=[Message.user("Hi")], tools=weather_tools()))
    await agent.aclose()
    assert agent.tool_mode == mode
    assert ("response_format" in fake.posts()[0].body) is (mode == "prompted")
    probe = [s for s in fake.seen if s.path == "/props"][-1]
    assert probe.headers.get("authorization") == f"Bearer {KEY}"


async def test_auto_mode_is_native_for_other_servers(fake: FakeProvider) -> None:
    assert await detect_tool_mode(fake.url) == "native"  # /props answers 404 here
    fake.routes["/props"] = Reply(raw=b"not json")
    assert await detect_tool_mode(fake.url) == "native"
    assert await detect_tool_mode("http://127.0.0.1:1/v1", timeout_s=0.5) == "native"


def test_server_root() -> None:
    assert server_root("http://h:1/v1") == "http://h:1"
    assert server_root("http://h:1/v1/") == "http://h:1"
    assert server_root("http://h:1/api") == "http://h:1/api"


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ('{"type": "message", "content": "Your order is on its wa', "Your order is on its wa"),
        ('{"type": "message", "content": "caf\\u00', "caf"),
        ('{"type": "message", "content": "line\\', "line"),
        ('{"type": "message", "content": "', '{"type": "message", "content": "'),
        ('{"type": "tool_call", "name": "get_w', '{"type": "tool_call", "name": "get_w'),
    ],
)
def test_truncated_replies_keep_what_can_be_read(raw: str, kept: str) -> None:
    text, calls, issues = parse_reply(raw, ids=CallIds(), step=0, truncated=True)
    assert (text, calls, issues) == (kept, [], [])


async def test_truncated_prompted_reply_is_classified_once(fake: FakeProvider) -> None:
    cut = '{"type": "message", "content": "Your refund is'
    fake.push(Reply(completion(cut, finish_reason="length")))
    agent = compat_agent(fake, tool_mode="prompted", max_tokens=40)
    request = AgentRequest(messages=[Message.user("Refund?")], tools=weather_tools())
    response = await agent.respond(request)
    await agent.aclose()
    assert response.message.content == "Your refund is"
    assert [i.error_class for i in response.issues] == [ErrorClass.truncated_output]
    schema = fake.posts()[0].body["response_format"]["json_schema"]["schema"]
    message_branch = next(
        b for b in schema["anyOf"] if b["properties"]["type"]["const"] == "message"
    )
    assert message_branch["properties"]["content"]["maxLength"] == 60  # 1.5 characters a token


def test_message_length_cap_follows_the_token_cap() -> None:
    assert message_chars_for(None) == MAX_MESSAGE_CHARS
    assert message_chars_for(256) == 384
    assert message_chars_for(1) == 32
    assert message_chars_for(10**6) == MAX_MESSAGE_CHARS
