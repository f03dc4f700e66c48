"""The provider registry: one decorator-registered factory per `--model` spec kind.

A spec reads `kind` or `kind:argument`; the kind names a provider. Each provider's factory
imports its SDK inside itself, so registering providers (and `import sessionproof.agents`)
loads none: an OpenAI run never imports the Anthropic SDK, a reference agent neither.
Users register their own providers the same way the built-in ones are registered:

    @provider("myco", accepts="myco:MODEL")
    def myco(argument: str | None, options: AgentOptions) -> Agent: ...

A package may also declare the kind as a `sessionproof.providers` entry point naming that
decorated factory (or a `Provider`): `--model myco:X` then works with nothing imported by the
user first. Listing the kinds reads only the entry points' metadata; a plug-in's module is
imported when a spec of its kind is first made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .._plugins import Registry
from ..errors import ConfigError

if TYPE_CHECKING:
    from ._ratelimit import RateLimiter
    from ._retry import RetryPolicy

ToolMode = Literal["native", "prompted", "auto"]
"""How tools reach the model: the API's `tools` field, the system prompt, or chosen per server."""

Argument = Literal["required", "optional", "none"]
"""Whether a provider's spec takes the part after `kind:` (a model name, a path...)."""


@dataclass(frozen=True)
class AgentOptions:
    """What `make_agent` passes to every provider factory, besides the spec's argument."""

    spec: str
    """The whole spec as given (stripped). It may carry credentials (a URL's password): name
    agents with `display_spec(spec)` or a rebuilt public form, never with this raw text."""
    tool_mode: ToolMode = "auto"
    temperature: float = 0.0
    seed: int | None = None
    timeout_s: float = 120.0
    max_attempts: int = 6
    """Transport attempts per request, the first included."""
    max_tokens: int | None = None
    limiter: RateLimiter | None = None
    """The run's rate limiter: provider agents send every request through its gate for their
    provider/model, shared with the other agents of the run (None: no shared limits)."""

    def retry_policy(self) -> RetryPolicy:
        """The transport retry policy these options ask for."""
        from ._retry import RetryPolicy

        return RetryPolicy(attempts=self.max_attempts)


Factory = Callable[[str | None, AgentOptions], Any]
"""Builds an agent from the spec's argument (None for a bare `kind`) and the options."""

F = TypeVar("F", bound=Factory)


@dataclass(frozen=True)
class Provider:
    """One registered provider."""

    name: str
    """The spec kind it answers to (`openai` in `openai:MODEL`)."""
    accepts: tuple[str, ...]
    """The spec forms it takes, as shown in error messages and `--help`."""
    argument: Argument
    factory: Factory


_LOCK = threading.Lock()
# Insertion-ordered: the accepted list shows providers in the order they were registered.
_PROVIDERS: dict[str, Provider] = {}


def _check_name(name: str) -> None:
    if not name or ":" in name or any(ch.isspace() for ch in name):
        raise ConfigError(
            f"provider name {name!r} must be non-empty, without ':' or spaces "
            "(it is the part of a spec before ':')"
        )


def provider(
    name: str,
    *,
    accepts: str | tuple[str, ...],
    argument: Argument = "required",
    replace: bool = False,
) -> Callable[[F], F]:
    """Register the decorated function as the factory for specs of kind `name`.

    `accepts` lists the spec forms shown to users (`"openai:MODEL"`); `argument` says whether
    the spec must (`required`), may (`optional`) or must not (`none`) have a part after
    `name:` — checked before the factory runs. The factory returns an `Agent` and raises
    `ModelSpecError` for an argument it cannot use. Registering a taken name raises
    `ConfigError` unless `replace=True`.
    """
    _check_name(name)
    forms = (accepts,) if isinstance(accepts, str) else tuple(accepts)
    if not forms or not all(isinstance(f, str) and f.strip() for f in forms):
        raise ConfigError(f"provider {name!r}: accepts must name at least one spec form")

    def register(factory: F) -> F:
        with _LOCK:
            if name in _PROVIDERS and not replace:
                raise ConfigError(
                    f"a provider named {name!r} is already registered; pass replace=True "
                    "to replace it"
                )
            _PROVIDERS[name] = Provider(name, forms, argument, factory)
        return factory

    return register


def unregister_provider(name: str) -> None:
    """Remove the provider named `name` (nothing happens if there is none)."""
    with _LOCK:
        _PROVIDERS.pop(name, None)


def _installed(name: str, obj: Any) -> Provider:
    """The provider an entry point names: a `Provider`, or a factory `@provider` registered."""
    if isinstance(obj, Provider):
        if obj.name != name:
            raise ConfigError(f"providers entry point {name!r} names provider {obj.name!r}")
        return obj
    with _LOCK:
        found = _PROVIDERS.get(name)
    if found is None or found.factory is not obj:
        raise ConfigError(
            f"providers entry point {name!r} names {type(obj).__name__} "
            f"{getattr(obj, '__name__', '')!r}, not a factory registered with "
            f'@provider("{name}", ...)'
        )
    return found


_INSTALLED: Registry[Provider] = Registry("providers", check=_installed)
"""The `sessionproof.providers` entry points: kind → the `@provider` factory of a package."""


def get_provider(name: str) -> Provider | None:
    """The provider registered for spec kind `name`, if any: registered in code, else
    declared by an installed package's entry point (imported now)."""
    with _LOCK:
        found = _PROVIDERS.get(name)
    if found is not None or name not in _INSTALLED:
        return found
    return _INSTALLED.get(name)


def providers() -> tuple[Provider, ...]:
    """Every registered provider, in registration order (the built-in ones first)."""
    with _LOCK:
        return tuple(_PROVIDERS.values())


def installed_kinds() -> list[str]:
    """The kinds installed packages declare and no code has registered yet (metadata only)."""
    with _LOCK:
        known = set(_PROVIDERS)
    return [name for name in _INSTALLED.names() if name not in known]


def accepted_specs() -> str:
    """The spec forms `make_agent` accepts, comma-separated: the one list shown in error
    messages and `--help`. A kind from an entry point not yet used shows as `kind:...`."""
    forms = [form for entry in providers() for form in entry.accepts]
    return ", ".join([*forms, *(f"{name}:..." for name in installed_kinds())])
