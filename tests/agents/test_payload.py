"""Request bodies sent as ready JSON: the same JSON the SDKs would send, without their
per-call re-transformation, and tool schemas serialised once."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from openai._utils import maybe_transform
from openai.types.chat import completion_create_params

from sessionproof.agents import AgentRequest
from sessionproof.agents._anthropic import AnthropicAgent
from sessionproof.agents._payload import ToolPayloads, dumps, with_fields
from sessionproof.records import Message, ToolCall, ToolResult, ToolSpec

from .conftest import FAST, KEY, compat_agent, weather_tools
from .fakeprovider import FakeProvider, Reply, completion


def _conversation() -> list[Message]:
    call = ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})
    return [
        Message.system("You are helpful."),
        Message.user("Weather in Oslo? ünïcode ✓"),
        Message(role="assistant", content=None, tool_calls=[call]),
        Message.tool(ToolResult(call_id="call_1", name="get_weather", output='{"t": 3}')),
        Message.assistant("It is 3 degrees."),
        Message.user("Thanks"),
    ]


def _request() -> AgentRequest:
    return AgentRequest(messages=_conversation(), tools=weather_tools(), seed=7)


def test_openai_body_is_what_the_sdk_would_send(fake: FakeProvider) -> None:
    agent = compat_agent(fake, tool_choice="auto", max_tokens=64, extra_body={"top_k": 3})
    body = json.loads(agent._request_body(_request(), "native"))
    # The SDK's own transformation of the same arguments is the reference.
    kwargs: dict[str, Any] = {
        "model": "fake-model",
        "messages": body["messages"],
        "tools": [t.openai() for t in weather_tools()],
        "tool_choice": "auto",
        "temperature": 0.0,
        "seed": 7,
        "max_tokens": 64,
    }
    sdk = maybe_transform(kwargs, completion_create_params.CompletionCreateParamsNonStreaming)
    assert body == {**sdk, "top_k": 3}
    assert body["messages"][2]["tool_calls"][0]["function"]["arguments"] == '{"city": "Oslo"}'


async def test_openai_requests_skip_the_sdk_transformation(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: every call went through chat.completions.create, which re-walks the whole
    # payload against the SDK's TypedDicts (~3.7 ms of a tau2-sized call).
    import openai.resources.chat.completions.completions as sdk_completions

    async def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("the SDK's request transformation ran")

    monkeypatch.setattr(sdk_completions, "async_maybe_transform", refuse)
    fake.push(Reply(completion("hi")), Reply(completion("again")))
    agent = compat_agent(fake)
    first = await agent.respond(_request())
    second = await agent.respond(_request())
    await agent.aclose()
    assert [first.message.content, second.message.content] == ["hi", "again"]
    posts = fake.posts()
    assert posts[0].path == "/v1/chat/completions"
    assert posts[0].headers["authorization"] == f"Bearer {KEY}"
    assert posts[0].headers["content-type"] == "application/json"
    assert [t["function"]["name"] for t in posts[1].body["tools"]] == [
        "get_weather",
        "book_table",
    ]


async def test_anthropic_body_and_headers(fake: FakeProvider) -> None:
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "hello"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }
    fake.push(Reply(reply))
    agent = AnthropicAgent(
        name="anthropic:claude-test",
        model="claude-test",
        api_key=KEY,
        base_url=fake.root,
        temperature=0.5,
        timeout_s=5.0,
        retry=FAST,
    )
    response = await agent.respond(_request())
    await agent.aclose()
    assert response.message.content == "hello"
    (post,) = fake.posts()
    assert post.path == "/v1/messages"
    assert KEY in (post.headers.get("x-api-key") or post.headers.get("authorization") or "")
    assert "anthropic-version" in post.headers
    assert post.body["system"] == "You are helpful."
    assert post.body["temperature"] == 0.5
    assert post.body["tools"][0] == {
        "name": "get_weather",
        "description": "Get the weather for a city.",
        "input_schema": weather_tools()[0].parameters,
    }
    assert post.body["messages"][1]["content"][0]["type"] == "tool_use"


def test_tool_payloads_are_serialised_once_per_tool_list() -> None:
    rendered: list[str] = []

    def render(spec: ToolSpec) -> dict[str, Any]:
        rendered.append(spec.name)
        return spec.openai()

    cache = ToolPayloads(render)
    tools = weather_tools()
    first = cache(tools)
    assert cache(list(tools)) is first  # the same spec objects: no new serialisation
    assert rendered == ["get_weather", "book_table"]
    changed = [tools[0], tools[1].model_copy(update={"description": "Book it."})]
    assert json.loads(cache(changed))[1]["function"]["description"] == "Book it."
    assert len(rendered) == 4


def test_spliced_fields_make_one_valid_object() -> None:
    raw = with_fields({"model": "m", "n": 1}, [("tools", b'[{"a":1}]'), ("x", b"null")])
    assert orjson.loads(raw) == {"model": "m", "n": 1, "tools": [{"a": 1}], "x": None}
    assert with_fields({"a": 1}, []) == b'{"a":1}'


def test_integers_wider_than_64_bits_still_serialise() -> None:
    assert json.loads(dumps({"seed": 2**70})) == {"seed": 2**70}


def test_replies_are_read_from_their_json_as_leniently_as_the_sdk() -> None:
    from sessionproof.agents._completion import read_completion
    from sessionproof.errors import InfraError

    body = {
        "id": "c1",
        "choices": [
            {
                "finish_reason": "tool_calls",
                "message": {
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "a",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        },
                        {"id": "b", "type": "custom", "custom": {"name": "g", "input": "free"}},
                        "junk",
                    ],
                },
            }
        ],
        "usage": {
            "prompt_tokens": 9,
            "completion_tokens": "x",
            "prompt_tokens_details": {"cached_tokens": 4},
        },
    }
    got = read_completion(orjson.dumps(body), "p")
    assert [(c.id, c.name, c.arguments) for c in got.calls] == [
        ("a", "f", "{}"),
        ("b", "g", "free"),
    ]
    assert (got.input_tokens, got.output_tokens, got.cached_tokens) == (9, 0, 4)
    assert got.legacy_call is None and got.finish_reason == "tool_calls"
    legacy = {"choices": [{"message": {"function_call": {"name": "h", "arguments": "{}"}}}]}
    assert read_completion(orjson.dumps(legacy), "p").legacy_call is not None
    for bad in (b"<html>", b"[]", b'{"choices": []}'):
        with pytest.raises(InfraError):
            read_completion(bad, "p")


async def test_hundreds_of_requests_can_be_in_flight() -> None:
    # The connection pool must not cap requests in flight below the run's concurrency
    # (aiohttp's connector defaults to 100 connections; the adapter asks for no limit).
    import asyncio as aio

    inflight = {"now": 0, "peak": 0}
    release = aio.Event()

    async def handle(reader: aio.StreamReader, writer: aio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        inflight["now"] += 1
        inflight["peak"] = max(inflight["peak"], inflight["now"])
        await release.wait()
        body = orjson.dumps(completion("ok"))
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
        writer.write(head.encode() + b"\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    server = await aio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    from sessionproof.agents._openai import OpenAICompatAgent

    agent = OpenAICompatAgent(
        name="x", model="m", api_key=KEY, base_url=f"http://127.0.0.1:{port}/v1", retry=FAST
    )
    request = AgentRequest(messages=[Message.user("hi")], tools=[])
    tasks = [aio.create_task(agent.respond(request)) for _ in range(150)]
    for _ in range(3000):  # up to 30 s on a loaded machine; it breaks as soon as all arrive
        if inflight["peak"] >= 150:
            break
        await aio.sleep(0.01)
    release.set()
    replies = await aio.gather(*tasks)
    await agent.aclose()
    server.close()
    assert inflight["peak"] == 150
    assert all(r.message.content == "ok" for r in replies)
