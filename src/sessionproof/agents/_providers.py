"""The built-in providers, registered in the order the accepted list shows them.

Each factory imports its adapter (and so its SDK) inside itself: registering them costs
nothing, and a run loads only the SDK of the provider it uses.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from .._secrets import redact_secrets, spec_url
from ..errors import ModelSpecError
from ._protocol import Agent
from ._registry import AgentOptions, provider
from ._spec import NO_KEY, bad_spec, env_key, public_url


@provider("local", accepts=("local", "local:PATH.gguf"), argument="optional")
def local(path: str | None, options: AgentOptions) -> Agent:
    """The embedded llama.cpp server: the bundled SmolLM2 weights, or a GGUF file."""
    from ._local import (
        DEFAULT_MAX_TOKENS,
        LocalAgent,
        LocalConfig,
        check_gguf,
        default_model_path,
        require_xllamacpp,
    )

    require_xllamacpp()
    if path is None:
        model_path = check_gguf(default_model_path())
    else:
        if not path.strip():
            raise bad_spec(options.spec, "local: needs a path to a .gguf file")
        model_path = check_gguf(Path(path).expanduser())
    config = LocalConfig(
        model_path=model_path,
        seed=options.seed if options.seed is not None else 0,
        max_tokens=options.max_tokens or DEFAULT_MAX_TOKENS,
    )
    return LocalAgent(
        config,
        name=options.spec,
        tool_mode=options.tool_mode,
        timeout_s=options.timeout_s,
        max_attempts=options.max_attempts,
    )


@provider("oracle", accepts="oracle", argument="none")
def oracle(_: str | None, options: AgentOptions) -> Agent:
    """The scenario's reference agent."""
    from ._oracle import OracleAgent

    return OracleAgent()


@provider("openai", accepts="openai:MODEL")
def openai(model: str | None, options: AgentOptions) -> Agent:
    """OpenAI's API (OPENAI_API_KEY; OPENAI_BASE_URL honoured)."""
    from ._openai import OpenAICompatAgent

    key = env_key("OPENAI_API_KEY")
    if key is None:
        raise ModelSpecError(
            f"{options.spec} needs an API key in the OPENAI_API_KEY environment variable"
        )
    return OpenAICompatAgent(
        name=options.spec,
        model=model or "",
        api_key=key,
        base_url=os.environ.get("OPENAI_BASE_URL") or None,
        provider="openai",
        tool_mode=options.tool_mode,
        probe_server=False,
        temperature=options.temperature,
        seed=options.seed,
        max_tokens=options.max_tokens,
        max_tokens_field="max_completion_tokens",
        timeout_s=options.timeout_s,
        retry=options.retry_policy(),
        limiter=options.limiter,
    )


@provider("openai-compat", accepts="openai-compat:MODEL@http://HOST:PORT/v1")
def openai_compat(rest: str | None, options: AgentOptions) -> Agent:
    """Any chat-completions server (llama.cpp, vLLM...); key from SESSIONPROOF_API_KEY or
    OPENAI_API_KEY, or none."""
    from ._openai import OpenAICompatAgent

    split = spec_url(rest or "")
    if split is None:
        raise bad_spec(options.spec, "openai-compat needs MODEL@http://HOST:PORT/v1")
    model, url = split
    parts = urlsplit(url)
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if not parts.hostname or not port_ok:
        why = f"cannot read the server URL {redact_secrets(public_url(url))!r}"
        raise bad_spec(options.spec, why)
    key = env_key("SESSIONPROOF_API_KEY", "OPENAI_API_KEY") or NO_KEY
    return OpenAICompatAgent(
        name=f"openai-compat:{model}@{public_url(url)}",
        model=model,
        api_key=key,
        base_url=url,
        provider="openai-compat",
        tool_mode=options.tool_mode,
        temperature=options.temperature,
        seed=options.seed,
        max_tokens=options.max_tokens,
        timeout_s=options.timeout_s,
        retry=options.retry_policy(),
        limiter=options.limiter,
    )


@provider("anthropic", accepts="anthropic:MODEL")
def anthropic(model: str | None, options: AgentOptions) -> Agent:
    """Anthropic's Messages API (ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL honoured)."""
    from ._anthropic import AnthropicAgent

    if options.tool_mode == "prompted":
        raise ModelSpecError("prompted tool mode needs an OpenAI-compatible server, not anthropic:")
    key = env_key("ANTHROPIC_API_KEY")
    if key is None:
        raise ModelSpecError(
            f"{options.spec} needs an API key in the ANTHROPIC_API_KEY environment variable"
        )
    return AnthropicAgent(
        name=options.spec,
        model=model or "",
        api_key=key,
        base_url=os.environ.get("ANTHROPIC_BASE_URL") or None,
        # Not forwarded: current Claude models answer 400 to any sampling parameter.
        temperature=None,
        max_tokens=options.max_tokens,
        timeout_s=options.timeout_s,
        retry=options.retry_policy(),
        limiter=options.limiter,
    )


@provider("python", accepts="python:pkg.module:function")
def python(target: str | None, options: AgentOptions) -> Agent:
    """A user's own agent function."""
    from ._python_agent import PythonAgent, load_function

    return PythonAgent(load_function(target or ""), name=options.spec)


@provider("http-agent", accepts="http-agent:http://HOST:PORT/PATH")
def http_agent(url: str | None, options: AgentOptions) -> Agent:
    """An agent behind a URL: each user turn is POSTed to it as JSON (with the URL of the
    session's MCP tool server); the JSON reply's `message` is the agent's."""
    import httpx

    from ._external import ExternalAgent
    from ._turns import HttpTurns

    target = (url or "").strip()
    parts = urlsplit(target)
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        why = f"cannot read the agent URL {redact_secrets(public_url(target))!r}"
        raise bad_spec(options.spec, why)
    shown = public_url(target)
    # No read limit here: the engine's --agent-timeout bounds every decision.
    client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0))
    return ExternalAgent(
        f"http-agent:{shown}",
        lambda session_id, mcp_url: HttpTurns(client, target, shown),
        on_close=client.aclose,
    )


@provider("mcp-agent", accepts="mcp-agent:COMMAND")
def mcp_agent(command: str | None, options: AgentOptions) -> Agent:
    """An agent process per session: the session's MCP URL in its environment
    (SESSIONPROOF_MCP_URL), user turns as JSON lines on stdin, replies on stdout."""
    from ._external import ExternalAgent
    from ._turns import ProcessTurns, command_line

    argv = command_line(command or "")
    return ExternalAgent(
        f"mcp-agent:{redact_secrets(command or '')}",
        lambda session_id, mcp_url: ProcessTurns(argv, session_id, mcp_url),
    )
