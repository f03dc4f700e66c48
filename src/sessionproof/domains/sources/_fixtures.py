"""Schema-only tools: specs from a document, responses from fixtures matched on arguments.

For teams with no sandbox: the agent sees the real schemas (an OpenAI `tools` list or an
OpenAPI document), and each call is answered by the first fixture whose arguments it
matches. A fixture names a tool, optionally the arguments it answers (each given argument
must be equal, after normalisation, in the call; others may be anything), and either an
`output` or an `error` (with its class). A call no fixture matches gets an explicit
`not_found` result saying so, never a made-up answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import BaseModel

from ...errors import ToolError
from ...records import ErrorClass, ToolSpec
from .. import Domain, DomainSpec, SchemaTool, SchemaTools


class NoState(BaseModel):
    """The DB of a domain whose state lives elsewhere (fixtures, a server): nothing."""


def normalised(value: Any) -> Any:
    """`value` as canonical JSON data: key order ignored, 1 and 1.0 equal, tuples as lists."""
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS))


@dataclass(frozen=True)
class Fixture:
    """One canned response: for `tool`, when the call's arguments include `args`."""

    tool: str
    args: dict[str, Any] | None = None
    """Arguments the call must have (equal after normalisation); None: any call."""
    output: Any = None
    error: str | None = None
    """When set, the call fails with this message, classified `error_class`."""
    error_class: ErrorClass = ErrorClass.server_error

    def matches(self, args: dict[str, Any]) -> bool:
        """True when every argument this fixture names is in `args` with an equal value."""
        if self.args is None:
            return True
        given = normalised(args)
        return all(k in given and given[k] == normalised(v) for k, v in self.args.items())


class FixtureError(ToolError):
    """A fixture that answers with an error, or no fixture at all."""

    def __init__(self, message: str, error_class: ErrorClass) -> None:
        super().__init__(message)
        self.error_class = error_class.value


@dataclass
class FixtureBook:
    """Every fixture of a domain, looked up in file order."""

    fixtures: Sequence[Fixture] = field(default_factory=list)

    def answer(self, tool: str, args: dict[str, Any]) -> Any:
        """The first matching fixture's output; raises `FixtureError` for an error fixture
        or when none matches."""
        for f in self.fixtures:
            if f.tool == tool and f.matches(args):
                if f.error is not None:
                    raise FixtureError(f.error, f.error_class)
                return f.output
        shown = orjson.dumps(args, option=orjson.OPT_SORT_KEYS).decode()[:200]
        raise FixtureError(f"no fixture for {tool} with arguments {shown}", ErrorClass.not_found)


def fixture_tools(specs: Iterable[ToolSpec], book: FixtureBook) -> SchemaTools:
    """A `SchemaTools` whose every tool answers from `book` (validated, inline: lookups are
    quick and pure)."""

    def serve(name: str) -> Any:
        def call(**args: Any) -> Any:
            return book.answer(name, args)

        return call

    return SchemaTools([SchemaTool(s, serve(s.name)) for s in specs], fast=True)


class FixtureDomainSpec(DomainSpec):
    """A domain of schema-only tools answered from fixtures."""

    stateful = False
    """No DB: gold replay and state assertions do not apply."""

    def __init__(
        self,
        name: str,
        specs: list[ToolSpec],
        book: FixtureBook,
        policy: str = "",
        transfer_tools: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.specs = specs
        self.book = book
        self.policy = policy
        self.transfer_tools = transfer_tools
        unknown = sorted({f.tool for f in book.fixtures} - {s.name for s in specs})
        if unknown:
            raise ValueError(f"fixtures name tools the document lacks: {', '.join(unknown)}")

    def create(self) -> Domain[Any]:
        """A new domain (fixtures are read-only: every session sees the same answers)."""
        return Domain(
            self.name,
            NoState(),
            fixture_tools(self.specs, self.book),
            self.policy,
            self.transfer_tools,
        )

    def tools(self) -> list[ToolSpec]:
        """The document's tools."""
        return list(self.specs)
