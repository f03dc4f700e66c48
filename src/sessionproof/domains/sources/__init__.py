"""Tool sources for a team's own tools: a Python toolkit class, schema-only tools answered
from fixtures (an OpenAI `tools` list or an OpenAPI document), an OpenAPI document on a live
base URL, an MCP server (stdio or streamable HTTP), and recorded responses.

Each is a `DomainSpec` whose domains are `ToolSource`s, so faults, drift and the guard wrap
them as they wrap the built-ins. `stateful` says whether the domain has a DB to hash and read
(gold replay and state assertions need one).
"""

from ._fixtures import Fixture, FixtureBook, FixtureDomainSpec, NoState, normalised
from ._http import HttpDomainSpec, status_class
from ._openapi import OpenAPIError, OpenAPITools, Operation, read_openai_tools, read_openapi
from ._procs import end_group, group_options, spawn_group
from ._python import ToolkitDomainSpec, db_model_of, import_object, python_domain
from ._recorded import (
    NO_RECORDED_RESPONSE,
    RecordedCall,
    RecordedDomainSpec,
    RecordedTools,
    recorded_calls,
)

__all__ = [
    "NO_RECORDED_RESPONSE",
    "Fixture",
    "FixtureBook",
    "FixtureDomainSpec",
    "HttpDomainSpec",
    "NoState",
    "OpenAPIError",
    "OpenAPITools",
    "Operation",
    "RecordedCall",
    "RecordedDomainSpec",
    "RecordedTools",
    "ToolkitDomainSpec",
    "db_model_of",
    "end_group",
    "group_options",
    "import_object",
    "normalised",
    "python_domain",
    "read_openai_tools",
    "read_openapi",
    "recorded_calls",
    "spawn_group",
    "status_class",
]
