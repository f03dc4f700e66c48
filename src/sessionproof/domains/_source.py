"""The tool-source seam: one async protocol for "a set of tools", and the wrapper base.

Everything an agent can call comes from a `ToolSource`: a typed-method toolkit over a typed
DB (`Domain`), a JSON-Schema toolkit (`SchemaTools`), and next MCP servers, OpenAPI
documents or recorded responses. Faults, drift and the guard are `WrapperToolSource`s around
one; the engine lists and calls the outermost and knows nothing of what is inside.

The contract every source keeps:

- `list_tools(ctx)` returns the tools as the agent should see them now (a wrapper may
  change them: drift renames a parameter). It may depend on `ctx.turn`.
- `call_tool(call, ctx)` returns a `ToolResult`, always: a tool failure is a result with an
  `error_class`, never an exception. The source renders output (`render_output` for a
  Python value, cut at `MAX_TOOL_OUTPUT_CHARS`). Inside a source, the tool itself reports an
  expected failure by raising a `ToolError` subclass (its `error_class` is the result's);
  anything else it raises is classified from its text by `taxonomy.classify_text`
  (`result_from_exception` does both). An exception escaping `call_tool` is a bug of the
  source; the engine still records it as a classified result rather than end the run.
- `aclose()` releases what the source holds (a subprocess, a connection); sessions call it
  once, when they end.
- `state_hash()` is a canonical hash of the state the tools act on, or None when the source
  has no state it can hash (a remote server).
- `gone()` (optional, read by `source_gone`) says why the source can answer nothing more —
  its server process exited, its connection dropped — or None. The engine then ends the
  session as `infra_error`: the harness's tools failed, not the agent. A failure the agent
  can handle (a timeout, an injected fault) is a result, never `gone`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..records import EventKind, ToolCall, ToolResult, ToolSpec
from ..records._internal import EventPayload

Emit = Callable[[EventKind, EventPayload], None]
"""Appends one event: its kind and its typed payload (fault_injected, drift_applied,
guard_decision...) to the trace."""


@dataclass
class ToolContext:
    """Where a listing or a call happens: what wrappers need to seed draws and emit events.

    It travels with every `list_tools` and `call_tool` (the call's own id is `call.id`).
    """

    run_id: str
    session_id: str
    scenario_id: str
    trial: int
    arm: str
    turn: int
    """0-based user turn."""
    step: int
    """Agent decisions so far in the session."""
    seed: int
    """The session seed (equal across arms, so conditions stay paired)."""
    emit: Emit = field(repr=False)
    """Append an event to the session's trace."""


@runtime_checkable
class ToolSource(Protocol):
    """A set of tools an agent can list and call (see the module docstring for the contract)."""

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The tools as the agent sees them now."""
        ...

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run one call; a failure is a classified result, not an exception."""
        ...

    async def aclose(self) -> None:
        """Release what the source holds; called once, when the session ends."""
        ...

    def state_hash(self) -> str | None:
        """A canonical hash of the tools' state, or None when there is none to hash."""
        ...


class WrapperToolSource:
    """A tool source around another one: forwards everything; subclasses override a part.

    Faults, drift and the guard are wrappers; each overrides `call_tool`, `list_tools` or
    both, and reaches the source it wraps as `self.inner`.
    """

    def __init__(self, inner: ToolSource) -> None:
        self.inner = inner

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The wrapped source's tools."""
        return await self.inner.list_tools(ctx)

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """The wrapped source's result."""
        return await self.inner.call_tool(call, ctx)

    async def aclose(self) -> None:
        """Close the wrapped source."""
        await self.inner.aclose()

    def state_hash(self) -> str | None:
        """The wrapped source's state hash."""
        return self.inner.state_hash()


def source_gone(source: object) -> str | None:
    """Why `source` can answer nothing more, from its optional `gone()` method; None when it
    has none or is fine."""
    probe = getattr(source, "gone", None)
    if not callable(probe):
        return None
    why = probe()
    return why if isinstance(why, str) and why else None
