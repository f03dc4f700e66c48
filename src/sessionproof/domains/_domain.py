"""A domain: a typed DB, the toolkit bound to it, a policy, a canonical state hash."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Generic

from ..records import ToolCall, ToolResult, ToolSpec
from ._schema_tools import SchemaTools
from ._source import ToolContext, source_gone
from ._toolkit import DBT, Toolkit, state_hash


class Domain(Generic[DBT]):
    """One live world: a DB, the tools acting on it, a policy. Create one per session.

    The tools are a typed `Toolkit` over the DB, or a `SchemaTools` (JSON Schemas and a
    callable per tool; the DB is then whatever state the judge needs). A domain is itself a
    `ToolSource`: it lists and calls its tools; its state hash is the DB's.
    """

    def __init__(
        self,
        name: str,
        db: DBT,
        toolkit: Toolkit[DBT] | SchemaTools,
        policy: str,
        transfer_tools: frozenset[str] = frozenset({"transfer_to_human_agents"}),
    ) -> None:
        self.name = name
        self.db = db
        self.toolkit = toolkit
        self.policy = policy
        self.transfer_tools = transfer_tools
        """Tools whose successful call ends the session as a transfer."""

    def tools(self) -> list[ToolSpec]:
        """The tools an agent sees."""
        return self.toolkit.specs()

    def call(self, name: str, args: dict[str, Any]) -> Any:
        """Run one tool now, on this thread (replays and scoring); raises `ToolError`
        subclasses for expected failures."""
        return self.toolkit.invoke(name, args)

    def state_hash(self) -> str:
        """Canonical hash of the current DB state."""
        return state_hash(self.db)

    # -- the ToolSource protocol (the engine's way in) --------------------------------------

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The tools an agent sees."""
        return await self.toolkit.list_tools(ctx)

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run one call; every failure is a classified result (see `ToolSource`)."""
        return await self.toolkit.call_tool(call, ctx)

    async def aclose(self) -> None:
        """Release what the tools hold."""
        await self.toolkit.aclose()

    def gone(self) -> str | None:
        """Why the tools can answer nothing more (an MCP server that exited), or None."""
        return source_gone(self.toolkit)


class DomainSpec(ABC):
    """How to make fresh instances of a domain."""

    name: str

    @abstractmethod
    def create(self) -> Domain[Any]:
        """A new domain in its initial state."""

    def tools(self) -> list[ToolSpec]:
        """The tools of this domain (without building a DB when avoidable)."""
        return self.create().tools()

    def tool_names(self) -> frozenset[str]:
        """The names of its tools (a spec that knows them without building each tool's
        schemas says so by overriding this: flagging calls to unknown tools needs no more)."""
        return frozenset(t.name for t in self.tools())

    def preload(self) -> None:
        """Load now what every instance shares (a base DB), so processes forked after
        this inherit it instead of each loading it again. Nothing by default; never starts
        anything (no server, no subprocess)."""
        return None
