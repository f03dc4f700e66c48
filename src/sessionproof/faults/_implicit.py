"""Implicit faults at the tool boundary: the call answers normally and is wrong.

`FaultInjector` draws one fault per call (`FaultPlan.draw_fault`); when the draw is an
implicit kind, `ImplicitFaults.serve` applies it. What each kind does, and where it cannot
apply, is `taxonomy.IMPLICIT_TAXONOMY`; this module is its implementation:

- A call's nature comes from its tool's `ToolSpec.write`. A listing that marks no tool as a
  write (an MCP server, an OpenAI tools list) says nothing: its tools are of unknown nature;
  read kinds treat them as reads, write kinds apply only to the tool the plan names with
  `@TOOL` (`check_plan` makes a plan that asks for more a load error).
- A drawn kind that finds nothing to change in this call (a read with no earlier read for
  stale_read, an output without a list for partial_result, a write that fails on its own)
  leaves the call as it was and writes no event: a kind's rate is its share of the calls it
  can change. Every applied fault is one `implicit_fault` event with what it changed; the
  agent sees only the tool result, a success with no error class and no `injected` flag.
- A domain's transfer tools (whose success ends the session) are never faulted.
- Transient (the default): the next identical call (same tool, same arguments) is served
  correctly. Permanent (`KIND:permanent:RATE`): every identical call in the session meets
  the same fault again, with the same seeded choices.
- Writes are undone by snapshotting the domain's typed DB around the call (`Domain.db`, what
  the judge's state hash reads), so the judge sees the true state. A source whose state is
  not in-process (MCP, OpenAPI, fixtures) cannot be undone: silent_noop does not forward the
  call there and answers with the tool's last successful output in the session.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..domains import ToolContext, ToolSource
from ..errors import ConfigError
from ..records import EventKind, ToolCall, ToolResult, ToolSpec
from ..records._internal import ImplicitFault, ImplicitFaultKind
from ..taxonomy._internal import CallNature, implicit_semantics
from ._hash import unit_draw
from ._implicit_kinds import Draw, corrupt_value, cut_list, failure_body

K = ImplicitFaultKind
SHOWN_CHARS = 300
"""Outputs quoted in an event's `change` are cut to this many characters."""


