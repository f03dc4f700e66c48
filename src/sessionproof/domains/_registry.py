"""Domain registry: domains by name, imported only when asked for (no import side effects).

A domain comes from one of three places: registered at run time (`register_domain`, what a
`domains:` file does), declared lazily in code (`register_builtin`; the demo world), or the
`sessionproof.domains` entry-point group of an installed distribution, whose entries name a
zero-argument factory returning a `DomainSpec` (sessionproof's own benchmarks declare their
domains this way, as any package may).
"""

from __future__ import annotations

from collections.abc import Callable

from .._plugins import Registry, resolve
from ..errors import UnknownDomainError
from ._domain import DomainSpec

# name -> "module:attribute" of a zero-argument factory returning a DomainSpec.
_BUILTIN: dict[str, str] = {"demo": "sessionproof.domains.demo._spec:spec"}
_REGISTERED: dict[str, DomainSpec] = {}
_PLUGINS: Registry[Callable[[], DomainSpec]] = Registry("domains")


def register_domain(spec: DomainSpec) -> None:
    """Make a user-defined domain available by name."""
    _REGISTERED[spec.name] = spec


def register_builtin(name: str, factory_path: str) -> None:
    """Declare a lazily imported domain: `factory_path` is `module:function`."""
    _BUILTIN[name] = factory_path


def domain_names(*, installed: bool = False) -> list[str]:
    """Every known domain name; `installed`: only those declared in code or by an installed
    package's entry point (not those a file registered at run time)."""
    names = {*_BUILTIN, *_PLUGINS.names()}
    return sorted(names if installed else {*names, *_REGISTERED})


def get_domain(name: str) -> DomainSpec:
    """The domain named `name`; raises `UnknownDomainError`."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    path = _BUILTIN.get(name)
    factory = resolve(path, what=f"domain {name!r}") if path is not None else _PLUGINS.get(name)
    if factory is None:
        raise UnknownDomainError(
            f"unknown domain {name!r}; known domains: {', '.join(domain_names())}"
        )
    spec: DomainSpec = factory()
    _REGISTERED[name] = spec
    return spec
