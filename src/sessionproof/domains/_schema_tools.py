"""A tool source defined by data: JSON-Schema specs plus one Python callable per tool.

For tools that come from documents rather than typed methods (BFCL's questions, a team's
own function list; MCP and OpenAPI sources build on the same shape). No subclassing::

    tools = SchemaTools([
        SchemaTool(ToolSpec(name="get_order", description="...", parameters=SCHEMA), get_order),
    ])

A callable takes the call's arguments as keyword arguments and returns a value (rendered
with `render_output`) or raises (`ToolError` subclasses keep their class; anything else is
classified from its text). Async callables are awaited; sync ones run on a worker thread,
so a slow one does not hold up other sessions, unless the toolkit is declared `fast`.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ToolArgumentError, UnknownToolError
from ..records import ToolCall, ToolResult, ToolSpec
from ._results import result_from_exception, result_from_value, unparsed_result
from ._source import ToolContext

if TYPE_CHECKING:
    # jsonschema (~40 ms) loads when a toolkit that validates is built, asyncio when a sync
    # tool runs on a worker thread: replaying and scoring a toolkit-class domain need neither.
    import jsonschema

ToolFunction = Callable[..., Any]
"""A tool's implementation: sync or async, called with the arguments as keywords."""


@dataclass(frozen=True)
class SchemaTool:
    """One tool: its spec (what the agent sees) and the callable that serves it."""

    spec: ToolSpec
    fn: ToolFunction


def _violations(validator: jsonschema.protocols.Validator, args: dict[str, Any]) -> list[str]:
    errors = sorted(validator.iter_errors(args), key=lambda e: str(list(e.absolute_path)))
    return [
        f"{'.'.join(str(p) for p in e.absolute_path) or '(arguments)'}: {e.message}" for e in errors
    ]


class SchemaTools:
    """A `ToolSource` from `SchemaTool`s (see the module docstring).

    `validate`: check arguments against each spec's parameters before calling (a failure is a
    `validation_error` and the callable is not run). `fast`: sync callables are quick and
    pure, run them inline on the event loop. `state`: returns the state hash (default None,
    no hashable state). `close`: called (awaited when async) by `aclose`.
    """

    def __init__(
        self,
        tools: Iterable[SchemaTool],
        *,
        validate: bool = True,
        fast: bool = False,
        state: Callable[[], str | None] | None = None,
        close: Callable[[], Awaitable[None] | None] | None = None,
    ) -> None:
        self._tools: dict[str, SchemaTool] = {}
        for t in tools:
            if t.spec.name in self._tools:
                raise ValueError(f"SchemaTools: tool {t.spec.name!r} is defined twice")
            self._tools[t.spec.name] = t
        self.fast = fast
        self._state = state
        self._close = close
        self._validators: dict[str, jsonschema.protocols.Validator] = {}
        if validate:
            import jsonschema

            for name, t in self._tools.items():
                cls = jsonschema.validators.validator_for(t.spec.parameters)
                cls.check_schema(t.spec.parameters)
                self._validators[name] = cls(t.spec.parameters)

    def specs(self) -> list[ToolSpec]:
        """Every tool's spec, in the order given."""
        return [t.spec for t in self._tools.values()]

    def spec(self, name: str) -> ToolSpec:
        """One tool's spec; raises `UnknownToolError`."""
        return self._tool(name).spec

    def _tool(self, name: str) -> SchemaTool:
        found = self._tools.get(name)
        if found is None:
            raise UnknownToolError(name, list(self._tools))
        return found

    def _checked(self, name: str, args: dict[str, Any]) -> SchemaTool:
        found = self._tool(name)
        validator = self._validators.get(name)
        if validator is not None:
            problems = _violations(validator, args)
            if problems:
                raise ToolArgumentError(f"invalid arguments for {name}: {'; '.join(problems)}")
        return found

    def invoke(self, name: str, args: dict[str, Any]) -> Any:
        """Call one tool now, on this thread (replays and scoring; sync callables only).

        Raises `UnknownToolError`, `ToolArgumentError`, or whatever the tool raises.
        """
        value = self._checked(name, args).fn(**args)
        if inspect.isawaitable(value):
            if inspect.iscoroutine(value):
                value.close()
            raise TypeError(f"tool {name!r} is async: call it through call_tool")
        return value

    async def _run(self, t: SchemaTool, args: dict[str, Any]) -> Any:
        if inspect.iscoroutinefunction(t.fn):
            return await t.fn(**args)
        if self.fast:
            value = t.fn(**args)
        else:
            import asyncio

            # Off the event loop: a slow sync tool must not stall the other sessions.
            value = await asyncio.to_thread(t.fn, **args)
        if inspect.isawaitable(value):  # a callable object with an async __call__
            value = await value
        return value

    # -- the ToolSource protocol ----------------------------------------------------------

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """Every tool's spec, in the order given."""
        return self.specs()

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Validate and run one call; every failure is a classified result."""
        start = time.perf_counter()
        if call.arguments is None:
            return unparsed_result(call, start)
        try:
            value = await self._run(self._checked(call.name, call.arguments), call.arguments)
        except Exception as exc:  # a tool that raises must not end the run
            return result_from_exception(call, exc, start)
        return result_from_value(call, value, start)

    async def aclose(self) -> None:
        """Run the `close` callback, if one was given."""
        if self._close is not None:
            done = self._close()
            if done is not None:
                await done

    def state_hash(self) -> str | None:
        """The `state` callback's hash, or None without one."""
        return self._state() if self._state is not None else None
