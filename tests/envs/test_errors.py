"""Broken input to `SessionEnv` gets one clear error and loses nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable

import pytest
from gymnasium.error import ResetNeeded

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.agents._internal import STOP_TOKEN
from sessionproof.envs import SessionEnv
from sessionproof.envs._actions import InvalidAction
from sessionproof.errors import ConfigError, SessionproofError, UnknownSuiteError
from sessionproof.records import Message
from sessionproof.suites import load_suite
from tests.envs.gold_agent import respond


def test_an_unknown_suite_is_refused_by_name() -> None:
    with pytest.raises(UnknownSuiteError, match="no-such-suite"):
        SessionEnv("no-such-suite")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"faults": "lots"}, "lots"),
        ({"arm": "guard", "faults": "3%"}, "either arm= or"),
        ({"arm": "model_faults=5xx:5%"}, "model faults need a provider model"),
        ({"user_model": "nonesuch:model"}, "nonesuch"),
    ],
)
def test_a_bad_condition_or_user_model_is_refused(options: dict[str, object], said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        SessionEnv("demo", **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("hello", "not JSON"),
        ("[1, 2]", "a JSON list, not an object"),
        ("{}", "neither 'content' nor any tool call"),
        ('{"content": 3}', "'content' must be a string"),
        ('{"text": "hi"}', "unknown key 'text'"),
        ('{"tool_calls": {"name": "get_order"}}', "'tool_calls' must be a list"),
        ('{"tool_calls": [{"arguments": {}}]}', r"tool_calls\[0\].name"),
        ('{"tool_calls": [{"name": "a", "arguments": 5}]}', r"tool_calls\[0\].arguments"),
        ('{"tool_calls": [{"name": "a", "id": "x"}, {"name": "b", "id": "x"}]}', "same id"),
        (42, "a int"),
    ],
)
def test_an_action_of_the_wrong_shape_is_refused_and_the_session_waits(
    make_env: Callable[..., SessionEnv], action: object, said: str
) -> None:
    env = make_env("demo", seed=1)
    first, info = env.reset(seed=2)
    with pytest.raises(InvalidAction, match=said) as caught:
        env.step(action)
    assert isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value)
    # Nothing was lost: the same decision is still awaited, and a good one is taken.
    obs, _, terminated, _, _ = env.step(respond(info["request"]))
    assert not terminated
    assert (
        json.loads(obs)["messages"][: len(json.loads(first)["messages"])]
        == json.loads(first)["messages"]
    )


def test_broken_argument_text_is_the_agents_malformed_output_not_an_error(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1)
    env.reset(seed=2)
    obs, *_ = env.step('{"tool_calls": [{"name": "get_order", "arguments": "{order"}]}')
    result = json.loads(obs)["messages"][-1]
    assert result["role"] == "tool"
    assert result["content"].startswith("Error")


def test_step_before_reset_or_after_the_end_needs_a_reset(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1)
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step('{"content": "hi"}')
    _, info = env.reset(seed=2)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(respond(info["request"]))
        done = terminated or truncated
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step('{"content": "hi"}')
    env.reset()  # and a reset starts the next one


def test_bad_reset_options_are_refused(make_env: Callable[..., SessionEnv]) -> None:
    env = make_env("demo")
    _, info = env.reset(seed=1)
    with pytest.raises(ConfigError, match="no scenario 'nope'"):
        env.reset(options={"scenario": "nope"})
    with pytest.raises(ConfigError, match="'trial' must be an integer"):
        env.reset(options={"trial": -1})
    with pytest.raises(ConfigError, match="not 'scenarios'"):
        env.reset(options={"scenarios": "x"})
    # The session that was running still is, and takes its decision.
    _, _, terminated, _, later = env.step(respond(info["request"]))
    assert later["scenario_id"] == info["scenario_id"]
    assert later["request"].step > info["request"].step or terminated


def test_a_reset_mid_session_stops_it_and_starts_another(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1)
    env.reset(seed=2)
    env.step('{"content": "one moment"}')
    _, info = env.reset(seed=2)
    assert info["request"].step == 0
    assert env.session is None


@pytest.mark.slow
def test_without_gymnasium_the_error_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "import sessionproof.envs\n"
        "try:\n"
        "    sessionproof.envs.SessionEnv\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.startswith("ConfigError ")
    assert "pip install 'sessionproof[gym]'" in out


def test_a_session_that_raises_is_raised_once_and_then_needs_a_reset(
    make_env: Callable[..., SessionEnv],
) -> None:
    suite = load_suite("demo").limited(1)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the judge broke")

    suite.evaluate = broken  # type: ignore[method-assign]
    env = make_env(suite, seed=1)
    _, info = env.reset(seed=0)
    with pytest.raises(RuntimeError, match="the judge broke"):
        while True:
            _, _, _, _, info = env.step(respond(info["request"]))
    # On a thread of its own: a step that waited for the dead session would never return.
    raised: list[BaseException] = []

    def step() -> None:
        try:
            env.step('{"content": "hi"}')
        except BaseException as exc:
            raised.append(exc)

    waiter = threading.Thread(target=step, daemon=True)
    waiter.start()
    waiter.join(10)
    assert [type(e) for e in raised] == [ResetNeeded]
    env.reset(seed=0)


class _LeavesAtOnce:
    """A user model that ends the conversation before saying anything."""

    name = "leaves-at-once"
    plays_users = True

    async def respond(self, request: AgentRequest) -> AgentResponse:
        return AgentResponse(message=Message.assistant(STOP_TOKEN))

    async def aclose(self) -> None:
        """Nothing to release."""


def test_a_session_over_before_the_first_decision_is_no_episode(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("tau2-retail", limit=1, user_model=_LeavesAtOnce())
    with pytest.raises(SessionproofError, match="ended before the agent's first decision"):
        env.reset(seed=0)
    assert env.session is not None
    assert str(env.session.termination) == "user_stop"
    with pytest.raises(ResetNeeded):
        env.step('{"content": "hi"}')
