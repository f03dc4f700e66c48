"""Agents: one protocol, many adapters (providers, the embedded model, reference agents).

`make_agent(spec)` reads `kind:argument` and asks the provider registered for `kind`; the
built-in providers are registered on import (without loading any SDK), and `@provider`
registers your own. Provider adapters declare how their SDK's failures read
(`ProviderFailure`) and the transport retry policy asks them.
"""

from typing import Any

from . import _providers  # noqa: F401  (registers the built-in providers)
from ._oracle import OracleAgent
from ._protocol import (
    STOP_TOKEN,
    Agent,
    AgentFailure,
    AgentRequest,
    AgentResponse,
    OutputIssue,
    end_session,
    plays_users,
)
from ._ranked import request_rank
from ._ratelimit import (
    ConcurrencyStats,
    ProviderGate,
    RateLimiter,
    RateLimits,
    queue_time_excluded,
)
from ._registry import (
    AgentOptions,
    Provider,
    accepted_specs,
    get_provider,
    provider,
    providers,
    unregister_provider,
)
from ._retry import (
    FailureClassifier,
    ModelOutputRejected,
    ProviderFailure,
    RetryPolicy,
    call_with_retries,
)
from ._scripted import ScriptedAgent
from ._spec import display_spec, make_agent


def __getattr__(name: str) -> Any:
    # `ACCEPTED` was a constant; it is read from the registry now, so it is computed on each
    # access and includes providers registered since.
    if name == "ACCEPTED":
        return accepted_specs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ACCEPTED",
    "STOP_TOKEN",
    "Agent",
    "AgentFailure",
    "AgentOptions",
    "AgentRequest",
    "AgentResponse",
    "ConcurrencyStats",
    "FailureClassifier",
    "ModelOutputRejected",
    "OracleAgent",
    "OutputIssue",
    "Provider",
    "ProviderFailure",
    "ProviderGate",
    "RateLimiter",
    "RateLimits",
    "RetryPolicy",
    "ScriptedAgent",
    "accepted_specs",
    "call_with_retries",
    "display_spec",
    "end_session",
    "get_provider",
    "make_agent",
    "plays_users",
    "provider",
    "providers",
    "queue_time_excluded",
    "request_rank",
    "unregister_provider",
]
