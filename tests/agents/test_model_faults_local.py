"""Model-boundary faults against the embedded llama.cpp server (SmolLM2-135M, native tool
calls through the test ChatML template): a burst absorbed by the adapter's retries, and
damaged arguments read as the model's malformed output."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._internal import ModelFaultSession
from sessionproof.agents._local import LocalConfig, LocalServer, acquire_server, release_server
from sessionproof.agents._openai import OpenAICompatAgent
from sessionproof.agents._retry import RetryPolicy
from sessionproof.faults import ModelFaultPlan
from sessionproof.records import ErrorClass, Message
from sessionproof.records._internal import ProviderFault

from .conftest import weather_tools
from .test_local_llama import TEMPLATE, _model
from .test_model_faults_anthropic import _burst_at_first_attempt

pytestmark = [pytest.mark.llama, pytest.mark.slow]  # a real llama.cpp server
pytest.importorskip("xllamacpp")

POLICY = RetryPolicy(attempts=4, wait_initial=0.001, wait_max=0.002, wait_jitter=0.0)
REQUEST = AgentRequest(
    messages=[Message.user("Call get_weather for Paris.")], tools=weather_tools()[:1], seed=0
)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    found = acquire_server(LocalConfig(model_path=_model(), chat_template=TEMPLATE))
    yield found
    release_server(found)


def _agent(server: LocalServer) -> OpenAICompatAgent:
    return OpenAICompatAgent(
        name="local-native",
        model="smollm2",
        api_key="none",
        base_url=f"{server.base_url}/v1",
        provider="llama.cpp",
        tool_mode="native",
        tool_choice="required",
        seed=0,
        max_tokens=128,
        extra_body={"cache_prompt": False},
        retry=POLICY,
    )


async def _one_call(
    server: LocalServer, spec: str, scenario: str
) -> tuple[Any, list[ProviderFault]]:
    agent = _agent(server)
    session = ModelFaultSession(ModelFaultPlan.parse(spec), 0, scenario, 0)
    with session.model_call() as call:
        response = await agent.respond(REQUEST)
    await agent.aclose()
    return response, call.events(True)


async def test_a_5xx_burst_is_absorbed_by_the_retries(server: LocalServer) -> None:
    spec = "5xxx2:30%"
    response, faults = await _one_call(
        server, spec, _burst_at_first_attempt(ModelFaultPlan.parse(spec))
    )
    assert [(f.fault.value, f.attempt, f.absorbed) for f in faults] == [
        ("5xx", 0, True),
        ("5xx", 1, True),
    ]
    assert response.model_calls[0].attempts == 3 and response.issues == []
    assert [c.name for c in response.message.tool_calls] == ["get_weather"]


async def test_damaged_arguments_are_the_models_malformed_output(server: LocalServer) -> None:
    response, faults = await _one_call(server, "bad_args:100%", "s0")
    (fault,) = faults
    assert fault.fault.value == "bad_args" and fault.detail.endswith("arguments of get_weather")
    calls = response.message.tool_calls
    assert calls and calls[0].parse_error
    assert ErrorClass.malformed_output in [i.error_class for i in response.issues]
