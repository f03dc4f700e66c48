"""The embedded model's per-step budget: output cap, message cap and request timeout.

The cap must be what a reply needs and no more (generation is most of a step's time): every
gold call of the demo world, and a message at the reply grammar's length cap, must fit in
it as SmolLM2 tokens, so a cut reply is the model's doing, never the budget's.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.agents import _prompted as prompted
from sessionproof.agents._local import (
    DEFAULT_MAX_TOKENS,
    MIN_REQUEST_TIMEOUT_S,
    LocalAgent,
    LocalConfig,
    acquire_server,
    brief_tool,
    default_model_path,
    release_server,
)
from sessionproof.records import Message, ToolSpec
from sessionproof.suites import load_suite

SENTENCE = "Your order 1043 shipped with UPS, tracking 1Z84V6120354417782. "


def test_a_local_request_outwaits_a_starved_cpu(tmp_path: Path) -> None:
    # A 120 s timeout (the adapters' default) threw away a 153 s cold prompt on a loaded
    # machine and retried it; the one-slot server's slow answer is not a lost request.
    model = tmp_path / "m.gguf"
    short = LocalAgent(LocalConfig(model_path=model), timeout_s=120.0)
    longer = LocalAgent(LocalConfig(model_path=model), timeout_s=2 * MIN_REQUEST_TIMEOUT_S)
    assert short._timeout_s == MIN_REQUEST_TIMEOUT_S
    assert longer._timeout_s == 2 * MIN_REQUEST_TIMEOUT_S


def _demo_replies() -> list[str]:
    """Every demo gold call as the compact reply JSON the prompted format asks for."""
    replies = []
    for scenario in load_suite("demo").scenarios:
        for action in scenario.criteria.gold_actions:
            reply = {"type": "tool_call", "name": action.tool, "arguments": action.args}
            replies.append(json.dumps(reply, ensure_ascii=False))
    return replies


@pytest.mark.slow  # a real llama.cpp server
@pytest.mark.llama
def test_the_default_cap_fits_every_demo_call_and_a_full_message() -> None:
    pytest.importorskip("xllamacpp")
    try:
        path = default_model_path()
    except Exception as exc:  # the weights are an optional install
        pytest.skip(f"SmolLM2 weights not installed: {exc}")
    chars = prompted.message_chars_for(DEFAULT_MAX_TOKENS)
    content = (SENTENCE * (chars // len(SENTENCE) + 1))[:chars]
    message = json.dumps({"type": "message", "content": content})
    server = acquire_server(LocalConfig(model_path=path, n_ctx=512, seed=21))
    try:
        with httpx.Client(timeout=60.0) as client:

            def tokens(text: str) -> int:
                resp = client.post(f"{server.base_url}/tokenize", json={"content": text})
                return len(resp.json()["tokens"])

            calls = [tokens(r) for r in _demo_replies()]
            message_tokens = tokens(message)
    finally:
        release_server(server)
    assert len(calls) > 30
    assert max(calls) <= DEFAULT_MAX_TOKENS
    assert message_tokens <= DEFAULT_MAX_TOKENS


class _Inner:
    """Stands in for the adapter behind a started local agent; keeps what it was asked."""

    def __init__(self) -> None:
        self.seen: list[AgentRequest] = []

    async def respond(self, request: AgentRequest) -> AgentResponse:
        self.seen.append(request)
        return AgentResponse(message=Message.assistant("ok"))


def _demo_tools() -> list[ToolSpec]:
    from sessionproof.domains.demo._internal import spec

    return spec().tools()


def test_brief_tools_drop_parameter_descriptions_only() -> None:
    for full in _demo_tools():
        brief = brief_tool(full)
        assert (brief.name, brief.description, brief.write) == (
            full.name,
            full.description,
            full.write,
        )
        props = full.parameters["properties"]
        assert list(brief.parameters["properties"]) == list(props)
        assert brief.parameters.get("required") == full.parameters.get("required")
        for name, schema in brief.parameters["properties"].items():
            assert "description" not in schema
            assert schema == {k: v for k, v in props[name].items() if k != "description"}


def test_brief_tools_shorten_the_prompted_system_text() -> None:
    tools = _demo_tools()
    full = prompted.system_text(None, tools)
    brief = prompted.system_text(None, [brief_tool(t) for t in tools])
    assert len(brief) < 0.7 * len(full)
    for t in tools:  # every tool, its parameters and its enum values are still shown
        assert t.name in brief and all(p in brief for p in t.parameters["properties"])
    assert '"ordered_by_mistake"' in brief


async def test_local_agent_sends_brief_tools_only_when_asked(tmp_path: Path) -> None:
    assert LocalConfig(model_path=tmp_path / "m.gguf").brief_tools is False  # drift reads them
    tools = _demo_tools()
    request = AgentRequest(messages=[Message.user("hi")], tools=tools)
    for brief_on in (True, False):
        agent = LocalAgent(LocalConfig(model_path=tmp_path / "m.gguf", brief_tools=brief_on))
        inner = _Inner()
        agent._inner = inner  # type: ignore[assignment]  # started: no server needed
        await agent.respond(request)
        await agent.respond(request)
        sent = [r.tools for r in inner.seen]
        if brief_on:
            assert sent[0] == [brief_tool(t) for t in tools]
            assert sent[0] is sent[1]  # built once for the same specs
        else:
            assert sent[0] == tools