def _short(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def signature(call: ToolCall) -> str:
    """The identity of a call for repeats: its tool and its arguments, key order ignored."""
    args = json.dumps(call.arguments, sort_keys=True, default=str)
    return f"{call.name}\x1f{args}"


def _values(args: dict[str, Any] | None) -> frozenset[str]:
    return frozenset(
        str(v)
        for v in (args or {}).values()
        if isinstance(v, str | int) and not isinstance(v, bool)
    )


def nature(name: str, tools: dict[str, ToolSpec]) -> CallNature | None:
    """`write` or `read` for a tool of a listing that marks writes; None: unknown."""
    spec = tools.get(name)
    if spec is not None and spec.write:
        return CallNature.write
    if any(spec.write for spec in tools.values()):
        return CallNature.read
    return None


def applies(kind: K, tool: str, tools: dict[str, ToolSpec], named: str | None) -> bool:
    """Whether `kind` may change a call of `tool`: its nature against the kind's
    (an unknown-nature tool is a read, and a write only when the plan names it)."""
    wants = implicit_semantics(kind).applies_to
    found = nature(tool, tools)
    if wants is CallNature.any:
        return True
    if wants is CallNature.read:
        return found is not CallNature.write
    return found is CallNature.write or (found is None and named == tool)


def check_plan(implicit: set[K], tool: str | None, tools: list[ToolSpec], domain: str) -> None:
    """Raise `ConfigError` when a requested write kind can change no tool of `tools`."""
    writes = [k for k in sorted(implicit) if implicit_semantics(k).applies_to is CallNature.write]
    if not writes or any(spec.write for spec in tools):
        return
    if tool is not None and any(spec.name == tool for spec in tools):
        return
    raise ConfigError(
        f"{', '.join(writes)} on domain {domain!r}: its tools say nothing of which ones write "
        "(no tool is marked as a write, as from an MCP server or an OpenAI tools list), so "
        f"there is no write to change; name the write tool with @TOOL, e.g. {writes[0]}:40%@TOOL"
    )


@dataclass
class _Read:
    call_id: str
    sig: str
    args: dict[str, Any]
    output: str
    writes_before: int


@dataclass
class _Marked:
    kind: K
    permanent: bool
    occurrence: int
    call_id: str


@dataclass
class _Log:
    """What one session's calls really returned and changed (the truth the faults bend)."""

    reads: list[_Read] = field(default_factory=list)
    writes: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    last_ok: dict[str, str] = field(default_factory=dict)
    marked: dict[str, _Marked] = field(default_factory=dict)


def _restorable(source: ToolSource) -> BaseModel | None:
    from ..domains import Domain

    db = getattr(source, "db", None) if isinstance(source, Domain) else None
    return db if isinstance(db, BaseModel) and type(db).model_fields else None


def _restore(db: BaseModel, snapshot: BaseModel) -> None:
    # In place: the toolkit, the domain and the judge all hold this very object.
    db.__dict__.update(snapshot.__dict__)
    object.__setattr__(db, "__pydantic_fields_set__", set(snapshot.__pydantic_fields_set__))


def undoer(source: ToolSource) -> Callable[[], Callable[[], None]] | None:
    """How to undo what calls do to `source`'s state: `take()` snapshots it and returns the
    function that restores it; None when the state is not in-process (MCP, OpenAPI, fixtures).

    A domain that can snapshot itself cheaply says so with `snapshot_state()` and
    `restore_state(token)` (a copy-on-write fork restores its own records); any other domain with a
    typed DB is deep-copied."""
    snap, back = getattr(source, "snapshot_state", None), getattr(source, "restore_state", None)
    if callable(snap) and callable(back):

        def take_own() -> Callable[[], None]:
            token = snap()
            return lambda: back(token)

        return take_own
    db = _restorable(source)
    if db is None:
        return None
    held = db

    def take() -> Callable[[], None]:
        snapshot = held.model_copy(deep=True)
        return lambda: _restore(held, snapshot)

    return take


def _served(result: ToolResult, output: str) -> ToolResult:
    return result.model_copy(update={"output": output})


def _answer(call: ToolCall, output: str, start: float) -> ToolResult:
    return ToolResult(
        call_id=call.id, name=call.name, output=output, latency_s=time.perf_counter() - start
    )


class ImplicitFaults:
    """Applies a plan's implicit kinds, keeping per session the log they need."""

    def __init__(self, permanent: frozenset[K], tool: str | None) -> None:
        self.permanent = permanent
        self.tool = tool
        self._logs: dict[str, _Log] = {}

    def _log(self, ctx: ToolContext) -> _Log:
        return self._logs.setdefault(ctx.session_id, _Log())

    def repeat_of(self, call: ToolCall, ctx: ToolContext) -> _Marked | None:
        """The fault an identical earlier call met, when this call repeats it."""
        return self._log(ctx).marked.get(signature(call))

    async def serve(
        self,
        inner: ToolSource,
        call: ToolCall,
        ctx: ToolContext,
        tools: dict[str, ToolSpec],
        drawn: K | None,
        seed: int,
        occurrence: int,
    ) -> ToolResult:
        """One call under the plan: `drawn` applied where it can change it, a permanent
        fault repeated, a transient one cleared; the true result otherwise."""
        log = self._log(ctx)
        sig = signature(call)
        marked = log.marked.get(sig)
        kind, key_occurrence, repeat = drawn, occurrence, None
        if marked is not None:
            if not marked.permanent:
                del log.marked[sig]
                kind = None
            else:
                kind, key_occurrence, repeat = marked.kind, marked.occurrence, marked.call_id
        # The engine ends a session on a transfer tool's success: a fault there would
        # change nothing the agent could act on (drift spares them for the same reason).
        spared = call.name in getattr(inner, "transfer_tools", frozenset())
        if kind is None or spared or not applies(kind, call.name, tools, self.tool):
            result = await inner.call_tool(call, ctx)
            self._record(log, call, result, tools)
            return result

        def draw(what: str) -> float:
            return unit_draw("implicit", seed, ctx.scenario_id, ctx.trial, call.name,
                             key_occurrence, kind.value, what)  # fmt: skip

        served, change = await self._apply(kind, inner, call, ctx, tools, log, draw)
        if change is None:
            return served
        if repeat is not None:
            change["repeat_of"] = repeat
        permanent = kind in self.permanent
        if marked is None:
            log.marked[sig] = _Marked(kind, permanent, occurrence, call.id)
        payload = ImplicitFault(
            call_id=call.id,
            tool=call.name,
            fault=kind,
            permanent=permanent,
            change=change,
            occurrence=occurrence,
        )
        ctx.emit(EventKind.implicit_fault, payload)
        return served

    def _record(
        self, log: _Log, call: ToolCall, result: ToolResult, tools: dict[str, ToolSpec]
    ) -> None:
        """Keep what a call that reached the source truly returned or changed."""
        if not result.ok:
            return
        log.last_ok[call.name] = result.output
        found = nature(call.name, tools)
        if found is not CallNature.read:
            log.writes.append((call.name, _values(call.arguments)))
        if found is not CallNature.write:
            read = _Read(call.id, signature(call), dict(call.arguments or {}), result.output,
                         len(log.writes))  # fmt: skip
            log.reads.append(read)

    async def _true(
        self,
        inner: ToolSource,
        call: ToolCall,
        ctx: ToolContext,
        log: _Log,
        tools: dict[str, ToolSpec],
    ) -> ToolResult:
        result = await inner.call_tool(call, ctx)
        self._record(log, call, result, tools)
        return result

    async def _apply(
        self,
        kind: K,
        inner: ToolSource,
        call: ToolCall,
        ctx: ToolContext,
        tools: dict[str, ToolSpec],
        log: _Log,
        draw: Draw,
    ) -> tuple[ToolResult, dict[str, Any] | None]:
        start = time.perf_counter()
        if kind is K.error_in_body:
            # Not forwarded: the service refused the call and said so in a 200's body.
            body = failure_body(call.name, log.last_ok.get(call.name))
            return _answer(call, body, start), {"forwarded": False, "served_output": body}
        if kind is K.silent_noop:
            return await self._noop(inner, call, ctx, tools, log, start)
        if kind is K.stale_read:
            earlier = self._before_last_write(call, log)  # before the fresh read joins the log
            result = await self._true(inner, call, ctx, log, tools)
            if earlier is None or not result.ok or earlier.output == result.output:
                return result, None
            return _served(result, earlier.output), {
                "stale_from_call": earlier.call_id,
                "writes_since": len(log.writes) - earlier.writes_before,
                "true_output": _short(result.output),
                "served_output": _short(earlier.output),
            }
        result = await self._true(inner, call, ctx, log, tools)
        if not result.ok:
            return result, None  # a call that fails on its own is left as it is
        if kind is K.duplicate_write:
            again = await inner.call_tool(call, ctx)
            if again.ok:
                self._record(log, call, again, tools)
            change = {"applied": 2, "second_ok": again.ok, "second_output": _short(again.output)}
            return result, change
        if kind is K.wrong_entity:
            return await self._wrong_entity(inner, call, ctx, log, result, draw)
        bent = (cut_list if kind is K.partial_result else corrupt_value)(result.output, draw)
        if bent is None:
            return result, None
        output, change = bent
        return _served(result, output), change

    def _before_last_write(self, call: ToolCall, log: _Log) -> _Read | None:
        """The latest identical read made before the last write to its entity."""
        sig, mine = signature(call), _values(call.arguments)
        last = None
        for i, (tool, values) in enumerate(log.writes):
            if tool != call.name and (not mine or mine & values):
                last = i
        if last is None:
            return None
        earlier = [r for r in log.reads if r.sig == sig and r.writes_before <= last]
        return earlier[-1] if earlier else None

    async def _noop(
        self,
        inner: ToolSource,
        call: ToolCall,
        ctx: ToolContext,
        tools: dict[str, ToolSpec],
        log: _Log,
        start: float,
    ) -> tuple[ToolResult, dict[str, Any] | None]:
        take = undoer(inner)
        if take is None:
            previous = log.last_ok.get(call.name)
            if previous is None:  # no success of this tool to echo: nothing success-shaped
                return await self._true(inner, call, ctx, log, tools), None
            change = {"committed": False, "forwarded": False, "served_output": _short(previous)}
            return _answer(call, previous, start), change
        restore = take()
        result = await inner.call_tool(call, ctx)
        restore()
        if not result.ok:
            return result, None
        log.last_ok[call.name] = result.output
        return result, {"committed": False, "forwarded": True, "restored": True}

    async def _wrong_entity(
        self,
        inner: ToolSource,
        call: ToolCall,
        ctx: ToolContext,
        log: _Log,
        result: ToolResult,
        draw: Draw,
    ) -> tuple[ToolResult, dict[str, Any] | None]:
        tool = call.name
        seen = {
            r.sig: r
            for r in log.reads
            if r.sig.startswith(tool + "\x1f") and r.args != call.arguments
            and r.output != result.output
        }  # fmt: skip
        if seen:
            read = list(seen.values())[int(draw("seen") * len(seen))]
            change = {"source": "session", "asked": call.arguments, "served_for": read.args}
            return _served(result, read.output), change
        db = _restorable(inner)
        for name, value in sorted((call.arguments or {}).items()):
            if db is None or not isinstance(value, str):
                continue
            for table in type(db).model_fields:
                rows = getattr(db, table, None)
                if not isinstance(rows, dict) or value not in rows:
                    continue
                siblings = sorted(k for k in rows if k != value and isinstance(k, str))
                for tries in range(min(3, len(siblings))):
                    pick = siblings[(int(draw("sibling") * len(siblings)) + tries) % len(siblings)]
                    args = {**(call.arguments or {}), name: pick}
                    other = await inner.call_tool(call.model_copy(update={"arguments": args}), ctx)
                    if other.ok and other.output != result.output:
                        change = {"source": "domain", "argument": name, "asked": value,
                                  "served_for": pick}  # fmt: skip
                        return _served(result, other.output), change
        return result, None
