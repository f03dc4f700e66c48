"""Model-boundary faults through the Anthropic adapter against a loopback fake Messages API:
each kind served in the anthropic SDK's own types, met by the adapter's real retries."""

from __future__ import annotations

from typing import Any

import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._anthropic import AnthropicAgent
from sessionproof.agents._internal import ModelFaultSession
from sessionproof.agents._retry import RetryPolicy
from sessionproof.errors import InfraError
from sessionproof.faults import ModelFaultPlan
from sessionproof.records import ErrorClass, Message
from sessionproof.records._internal import ProviderFault

from .conftest import KEY, weather_tools
from .fakeprovider import FakeProvider, Reply, Seen

POLICY = RetryPolicy(attempts=4, wait_initial=0.001, wait_max=0.002, wait_jitter=0.0)


def _tool_use(seen: Seen) -> Reply:
    return Reply(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                },
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 12},
        }
    )


@pytest.fixture
def messages_api() -> Any:
    server = FakeProvider(responder=_tool_use).start()
    yield server
    server.stop()


def _agent(server: FakeProvider) -> AnthropicAgent:
    return AnthropicAgent(
        name="anthropic:claude-test",
        model="claude-test",
        api_key=KEY,
        base_url=server.root,
        retry=POLICY,
        timeout_s=5.0,
    )


REQUEST = AgentRequest(messages=[Message.user("Weather in Oslo?")], tools=weather_tools())


def _burst_at_first_attempt(plan: ModelFaultPlan) -> str:
    """A scenario id whose first model call draws a burst on attempt 0 and nothing on the
    three attempts after it (found by the plan's own draws, so the test stays seeded)."""
    for i in range(10_000):
        sid = f"s{i}"
        drawn = [plan._drawn(0, sid, 0, 0, a) for a in range(4)]
        if drawn[0] is not None and drawn[1:] == [None, None, None]:
            return sid
    raise AssertionError("no such scenario in 10,000")


async def _one_call(
    agent: AnthropicAgent, spec: str, scenario_id: str = "s1"
) -> tuple[Any, list[ProviderFault], Exception | None]:
    """One model call inside a model-fault scope, as the engine opens it."""
    plan = ModelFaultPlan.parse(spec)
    session = ModelFaultSession(plan, 0, scenario_id, 0)
    replied, failure, response = False, None, None
    with session.model_call() as call:
        try:
            response = await agent.respond(REQUEST)
            replied = True
        except InfraError as exc:
            failure = exc
    return response, call.events(replied), failure


@pytest.mark.parametrize(
    ("spec", "detail", "sent"),
    [
        ("429x3:30%", "HTTP 429", 0),
        ("5xxx3:30%", "HTTP 50", 0),
        ("timeoutx3:30%", "read timeout", 0),
        ("cut_streamx3:30%", "connection closed mid-body", 3),
    ],
)
async def test_a_burst_the_retries_outlast_is_absorbed(
    messages_api: FakeProvider, spec: str, detail: str, sent: int
) -> None:
    agent = _agent(messages_api)
    scenario = _burst_at_first_attempt(ModelFaultPlan.parse(spec))
    response, faults, failure = await _one_call(agent, spec, scenario)
    await agent.aclose()
    assert failure is None and response is not None
    assert [(f.attempt, f.absorbed) for f in faults] == [(0, True), (1, True), (2, True)]
    assert all(f.detail.startswith(detail) for f in faults)
    # The reply the fourth attempt got is the agent's, intact; the attempts are on record.
    assert [c.name for c in response.message.tool_calls] == ["get_weather"]
    assert response.issues == [] and response.model_calls[0].attempts == 4
    # Faults that never reach the provider are not sent; a cut reply was.
    assert len(messages_api.posts()) == sent + 1


async def test_faults_past_the_retries_are_an_infra_error(messages_api: FakeProvider) -> None:
    agent = _agent(messages_api)
    _, faults, failure = await _one_call(agent, "5xx:100%")
    await agent.aclose()
    assert isinstance(failure, InfraError) and "HTTP 50" in str(failure)
    assert len(faults) == POLICY.attempts and not any(f.absorbed for f in faults)
    assert messages_api.posts() == []


async def test_damaged_tool_input_is_the_agents_malformed_output(
    messages_api: FakeProvider,
) -> None:
    agent = _agent(messages_api)
    response, faults, failure = await _one_call(agent, "bad_args:100%")
    await agent.aclose()
    assert failure is None
    (fault,) = faults
    assert fault.fault.value == "bad_args" and not fault.absorbed
    (call,) = response.message.tool_calls
    assert call.parse_error and call.raw_arguments != '{"city":"Oslo"}'
    assert [i.error_class for i in response.issues] == [ErrorClass.malformed_output]


async def test_no_scope_no_fault(messages_api: FakeProvider) -> None:
    """Outside a model call's scope (a simulated user's request) the plan is not met."""
    agent = _agent(messages_api)
    response = await agent.respond(REQUEST)
    await agent.aclose()
    assert response.issues == [] and response.model_calls[0].attempts == 1
