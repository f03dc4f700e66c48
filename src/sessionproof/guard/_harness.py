"""The guard inside the harness: a `ToolBoundary` wrapper driven by the agent-visible specs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..records import ErrorClass, EventKind, ToolCall, ToolResult, ToolSpec
from ..taxonomy import retry_after_s
from ._calls import unknown_tool_hint, unknown_tool_text
from ._core import Guard
from ._hints import SchemaCheck
from ._records import Decision, GuardDecision
from ._run import Attempt, Final, GuardRun, ToolPolicy

if TYPE_CHECKING:
    from ..engine import CallContext, ToolBoundary

SpecSource = Callable[[], Sequence[ToolSpec] | None]
"""Returns the tools as the agent sees them now (None: use the domain's own)."""


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


def guard_boundary(
    guard: Guard,
    inner: ToolBoundary,
    specs: SpecSource | None = None,
    idempotency_keys: Mapping[str, str] | None = None,
) -> ToolBoundary:
    """Wrap a tool boundary with `guard`: every call is validated against the tool's spec as
    the agent sees it, retried by class, broken per tool, and every decision is emitted as a
    `guard_decision` event (payload: the `GuardDecision` itself).

    `idempotency_keys` maps a write tool to the argument that carries its idempotency key.
    """
    policies = _SpecPolicies(idempotency_keys or {})

    async def guarded(call: ToolCall, ctx: CallContext) -> ToolResult:
        visible = (specs() if specs is not None else None) or ctx.domain.tools()
        spec = next((s for s in visible if s.name == call.name), None)

        def emit(decision: GuardDecision) -> None:
            ctx.emit(EventKind.guard_decision, decision)

        if spec is None:
            hint = unknown_tool_hint(call.name, [s.name for s in visible])
            run = GuardRun(guard, ToolPolicy(name=call.name), call.id, {}, emit=emit)
            text = unknown_tool_text(hint)
            final = Final(Decision.repair, text, ErrorClass.validation_error, hints=[hint])
            return _tool_result(call, run.finish(final, hint.problem))
        run = GuardRun(
            guard, policies.policy(spec), call.id, call.arguments, call.parse_error, emit=emit
        )

        async def attempt() -> Attempt:
            return _attempt(await inner(call, ctx))

        return _tool_result(call, await guard.run_async(run, attempt))

    return guarded
