"""The provider registry: built-in providers, a user's own provider, the accepted list, and
provider SDKs loaded only by the provider that needs them."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof.agents import (
    ACCEPTED,
    AgentOptions,
    AgentRequest,
    AgentResponse,
    make_agent,
    provider,
    providers,
)
from sessionproof.agents._internal import accepted_specs, get_provider, unregister_provider
from sessionproof.errors import ConfigError, ModelSpecError
from sessionproof.records import Message

BUILTIN_FORMS = (
    "local, local:PATH.gguf, oracle, openai:MODEL, openai-compat:MODEL@http://HOST:PORT/v1, "
    "anthropic:MODEL, python:pkg.module:function, http-agent:http://HOST:PORT/PATH, "
    "mcp-agent:COMMAND"
)


class EchoAgent:
    """A user's own agent type, built by a user's own provider."""

    plays_users = True

    def __init__(self, name: str, model: str, options: AgentOptions) -> None:
        self.name = name
        self.model = model
        self.options = options

    async def respond(self, request: AgentRequest) -> AgentResponse:
        return AgentResponse(message=Message.assistant(f"echo from {self.model}"))

    async def aclose(self) -> None:
        pass


@pytest.fixture
def echo_provider() -> Iterator[str]:
    @provider("sp-echo", accepts="sp-echo:MODEL")
    def _echo(argument: str | None, options: AgentOptions) -> EchoAgent:
        assert argument is not None
        return EchoAgent(options.spec, argument, options)

    yield "sp-echo"
    unregister_provider("sp-echo")


def test_builtin_providers_in_order() -> None:
    names = [p.name for p in providers()]
    assert names[:6] == ["local", "oracle", "openai", "openai-compat", "anthropic", "python"]
    # The accepted list is read from the registry and keeps the forms users know.
    assert accepted_specs() == BUILTIN_FORMS
    assert ACCEPTED == BUILTIN_FORMS


async def test_a_registered_provider_builds_agents(echo_provider: str) -> None:
    agent = make_agent("sp-echo:tiny-model", seed=3, max_tokens=50, timeout_s=9)
    assert isinstance(agent, EchoAgent)
    assert agent.name == "sp-echo:tiny-model" and agent.model == "tiny-model"
    assert agent.options.seed == 3 and agent.options.max_tokens == 50
    assert agent.options.timeout_s == 9 and agent.options.retry_policy().attempts == 6
    reply = await agent.respond(AgentRequest(messages=[Message.user("hi")], tools=[]))
    assert reply.message.content == "echo from tiny-model"
    # It is listed wherever the accepted forms are shown.
    assert "sp-echo:MODEL" in accepted_specs()
    with pytest.raises(ModelSpecError, match="sp-echo:MODEL"):
        make_agent("nonsense:model")
    found = get_provider("sp-echo")
    assert found is not None and found.accepts == ("sp-echo:MODEL",)


def test_unregistered_provider_is_gone(echo_provider: str) -> None:
    unregister_provider(echo_provider)
    assert get_provider(echo_provider) is None
    assert "sp-echo" not in accepted_specs()
    with pytest.raises(ModelSpecError, match="unknown model spec"):
        make_agent("sp-echo:m")
    # Re-registered so the fixture's own clean-up finds it.
    provider("sp-echo", accepts="sp-echo:MODEL")(lambda a, o: EchoAgent(o.spec, a or "", o))


def test_argument_rules_are_checked_before_the_factory_runs() -> None:
    calls: list[str | None] = []

    @provider("sp-bare", accepts="sp-bare", argument="none")
    def _bare(argument: str | None, options: AgentOptions) -> EchoAgent:
        calls.append(argument)
        return EchoAgent("sp-bare", "m", options)

    @provider("sp-opt", accepts=("sp-opt", "sp-opt:X"), argument="optional")
    def _opt(argument: str | None, options: AgentOptions) -> EchoAgent:
        calls.append(argument)
        return EchoAgent(options.spec, "m", options)

    try:
        with pytest.raises(ModelSpecError, match="sp-bare"):
            make_agent("sp-bare:extra")
        with pytest.raises(ModelSpecError, match="unknown model spec 'sp-echo:'"):
            make_agent("sp-echo:")  # not registered in this test
        make_agent("sp-bare")
        make_agent("sp-opt")
        make_agent("sp-opt:x")
        assert calls == [None, None, "x"]
        assert "sp-opt, sp-opt:X" in accepted_specs()
    finally:
        unregister_provider("sp-bare")
        unregister_provider("sp-opt")


def test_registration_mistakes_are_named_errors(echo_provider: str) -> None:
    def factory(argument: str | None, options: AgentOptions) -> EchoAgent:
        return EchoAgent("x", "m", options)

    with pytest.raises(ConfigError, match="already registered"):
        provider("sp-echo", accepts="sp-echo:M")(factory)
    with pytest.raises(ConfigError, match="already registered"):
        provider("openai", accepts="openai:M")(factory)
    for bad in ("", "has:colon", "has space"):
        with pytest.raises(ConfigError, match="provider name"):
            provider(bad, accepts="x")(factory)
    with pytest.raises(ConfigError, match="accepts"):
        provider("sp-none", accepts=())(factory)
    # replace=True swaps a provider on purpose.
    provider("sp-echo", accepts="sp-echo:OTHER", replace=True)(factory)
    assert "sp-echo:OTHER" in accepted_specs() and "sp-echo:MODEL" not in accepted_specs()


def test_a_factory_returning_no_agent_is_a_spec_error() -> None:
    @provider("sp-broken", accepts="sp-broken:M")
    def _broken(argument: str | None, options: AgentOptions) -> object:
        return 42

    try:
        with pytest.raises(ModelSpecError, match=r"sp-broken.*not an agent"):
            make_agent("sp-broken:m")
    finally:
        unregister_provider("sp-broken")


def test_run_help_lists_the_registry() -> None:
    from sessionproof.cli._run import RUN_HELP

    for entry in providers():
        for form in entry.accepts:
            if entry.name.startswith("sp-"):
                continue
            assert form in RUN_HELP


def _modules_after(code: str) -> set[str]:
    """The provider SDKs (and the retry library) a fresh interpreter has loaded after running
    `code`."""
    import sessionproof

    probe = (
        "import sys\n" + code + "\n"
        "print(' '.join(m for m in ('openai', 'anthropic', 'tenacity') if m in sys.modules))"
    )
    src = str(Path(sessionproof.__file__).parents[1])
    env = {"OPENAI_API_KEY": "sk-" + "t" * 30, "PATH": "/usr/bin:/bin", "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    )
    return set(out.stdout.split())


@pytest.mark.slow
def test_provider_sdks_load_only_with_their_provider() -> None:
    make = "from sessionproof.agents import make_agent\n"
    assert _modules_after("import sessionproof.agents") == set()
    assert _modules_after(make + "make_agent('oracle')") == set()
    openai_only = _modules_after(make + "make_agent('openai:gpt-test')")
    assert "openai" in openai_only and "anthropic" not in openai_only
