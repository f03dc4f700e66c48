"""Domain registry. Built-ins are imported only when asked for (no import side effects)."""

from __future__ import annotations

import importlib

from ..errors import UnknownDomainError
from ._domain import DomainSpec

# name -> "module:attribute" of a zero-argument factory returning a DomainSpec.
_BUILTIN: dict[str, str] = {
    "demo": "sessionproof.domains.demo:spec",
    "retail": "sessionproof.suites.tau2.retail:spec",
    "airline": "sessionproof.suites.tau2.airline:spec",
    "taubench-retail": "sessionproof.suites.tau2.taubench:retail_spec",
    "taubench-airline": "sessionproof.suites.tau2.taubench:airline_spec",
}
_REGISTERED: dict[str, DomainSpec] = {}


def register_domain(spec: DomainSpec) -> None:
    """Make a user-defined domain available by name."""
    _REGISTERED[spec.name] = spec


def register_builtin(name: str, factory_path: str) -> None:
    """Declare a lazily imported domain: `factory_path` is `module:function`."""
    _BUILTIN[name] = factory_path


def domain_names() -> list[str]:
    """Every known domain name."""
    return sorted({*_BUILTIN, *_REGISTERED})


def get_domain(name: str) -> DomainSpec:
    """The domain named `name`; raises `UnknownDomainError`."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    path = _BUILTIN.get(name)
    if path is None:
        raise UnknownDomainError(
            f"unknown domain {name!r}; known domains: {', '.join(domain_names())}"
        )
    module_name, attr = path.split(":")
    spec: DomainSpec = getattr(importlib.import_module(module_name), attr)()
    _REGISTERED[name] = spec
    return spec
