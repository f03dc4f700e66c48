"""Domains: typed DBs with toolkits generated from typed, docstringed methods."""

from ..records import ToolSpec
from ._domain import Domain, DomainSpec, state_hash
from ._registry import domain_names, get_domain, register_builtin, register_domain
from ._toolkit import Toolkit, render_output, tool

__all__ = [
    "Domain",
    "DomainSpec",
    "ToolSpec",
    "Toolkit",
    "domain_names",
    "get_domain",
    "register_builtin",
    "register_domain",
    "render_output",
    "state_hash",
    "tool",
]
