""" "Plays the user" is a property of the agent, never read from its name."""

from __future__ import annotations

from pathlib import Path

import pytest

import sessionproof
from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent, ScriptedAgent, make_agent
from sessionproof.agents._anthropic import AnthropicAgent
from sessionproof.agents._internal import plays_users
from sessionproof.agents._local import LocalAgent, LocalConfig
from sessionproof.agents._python_agent import PythonAgent
from sessionproof.records import Message, UserSpec
from sessionproof.suites import Suite, load_suite

from .conftest import KEY


class OwnAgent:
    """A user's own Agent object: no `plays_users` attribute, a name like a model's."""

    def __init__(self, name: str = "my-company-model") -> None:
        self.name = name
        self.requests: list[AgentRequest] = []

    async def respond(self, request: AgentRequest) -> AgentResponse:
        self.requests.append(request)
        return AgentResponse(message=Message.assistant("Done."))

    async def aclose(self) -> None:
        pass


class OwnModelAgent(OwnAgent):
    """A user's own Agent object that says it is a language model."""

    plays_users = True


def test_reference_agents_do_not_play_users() -> None:
    assert not plays_users(OracleAgent())
    assert not plays_users(ScriptedAgent([]))
    assert not plays_users(ScriptedAgent([], name="gpt-4o"))
    assert not plays_users(PythonAgent(lambda r: Message.assistant("x"), name="python:m:f"))


async def test_model_agents_play_users(tmp_path: Path) -> None:
    compat = make_agent("openai-compat:m@http://127.0.0.1:9/v1")
    anthropic = AnthropicAgent(name="a", model="m", api_key=KEY)
    local = LocalAgent(LocalConfig(model_path=tmp_path / "m.gguf"))
    assert plays_users(compat) and plays_users(anthropic) and plays_users(local)
    await compat.aclose()
    await anthropic.aclose()


def test_a_users_own_object_plays_users_only_when_it_says_so() -> None:
    assert not plays_users(OwnAgent())
    assert not plays_users(OwnAgent(name="anthropic:claude"))
    assert plays_users(OwnModelAgent(name="oracle"))  # the attribute wins over any name
    odd = OwnAgent()
    odd.plays_users = "yes"  # type: ignore[attr-defined]
    assert not plays_users(odd)  # only a real True counts


@pytest.mark.parametrize(("cls", "asked"), [(OwnAgent, False), (OwnModelAgent, True)])
async def test_run_suite_asks_a_users_object_to_play_the_user_only_if_it_plays_users(
    cls: type[OwnAgent], asked: bool
) -> None:
    first = load_suite("demo").scenarios[0]
    simulated = first.model_copy(
        update={"user": UserSpec(instructions="Where is order 1042?", persona="brief")}
    )
    agent = cls()
    await sessionproof.arun_suite(Suite("own", [simulated]), agent, concurrency=1)
    # The simulated user's requests carry no tools; the agent's carry the domain's tools.
    user_requests = [r for r in agent.requests if not r.tools]
    assert bool(user_requests) is asked
    assert any(r.tools for r in agent.requests)
