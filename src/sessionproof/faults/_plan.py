"""Seeded fault plans, and the injector that applies one at the tool boundary.

Spec grammar (the `--faults` flag and the `faults=` part of an arm)::

    SPEC  := ENTRY ("," ENTRY)* ["@" TOOL]
    ENTRY := RATE | CLASS ":" RATE | KIND [":permanent"] ":" RATE
    RATE  := a percentage, e.g. 3% or 0.5%

`3%` faults 3% of calls with `DEFAULT_MIX`; `rate_limited:5%,timeout:2%` sets each class's
rate; a trailing `@book_reservation` limits the whole plan to that tool. A KIND is an implicit
fault (`ImplicitFaultKind`: the call answers normally and is wrong, see `_implicit`):
`silent_noop:40%`, `stale_read:permanent:10%`; they mix with error classes in one spec. One
draw per call decides the fault: the error classes' intervals come first (in the enum's
order), then the implicit kinds', so adding a kind never moves an explicit fault.

Whether a fault leaves the DB untouched or committed depends on where real failures happen:

- before the call (DB untouched): rate_limited, unavailable, auth_expired, policy_refusal,
  not_found, validation_error, server_error (the backend rolled back) and unknown;
- after the call (a write is committed, the agent still sees the error): timeout (the reply
  was lost, not the request), malformed_output, truncated_output, empty_result and
  schema_mismatch (the operation ran; its response was damaged).
"""

from __future__ import annotations

import difflib
import re
import time
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..domains import ToolContext, ToolSource, WrapperToolSource
from ..errors import ConfigError
from ..records import ErrorClass, EventKind, ToolCall, ToolResult
from ..records._internal import FaultInjected, ImplicitFaultKind
from ..taxonomy import semantics
from ..taxonomy._internal import fault_message
from ._hash import unit_draw
from ._implicit import ImplicitFaults

DEFAULT_MIX: Mapping[ErrorClass, float] = {
    ErrorClass.rate_limited: 0.30,
    ErrorClass.timeout: 0.25,
    ErrorClass.server_error: 0.20,
    ErrorClass.unavailable: 0.15,
    ErrorClass.malformed_output: 0.05,
    ErrorClass.empty_result: 0.05,
}
"""How a bare rate (`3%`) splits across classes: mostly transient infrastructure failures
(rate limits, timeouts, 5xx, 503), with a few damaged responses. Classes that say something
about the request or the world (not_found, validation_error, policy_refusal, auth_expired)
are left out: injecting them would lie about the task. Name them explicitly to test them."""

COMMITTED_CLASSES: frozenset[ErrorClass] = frozenset(
    {
        ErrorClass.timeout,
        ErrorClass.malformed_output,
        ErrorClass.truncated_output,
        ErrorClass.empty_result,
        ErrorClass.schema_mismatch,
    }
)
"""Classes injected after the domain ran the call (a write's effect stays in the DB)."""

_RATE = re.compile(r"^(\d+(?:\.\d+)?)\s*%$")
_TOOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def _rate(text: str, spec: str) -> float:
    match = _RATE.match(text.strip())
    if match is None:
        raise ConfigError(
            f"fault spec {spec!r}: {text.strip()!r} is not a rate; write a percentage like 3%"
        )
    value = float(match.group(1)) / 100
    if value > 1:
        raise ConfigError(f"fault spec {spec!r}: rate {text.strip()} is above 100%")
    return value


def _error_class(name: str, spec: str) -> ErrorClass:
    try:
        return ErrorClass(name)
    except ValueError:
        names = [c.value for c in ErrorClass] + [k.value for k in ImplicitFaultKind]
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"fault spec {spec!r}: unknown error class or implicit kind {name!r}{hint}; "
            f"names: {', '.join(names)}"
        ) from None


