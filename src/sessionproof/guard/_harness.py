"""The guard inside the harness: a tool-source wrapper driven by the agent-visible specs."""

from __future__ import annotations

from collections.abc import Mapping

from ..domains import ToolContext, ToolSource, WrapperToolSource
from ..records import ErrorClass, EventKind, ToolCall, ToolResult, ToolSpec
from ..taxonomy._internal import retry_after_s
from ._calls import unknown_tool_hint, unknown_tool_text
from ._core import Guard
from ._hints import SchemaCheck
from ._records import Decision, GuardDecision
from ._run import Attempt, Final, GuardRun, ToolPolicy


class _SpecPolicies:
    """Policies derived from ToolSpecs, compiled once per spec object."""

    def __init__(self, idempotency_keys: Mapping[str, str]) -> None:
        self.idempotency_keys = dict(idempotency_keys)
        self._cache: dict[str, tuple[ToolSpec, ToolPolicy]] = {}

    def policy(self, spec: ToolSpec) -> ToolPolicy:
        cached = self._cache.get(spec.name)
        if cached is not None and cached[0] is spec:
            return cached[1]
        policy = ToolPolicy(
            name=spec.name,
            write=spec.write,
            idempotency_key=self.idempotency_keys.get(spec.name),
            args_check=SchemaCheck(spec.parameters, f"{spec.name} arguments"),
            output_check=SchemaCheck(spec.output_schema, f"{spec.name} output")
            if spec.output_schema
            else None,
        )
        self._cache[spec.name] = (spec, policy)
        return policy


def _attempt(result: ToolResult) -> Attempt:
    if result.ok:
        return Attempt(ok=True, text=result.output, value=result, injected=result.injected)
    return Attempt(
        ok=False,
        text=result.output,
        value=result,
        error_class=result.error_class,
        retry_after=retry_after_s(result.output) if result.error_class else None,
        injected=result.injected,
    )


def _tool_result(call: ToolCall, final: Final) -> ToolResult:
    attempt = final.attempt
    raw = attempt.value if attempt is not None else None
    if isinstance(raw, ToolResult) and raw.output == final.output:
        return raw  # passed through untouched
    return ToolResult(
        call_id=call.id,
        name=call.name,
        output=final.output,
        error_class=final.error_class,
        error=final.output.removeprefix("Error: ").split("\n", 1)[0] if final.error_class else None,
        injected=attempt.injected if attempt is not None else False,
        latency_s=raw.latency_s if isinstance(raw, ToolResult) else 0.0,
    )


class GuardedSource(WrapperToolSource):
    """A tool source under the guard: every call is validated against the tool's spec as
    the agent last listed it (the guard wraps drift, so it sees drifted schemas), retried by
    class, broken per tool, and every decision is emitted as a `guard_decision` event
    (payload: the `GuardDecision` itself). The listing passes through unchanged.

    `idempotency_keys` maps a write tool to the argument that carries its idempotency key.
    """

    def __init__(
        self, inner: ToolSource, guard: Guard, idempotency_keys: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(inner)
        self.guard = guard
        self._policies = _SpecPolicies(idempotency_keys or {})
        self._visible: list[ToolSpec] | None = None

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """`inner`'s tools; remembered, since calls are checked against what the agent saw."""
        self._visible = await self.inner.list_tools(ctx)
        return self._visible

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """The guarded call: validated, retried, broken, or repaired with hints."""
        visible = self._visible or await self.inner.list_tools(ctx)
        spec = next((s for s in visible if s.name == call.name), None)
        guard = self.guard

        def emit(decision: GuardDecision) -> None:
            ctx.emit(EventKind.guard_decision, decision)

        if spec is None:
            hint = unknown_tool_hint(call.name, [s.name for s in visible])
            run = GuardRun(guard, ToolPolicy(name=call.name), call.id, {}, emit=emit)
            text = unknown_tool_text(hint)
            final = Final(Decision.repair, text, ErrorClass.validation_error, hints=[hint])
            return _tool_result(call, run.finish(final, hint.problem))
        run = GuardRun(
            guard, self._policies.policy(spec), call.id, call.arguments, call.parse_error, emit=emit
        )
        inner = self.inner

        async def attempt() -> Attempt:
            return _attempt(await inner.call_tool(call, ctx))

        return _tool_result(call, await guard.run_async(run, attempt))


def guard_source(
    guard: Guard, inner: ToolSource, idempotency_keys: Mapping[str, str] | None = None
) -> GuardedSource:
    """Wrap a tool source with `guard` (see `GuardedSource`)."""
    return GuardedSource(inner, guard, idempotency_keys)
