"""Tool sources for a team's own tools: a Python toolkit class, schema-only tools answered
from fixtures (an OpenAI `tools` list or an OpenAPI document), an OpenAPI document on a live
base URL, an MCP server (stdio or streamable HTTP), and recorded responses.

Each is a `DomainSpec` whose domains are `ToolSource`s, so faults, drift and the guard wrap
them as they wrap the built-ins. `stateful` says whether the domain has a DB to hash and read
(gold replay and state assertions need one).
"""

from ._fixtures import Fixture, FixtureBook, FixtureDomainSpec
from ._python import ToolkitDomainSpec

__all__ = [
    "Fixture",
    "FixtureBook",
    "FixtureDomainSpec",
    "ToolkitDomainSpec",
]
