"""`--model` spec strings → agents, through the provider registry."""

from __future__ import annotations

import os
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
from ._registry import AgentOptions, accepted_specs, get_provider

if TYPE_CHECKING:
    from ._ratelimit import RateLimiter

NO_KEY = "sessionproof-no-key"
"""The key sent to OpenAI-compatible servers when none is configured (local servers need none)."""


def bad_spec(spec: str, why: str = "") -> ModelSpecError:
    """The error for a spec no provider can use: the spec (with no secret), why, and the
    accepted forms from the registry."""
    detail = f" ({why})" if why else ""
    return ModelSpecError(
        f"unknown model spec {display_spec(spec)!r}{detail}; accepted: {accepted_specs()}"
    )


def env_key(*names: str) -> str | None:
    """The first non-blank value among the environment variables `names`, registered as a
    secret; None when all are unset or blank."""
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
    limiter: RateLimiter | None = None,
) -> Agent:
    """The agent a `--model` spec names: `kind` or `kind:argument`, the kind naming a
    registered provider (`providers()`; register your own with `@provider`).

    Built in: `local`, `local:PATH.gguf`, `oracle`, `openai:MODEL` (OPENAI_API_KEY,
    OPENAI_BASE_URL honoured), `openai-compat:MODEL@URL` (key from SESSIONPROOF_API_KEY or
    OPENAI_API_KEY, or none), `anthropic:MODEL` (ANTHROPIC_API_KEY), `python:pkg.module:function`.
    The agent's `name` is the spec with no secret. Provider agents share `limiter`'s gate of
    their provider/model with the run's other agents (rate limits, adaptive concurrency).
    Raises `ModelSpecError` for a spec that cannot be used, with a one-line reason.
    """
    spec = spec.strip()
    # Registered before anything can fail or print: from here on the URL's credentials are
    # redacted by value wherever they turn up (the request still uses the real URL).
    register_spec_credentials(spec)
    if tool_mode not in ("native", "prompted", "auto"):
        raise ModelSpecError(f"unknown tool mode {tool_mode!r}; accepted: native, prompted, auto")
    if max_attempts < 1:
        raise ModelSpecError("max_attempts must be at least 1")
    if timeout_s <= 0:
        raise ModelSpecError("timeout_s must be positive")
    kind, sep, rest = spec.partition(":")
    entry = get_provider(kind)
    if entry is None:
        raise bad_spec(spec)
    argument = rest if sep else None
    if entry.argument == "none" and argument is not None:
        raise bad_spec(spec, f"{kind} takes nothing after its name")
    if entry.argument == "required" and (argument is None or not argument.strip()):
        raise bad_spec(spec)
    options = AgentOptions(
        spec=spec,
        tool_mode=tool_mode,
        temperature=temperature,
        seed=seed,
        timeout_s=timeout_s,
        max_attempts=max_attempts,
        max_tokens=max_tokens,
        limiter=limiter,
    )
    agent = entry.factory(argument, options)
    if not isinstance(agent, Agent):
        raise ModelSpecError(
            f"provider {kind!r} returned {type(agent).__name__}, which is not an agent "
            "(it needs a name, respond() and aclose())"
        )
    return agent
