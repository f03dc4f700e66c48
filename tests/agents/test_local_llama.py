"""The embedded llama.cpp server with SmolLM2-135M: real round trips, native and prompted.

Two servers start once per test session: one with the model's own template (no tool support,
so `auto` picks prompted mode) and one with a test ChatML template that renders tools.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import jsonschema
import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._local import (
    LocalAgent,
    LocalConfig,
    LocalServer,
    acquire_server,
    default_model_path,
    release_server,
)
from sessionproof.agents._openai import OpenAICompatAgent, to_openai_messages
from sessionproof.agents._spec import make_agent
from sessionproof.records import ErrorClass, Message, ToolResult

from .conftest import weather_tools

pytestmark = [pytest.mark.llama, pytest.mark.slow]  # a real llama.cpp server
pytest.importorskip("xllamacpp")

TEMPLATE = (Path(__file__).parent / "chatml_tools.jinja").read_text()
ASK = "Call get_weather for Paris."


def _model() -> Path:
    try:
        return default_model_path()
    except Exception as exc:  # the weights are an optional install
        pytest.skip(f"SmolLM2 weights not installed: {exc}")


@pytest.fixture(scope="session")
def plain_server() -> Iterator[LocalServer]:
    server = acquire_server(LocalConfig(model_path=_model()))
    yield server
    release_server(server)


@pytest.fixture(scope="session")
def tools_server() -> Iterator[LocalServer]:
    server = acquire_server(LocalConfig(model_path=_model(), chat_template=TEMPLATE))
    yield server
    release_server(server)


def _ask(text: str = ASK, *, system: bool = True) -> list[Message]:
    head = [Message.system("You are a weather assistant.")] if system else []
    return [*head, Message.user(text)]


def _native(server: LocalServer, **kw: object) -> OpenAICompatAgent:
    options: dict[str, object] = {
        "name": "local-native",
        "model": "smollm2",
        "api_key": "none",
        "base_url": f"{server.base_url}/v1",
        "provider": "llama.cpp",
        "tool_mode": "native",
        "seed": 0,
        "max_tokens": 128,
        "extra_body": {"cache_prompt": False},
    }
    options.update(kw)
    return OpenAICompatAgent(**options)  # type: ignore[arg-type]


def test_servers_report_health_and_template_caps(
    plain_server: LocalServer, tools_server: LocalServer
) -> None:
    for server in (plain_server, tools_server):
        assert httpx.get(f"{server.base_url}/health", timeout=5).json() == {"status": "ok"}
        assert server.base_url.startswith("http://127.0.0.1:")
        assert server.startup_s > 0
    # The exact field path `auto` mode reads, checked on the real server.
    plain = httpx.get(f"{plain_server.base_url}/props", timeout=5).json()
    tools = httpx.get(f"{tools_server.base_url}/props", timeout=5).json()
    assert plain["chat_template_caps"]["supports_tool_calls"] is False
    assert tools["chat_template_caps"]["supports_tool_calls"] is True
    assert plain["total_slots"] == 1


async def test_native_round_trip_sends_the_tool_result_back(tools_server: LocalServer) -> None:
    tools = weather_tools()[:1]
    # Without a system prompt the 135M model answers with a clean call (checked on this build);
    # with one it tends to chat first and run into the token cap.
    ask = _ask(system=False)
    first_agent = _native(tools_server, tool_choice="required")
    first = await first_agent.respond(AgentRequest(messages=ask, tools=tools, seed=0))
    await first_agent.aclose()
    calls = first.message.tool_calls
    assert calls, f"no tool call; issues: {first.issues}"
    assert all(c.name == "get_weather" and c.arguments == {"city": "Paris"} for c in calls)
    output = "Sunny, 17 C"
    results = [Message.tool(ToolResult(call_id=c.id, name=c.name, output=output)) for c in calls]
    history = [*ask, first.message, *results]
    # What the adapter sends, rendered by the server's own template: the call and its result
    # are both in the prompt the model reads.
    rendered = httpx.post(
        f"{tools_server.base_url}/apply-template",
        json={"messages": to_openai_messages(history)},
        timeout=10,
    ).json()["prompt"]
    assert '{"name": "get_weather", "arguments": {"city": "Paris"}}' in rendered
    assert f"<|im_start|>tool\n{output}<|im_end|>" in rendered
    agent = _native(tools_server)
    second = await agent.respond(AgentRequest(messages=history, tools=tools, seed=0))
    await agent.aclose()
    assert second.model_calls[0].usage.input_tokens > first.model_calls[0].usage.input_tokens
    assert second.message.content or second.message.tool_calls


async def test_prompted_round_trip_always_parses(plain_server: LocalServer) -> None:
    tools = weather_tools()
    forced = LocalAgent(LocalConfig(model_path=_model()), tool_choice="required")
    first = await forced.respond(AgentRequest(messages=_ask(), tools=tools, seed=0))
    assert forced.server is plain_server  # same configuration, same server
    await forced.aclose()
    assert [i for i in first.issues if i.error_class is ErrorClass.malformed_output] == []
    (call,) = first.message.tool_calls
    assert call.name in {t.name for t in tools}
    spec = next(t for t in tools if t.name == call.name)
    jsonschema.validate(call.arguments, spec.parameters)  # the grammar enforced the arguments
    result = Message.tool(ToolResult(call_id=call.id, name=call.name, output='{"temp_c": 17}'))
    agent = make_agent("local")
    assert isinstance(agent, LocalAgent)
    second = await agent.respond(
        AgentRequest(messages=[*_ask(), first.message, result], tools=tools, seed=0)
    )
    inner = await agent.start()
    assert inner.tool_mode == "prompted"  # auto, read from the server's /props
    await agent.aclose()
    assert [i for i in second.issues if i.error_class is ErrorClass.malformed_output] == []
    assert second.message.content or second.message.tool_calls
    assert second.model_calls[0].usage.input_tokens > first.model_calls[0].usage.input_tokens


async def test_replies_are_reproducible(plain_server: LocalServer) -> None:
    agent = LocalAgent(LocalConfig(model_path=_model()))
    request = AgentRequest(messages=_ask("Say hello in French."), tools=[], seed=3)
    first = await agent.respond(request)
    second = await agent.respond(request)
    await agent.aclose()
    assert first.message.content and first.message.content == second.message.content


async def test_generation_is_bounded(plain_server: LocalServer) -> None:
    agent = _native(plain_server, max_tokens=8)
    response = await agent.respond(
        AgentRequest(messages=_ask("Write a very long story about the sea."), tools=[])
    )
    await agent.aclose()
    assert response.model_calls[0].usage.output_tokens <= 8
    assert response.model_calls[0].finish_reason == "length"
    assert ErrorClass.truncated_output in [i.error_class for i in response.issues]


def test_released_server_stops(plain_server: LocalServer) -> None:
    server = acquire_server(LocalConfig(model_path=_model(), n_ctx=512))
    url = f"{server.base_url}/health"
    assert httpx.get(url, timeout=5).status_code == 200
    release_server(server)
    with pytest.raises(httpx.HTTPError):
        httpx.get(url, timeout=2)


def test_a_killed_process_leaves_no_server(tmp_path: Path) -> None:
    # The server lives inside the process: SIGKILL the process and the port must be dead.
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from sessionproof.agents._local import LocalConfig, acquire_server
        server = acquire_server(LocalConfig(model_path=Path({str(_model())!r}), n_ctx=512))
        print(server.base_url, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == -9
    url = proc.stdout.strip().splitlines()[-1]
    assert url.startswith("http://127.0.0.1:")
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{url}/health", timeout=2)


def test_corrupt_gguf_is_a_clear_error(tmp_path: Path) -> None:
    from sessionproof.errors import ModelSpecError

    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + os.urandom(256))
    with pytest.raises(ModelSpecError, match="cannot load"):
        LocalServer(LocalConfig(model_path=bad))
