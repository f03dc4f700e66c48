"""Domains: tool sources behind one async protocol, and the worlds sessions run in.

- `ToolSource` (list, call, close, state hash) and `WrapperToolSource`: the seam every set
  of tools plugs into, and faults, drift and the guard wrap; `ToolContext` travels with
  every listing and call.
- `Toolkit` + `@tool`: typed, docstringed methods over a typed DB (schemas generated).
- `SchemaTools` + `SchemaTool`: JSON-Schema specs and a Python callable per tool.
- `Domain`, `DomainSpec` and the lazy registry: a session's world (tools, DB, policy).

The seam itself (`_source`, `_results`) is imported with the package; the toolkits, domains
and registry on first use, so `import sessionproof.guard` (a wrapper of a tool source) pays
for the protocol, not for schema generation.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._source import ToolContext, ToolSource, WrapperToolSource

if TYPE_CHECKING:
    from ._domain import Domain, DomainSpec
    from ._registry import domain_names, get_domain, register_domain
    from ._schema_tools import SchemaTool, SchemaTools
    from ._toolkit import Toolkit, tool

_LAZY = {
    "Domain": "_domain",
    "DomainSpec": "_domain",
    "SchemaTool": "_schema_tools",
    "SchemaTools": "_schema_tools",
    "Toolkit": "_toolkit",
    "domain_names": "_registry",
    "get_domain": "_registry",
    "register_domain": "_registry",
    "tool": "_toolkit",
}

__all__ = [
    "Domain",
    "DomainSpec",
    "SchemaTool",
    "SchemaTools",
    "ToolContext",
    "ToolSource",
    "Toolkit",
    "WrapperToolSource",
    "domain_names",
    "get_domain",
    "register_domain",
    "tool",
]


def __getattr__(name: str) -> Any:
    """Toolkits, domains and the registry, imported on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this hook
    return value
