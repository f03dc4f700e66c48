"""Domains: tool sources behind one async protocol, and the worlds sessions run in.

- `ToolSource` (list, call, close, state hash) and `WrapperToolSource`: the seam every set
  of tools plugs into, and faults, drift and the guard wrap; `ToolContext` travels with
  every listing and call.
- `Toolkit` + `@tool`: typed, docstringed methods over a typed DB (schemas generated).
- `SchemaTools` + `SchemaTool`: JSON-Schema specs and a Python callable per tool.
- `Domain`, `DomainSpec` and the lazy registry: a session's world (tools, DB, policy).
"""

from ..records import ToolSpec
from ._domain import Domain, DomainSpec
from ._registry import domain_names, get_domain, register_builtin, register_domain
from ._results import (
    MAX_TOOL_OUTPUT_CHARS,
    error_result,
    render_output,
    result_from_exception,
    result_from_value,
    unparsed_result,
)
from ._schema_tools import SchemaTool, SchemaTools, ToolFunction
from ._source import Emit, ToolContext, ToolSource, WrapperToolSource
from ._toolkit import Toolkit, state_hash, tool

__all__ = [
    "MAX_TOOL_OUTPUT_CHARS",
    "Domain",
    "DomainSpec",
    "Emit",
    "SchemaTool",
    "SchemaTools",
    "ToolContext",
    "ToolFunction",
    "ToolSource",
    "ToolSpec",
    "Toolkit",
    "WrapperToolSource",
    "domain_names",
    "error_result",
    "get_domain",
    "register_builtin",
    "register_domain",
    "render_output",
    "result_from_exception",
    "result_from_value",
    "state_hash",
    "tool",
    "unparsed_result",
]
