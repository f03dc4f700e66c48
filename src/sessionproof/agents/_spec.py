"""`--model` spec strings → agents."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit, urlunsplit

from .._secrets import (
    redact_secrets,
    redact_url,
    register_secret,
    register_spec_credentials,
    spec_url,
)
from ..errors import ModelSpecError
from ._protocol import Agent

if TYPE_CHECKING:
    from ._retry import RetryPolicy

ACCEPTED = (
    "local, local:PATH.gguf, oracle, openai:MODEL, openai-compat:MODEL@http://HOST:PORT/v1, "
    "anthropic:MODEL, python:pkg.module:function"
)
"""The spec forms `make_agent` accepts, as shown in error messages and `--help`."""

NO_KEY = "sessionproof-no-key"
"""The key sent to OpenAI-compatible servers when none is configured (local servers need none)."""


def _bad(spec: str, why: str = "") -> ModelSpecError:
    detail = f" ({why})" if why else ""
    return ModelSpecError(
        f"unknown model spec {display_spec(spec)!r}{detail}; accepted: {ACCEPTED}"
    )


def _env_key(*names: str) -> str | None:
    for var in names:
        value = os.environ.get(var, "").strip()
        if value:
            # Known from now on even if the variable is unset later: the agent holds it.
            register_secret(value)
            return value
    return None


def display_spec(spec: str) -> str:
    """`spec` as it may be shown, logged or stored: a URL's user name, password and secret
    query parameters are `[redacted]`, and any known secret value too."""
    split = spec_url(spec)
    if split is not None:
        spec = f"{split[0]}@{redact_url(split[1])}"
    return redact_secrets(spec)


def public_url(url: str) -> str:
    """`url` without credentials, query or fragment: safe to show and to store."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:  # an unreadable port is left out rather than shown raw
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def make_agent(
    spec: str,
    *,
    tool_mode: Literal["native", "prompted", "auto"] = "auto",
    temperature: float = 0.0,
    seed: int | None = None,
    timeout_s: float = 120,
    max_attempts: int = 6,
    max_tokens: int | None = None,
) -> Agent:
    """The agent a `--model` spec names.

    Accepted: `local`, `local:PATH.gguf`, `oracle`, `openai:MODEL` (OPENAI_API_KEY,
    OPENAI_BASE_URL honoured), `openai-compat:MODEL@URL` (key from SESSIONPROOF_API_KEY or
    OPENAI_API_KEY, or none), `anthropic:MODEL` (ANTHROPIC_API_KEY), `python:pkg.module:function`.
    The agent's `name` is the spec with no secret. Raises `ModelSpecError` for a spec that
    cannot be used, with a one-line reason.
    """
    spec = spec.strip()
    kind, sep, rest = spec.partition(":")
    # Registered before anything can fail or print: from here on the URL's credentials are
    # redacted by value wherever they turn up (the request still uses the real URL).
    register_spec_credentials(spec)
    if tool_mode not in ("native", "prompted", "auto"):
        raise ModelSpecError(f"unknown tool mode {tool_mode!r}; accepted: native, prompted, auto")
    if max_attempts < 1:
        raise ModelSpecError("max_attempts must be at least 1")
    if timeout_s <= 0:
        raise ModelSpecError("timeout_s must be positive")
    if spec == "oracle":
        from ._oracle import OracleAgent

        return OracleAgent()
    if kind == "local":
        return _local(
            spec, rest if sep else None, tool_mode, seed, timeout_s, max_attempts, max_tokens
        )
    if not sep or not rest.strip():
        raise _bad(spec)
    if kind == "python":
        from ._python_agent import PythonAgent, load_function

        return PythonAgent(load_function(rest), name=spec)
    # Imported here, not at module level: it loads the provider SDKs (about a second), which
    # the oracle, python: agents and `import sessionproof` never need.
    from ._retry import RetryPolicy

    retry = RetryPolicy(attempts=max_attempts)
    if kind == "openai":
        from ._openai import OpenAICompatAgent

        key = _env_key("OPENAI_API_KEY")
        if key is None:
            raise ModelSpecError(
                f"{spec} needs an API key in the OPENAI_API_KEY environment variable"
            )
        base_url = os.environ.get("OPENAI_BASE_URL") or None
        return OpenAICompatAgent(
            name=spec,
            model=rest,
            api_key=key,
            base_url=base_url,
            provider="openai",
            tool_mode=tool_mode,
            probe_server=False,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            max_tokens_field="max_completion_tokens",
            timeout_s=timeout_s,
            retry=retry,
        )
    if kind == "openai-compat":
        return _compat(spec, rest, tool_mode, temperature, seed, timeout_s, retry, max_tokens)
    if kind == "anthropic":
        from ._anthropic import AnthropicAgent

        if tool_mode == "prompted":
            raise ModelSpecError(
                "prompted tool mode needs an OpenAI-compatible server, not anthropic:"
            )
        key = _env_key("ANTHROPIC_API_KEY")
        if key is None:
            raise ModelSpecError(
                f"{spec} needs an API key in the ANTHROPIC_API_KEY environment variable"
            )
        return AnthropicAgent(
            name=spec,
            model=rest,
            api_key=key,
            base_url=os.environ.get("ANTHROPIC_BASE_URL") or None,
            # Not forwarded: current Claude models answer 400 to any sampling parameter.
            temperature=None,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
            retry=retry,
        )
    raise _bad(spec)


def _compat(
    spec: str,
    rest: str,
    tool_mode: Literal["native", "prompted", "auto"],
    temperature: float,
    seed: int | None,
    timeout_s: float,
    retry: RetryPolicy,
    max_tokens: int | None,
) -> Agent:
    from ._openai import OpenAICompatAgent

    split = spec_url(rest)
    if split is None:
        raise _bad(spec, "openai-compat needs MODEL@http://HOST:PORT/v1")
    model, url = split
    parts = urlsplit(url)
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if not parts.hostname or not port_ok:
        raise _bad(spec, f"cannot read the server URL {redact_secrets(public_url(url))!r}")
    key = _env_key("SESSIONPROOF_API_KEY", "OPENAI_API_KEY") or NO_KEY
    return OpenAICompatAgent(
        name=f"openai-compat:{model}@{public_url(url)}",
        model=model,
        api_key=key,
        base_url=url,
        provider="openai-compat",
        tool_mode=tool_mode,
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        timeout_s=timeout_s,
        retry=retry,
    )


def _local(
    spec: str,
    path: str | None,
    tool_mode: Literal["native", "prompted", "auto"],
    seed: int | None,
    timeout_s: float,
    max_attempts: int,
    max_tokens: int | None,
) -> Agent:
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
            raise _bad(spec, "local: needs a path to a .gguf file")
        model_path = check_gguf(Path(path).expanduser())
    config = LocalConfig(
        model_path=model_path,
        seed=seed if seed is not None else 0,
        max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
    )
    return LocalAgent(
        config, name=spec, tool_mode=tool_mode, timeout_s=timeout_s, max_attempts=max_attempts
    )