class FaultPlan(BaseModel):
    """Which faults to inject, how often, on which tools. Build with `FaultPlan.parse`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str
    """The spec string it was parsed from (its name in reports)."""
    rates: dict[ErrorClass, float]
    """Probability per call of each class (fractions; they sum to at most 1)."""
    tool: str | None = None
    """Only calls of this tool fault; None: every tool."""
    implicit: dict[ImplicitFaultKind, float] = {}
    """Probability per call of each implicit fault kind (see the module docstring)."""
    permanent: frozenset[ImplicitFaultKind] = frozenset()
    """Implicit kinds given as `KIND:permanent:RATE`: every repeat of a faulted call meets
    the fault again (the others are transient: an identical repeat is served correctly)."""

    @classmethod
    def parse(cls, spec: str) -> FaultPlan:
        """Parse `3%`, `rate_limited:5%,timeout:2%`, `...@tool`; raises `ConfigError`."""
        text = spec.strip()
        if not text:
            raise ConfigError("empty fault spec; write e.g. 3% or rate_limited:5%,timeout:2%")
        tool: str | None = None
        if "@" in text:
            text, _, tool = text.rpartition("@")
            tool = tool.strip()
            if "@" in text:
                raise ConfigError(f"fault spec {spec!r}: put one @TOOL at the end of the spec")
            if not _TOOL.match(tool):
                raise ConfigError(f"fault spec {spec!r}: {tool!r} after @ is not a tool name")
        rates: dict[ErrorClass, float] = {}
        implicit: dict[ImplicitFaultKind, float] = {}
        permanent: set[ImplicitFaultKind] = set()
        explicit: set[ErrorClass] = set()
        for raw in text.split(","):
            entry = raw.strip()
            if not entry:
                raise ConfigError(f"fault spec {spec!r}: empty entry between commas")
            if ":" in entry:
                name, _, rate_text = entry.partition(":")
                name = name.strip()
                if name in ImplicitFaultKind.__members__:
                    kind = ImplicitFaultKind(name)
                    if kind in implicit:
                        raise ConfigError(f"fault spec {spec!r}: {kind} is given twice")
                    mode, colon, rest = rate_text.partition(":")
                    if colon:
                        if mode.strip() != "permanent":
                            raise ConfigError(
                                f"fault spec {spec!r}: write {kind}:permanent:RATE for a "
                                f"fault every repeat meets, or {kind}:RATE, not {entry!r}"
                            )
                        permanent.add(kind)
                        rate_text = rest
                    implicit[kind] = _rate(rate_text, spec)
                    continue
                if rate_text.strip().startswith("permanent"):
                    raise ConfigError(
                        f"fault spec {spec!r}: :permanent applies to implicit kinds only "
                        f"({', '.join(k.value for k in ImplicitFaultKind)})"
                    )
                error_class = _error_class(name, spec)
                if error_class in explicit:
                    raise ConfigError(f"fault spec {spec!r}: {error_class} is given twice")
                explicit.add(error_class)
                rates[error_class] = rates.get(error_class, 0.0) + _rate(rate_text, spec)
            else:
                total = _rate(entry, spec)
                for error_class, share in DEFAULT_MIX.items():
                    rates[error_class] = rates.get(error_class, 0.0) + total * share
        if sum(rates.values()) + sum(implicit.values()) > 1 + 1e-9:
            raise ConfigError(f"fault spec {spec!r}: the rates add up to more than 100%")
        return cls(
            spec=spec.strip(),
            rates=rates,
            tool=tool,
            implicit=implicit,
            permanent=frozenset(permanent),
        )

    @property
    def total_rate(self) -> float:
        """Probability that a call the plan applies to faults (explicit and implicit)."""
        return sum(self.rates.values()) + sum(self.implicit.values())

    def applies_to(self, tool: str) -> bool:
        """True when calls of `tool` may fault under this plan."""
        return self.tool is None or self.tool == tool

    def draw(
        self, seed: int, scenario_id: str, trial: int, tool: str, occurrence: int, attempt: int = 0
    ) -> ErrorClass | None:
        """The fault (or None) for one attempt of one call; a pure function of its key.

        `occurrence` counts the calls of `tool` earlier in the session, so calls of other
        tools the agent makes in between do not move the faults; `attempt` counts re-sends of
        the same call (by the guard), so a retry draws afresh and can succeed.
        """
        drawn = self.draw_fault(seed, scenario_id, trial, tool, occurrence, attempt)
        return drawn if isinstance(drawn, ErrorClass) else None

    def draw_fault(
        self, seed: int, scenario_id: str, trial: int, tool: str, occurrence: int, attempt: int = 0
    ) -> ErrorClass | ImplicitFaultKind | None:
        """The explicit class, the implicit kind or None for one attempt of one call: one
        draw, the classes' intervals first and the kinds' after them (see `draw`)."""
        if not self.applies_to(tool):
            return None
        u = unit_draw("fault", seed, scenario_id, trial, tool, occurrence, attempt)
        edge = 0.0
        # A fixed order (the enums') keeps the intervals identical across runs.
        for error_class in ErrorClass:
            edge += self.rates.get(error_class, 0.0)
            if u < edge:
                return error_class
        for kind in ImplicitFaultKind:
            edge += self.implicit.get(kind, 0.0)
            if u < edge:
                return kind
        return None


class FaultInjector:
    """Applies a `FaultPlan` around a tool source, one session or many.

    Each call of a domain tool counts as the next occurrence of that tool in its session;
    the same call id seen again (a guard re-sending it) is the next attempt. A faulted call
    returns an injected `ToolResult` ("Error: ..." output) and emits `fault_injected` with
    {call_id, tool, error_class, committed, retry_after_s, occurrence, attempt}. An implicit
    kind drawn for a call is applied by `ImplicitFaults` (an `implicit_fault` event; the
    result stays a success).
    """

    def __init__(self, plan: FaultPlan, seed: int | None = None) -> None:
        self.plan = plan
        self.seed = seed
        """Overrides the context's seed when given (the seed the condition was built with)."""
        self._occurrences: dict[tuple[str, str], int] = {}
        self._calls: dict[tuple[str, str], list[int]] = {}
        self.implicit = ImplicitFaults(plan.permanent, plan.tool) if plan.implicit else None
        """Applies the plan's implicit kinds (None when it has none)."""

    def _key(self, call: ToolCall, ctx: ToolContext) -> tuple[int, int]:
        known = self._calls.get((ctx.session_id, call.id))
        if known is not None:
            known[1] += 1
            return known[0], known[1]
        slot = (ctx.session_id, call.name)
        occurrence = self._occurrences.get(slot, 0)
        self._occurrences[slot] = occurrence + 1
        self._calls[(ctx.session_id, call.id)] = [occurrence, 0]
        return occurrence, 0

    def wrap(self, inner: ToolSource) -> ToolSource:
        """A source that injects this plan's faults in front of (or behind) `inner`'s calls;
        its listing is `inner`'s."""
        return FaultySource(inner, self)

    async def call(self, inner: ToolSource, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """One call of `inner` under the plan: the fault drawn for it, or `inner`'s result."""
        implicit = self.implicit
        if not self.plan.applies_to(call.name):
            if implicit is None:
                return await inner.call_tool(call, ctx)
            # Not faulted, but seen: a write to another tool makes a later read stale.
            tools = {spec.name: spec for spec in await inner.list_tools(ctx)}
            return await implicit.serve(inner, call, ctx, tools, None, 0, 0)
        occurrence, attempt = self._key(call, ctx)
        tools = {spec.name: spec for spec in await inner.list_tools(ctx)}
        if call.name not in tools or call.arguments is None:
            # A made-up tool or unparsable arguments fail on their own; a fault on top
            # would hide the agent's mistake.
            return await inner.call_tool(call, ctx)
        seed = ctx.seed if self.seed is None else self.seed
        # An identical repeat of an implicitly faulted call is not drawn again: a transient
        # fault clears on it, a permanent one comes back (see `_implicit`).
        repeat = implicit is not None and implicit.repeat_of(call, ctx) is not None
        drawn = None
        if not repeat:
            drawn = self.plan.draw_fault(
                seed, ctx.scenario_id, ctx.trial, call.name, occurrence, attempt
            )
        if isinstance(drawn, ErrorClass):
            return await self._inject(call, ctx, inner, drawn, occurrence, attempt)
        if implicit is None:
            return await inner.call_tool(call, ctx)
        return await implicit.serve(inner, call, ctx, tools, drawn, seed, occurrence)

    async def _inject(
        self,
        call: ToolCall,
        ctx: ToolContext,
        inner: ToolSource,
        error_class: ErrorClass,
        occurrence: int,
        attempt: int,
    ) -> ToolResult:
        start = time.perf_counter()
        committed = False
        if error_class in COMMITTED_CLASSES:
            ran = await inner.call_tool(call, ctx)
            committed = ran.ok
        retry_after = semantics(error_class).default_retry_after_s
        message = fault_message(error_class, call.name, retry_after)
        payload: dict[str, Any] = {
            "call_id": call.id,
            "tool": call.name,
            "error_class": error_class.value,
            "committed": committed,
            "retry_after_s": retry_after,
            "occurrence": occurrence,
            "attempt": attempt,
        }
        ctx.emit(EventKind.fault_injected, FaultInjected.model_validate(payload))
        return ToolResult(
            call_id=call.id,
            name=call.name,
            output=f"Error: {message}",
            error_class=error_class,
            error=message,
            injected=True,
            latency_s=time.perf_counter() - start,
        )


class FaultySource(WrapperToolSource):
    """A tool source under a `FaultInjector`: calls may fault, the listing is unchanged.

    The injector keeps the per-session counts, so one injector may serve many sources.
    """

    def __init__(self, inner: ToolSource, injector: FaultInjector) -> None:
        super().__init__(inner)
        self.injector = injector

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """`inner`'s result, or the fault the plan draws for this attempt of this call."""
        return await self.injector.call(self.inner, call, ctx)
