"""Agents: one protocol, many adapters (providers, the embedded model, reference agents).

`make_agent(spec)` reads `kind:argument` and asks the provider registered for `kind`; the
built-in providers are registered on import (without loading any SDK), and `@provider`
registers your own. Provider adapters declare how their SDK's failures read
(`ProviderFailure`) and the transport retry policy asks them.
"""

from typing import Any

from . import _providers  # noqa: F401  (registers the built-in providers)
from ._oracle import OracleAgent
from ._protocol import Agent, AgentFailure, AgentRequest, AgentResponse, end_session
from ._registry import AgentOptions, Provider, accepted_specs, provider, providers
from ._retry import ProviderFailure, RetryPolicy
from ._scripted import ScriptedAgent
from ._spec import make_agent


def __getattr__(name: str) -> Any:
    # `ACCEPTED` was a constant; it is read from the registry now, so it is computed on each
    # access and includes providers registered since.
    if name == "ACCEPTED":
        return accepted_specs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Agent",
    "AgentFailure",
    "AgentOptions",
    "AgentRequest",
    "AgentResponse",
    "OracleAgent",
    "Provider",
    "ProviderFailure",
    "RetryPolicy",
    "ScriptedAgent",
    "end_session",
    "make_agent",
    "provider",
    "providers",
]
