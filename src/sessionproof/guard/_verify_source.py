"""The verifying guard where tools are called: a tool source in the harness, or a `Guard`'s
registered tools in a team's own service."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..domains import ToolContext, ToolSource, WrapperToolSource
from ..records import EventKind, ToolCall, ToolResult, ToolSpec
from ._core import Guard
from ._records import Decision, GuardDecision, GuardResult
from ._verify import VerifyConfig
from ._verify_run import Answer, Verifier


def _params(spec: ToolSpec | None) -> list[str] | None:
    if spec is None:
        return None
    props = (spec.parameters or {}).get("properties")
    return list(props) if isinstance(props, Mapping) else None


class VerifiedSource(WrapperToolSource):
    """A tool source under the verification policies of a `VerifyConfig`: reads the policies
    need go to the same source (the guard's own calls, with ids `CALL:before`, `:after`,
    `:pre`), and every decision is a `guard_decision` event. One per session."""

    def __init__(self, inner: ToolSource, config: VerifyConfig) -> None:
        super().__init__(inner)
        self.config = config
        self._verifiers: dict[str, Verifier] = {}

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """The call under the policies that name its tool (any other call passes through)."""
        if call.arguments is None:
            return await self.inner.call_tool(call, ctx)  # unparsable: nothing to verify
        verifier = self._verifiers.get(ctx.session_id)
        if verifier is None:
            verifier = Verifier(self.config, lambda d: ctx.emit(EventKind.guard_decision, d))
            self._verifiers[ctx.session_id] = verifier
        inner = self.inner

        async def caller(tool: str, args: dict[str, Any], call_id: str) -> Answer:
            got = await inner.call_tool(ToolCall(id=call_id, name=tool, arguments=args), ctx)
            return Answer(got.ok, got.output, got.error_class, got)

        async def params(tool: str) -> list[str] | None:
            specs = await inner.list_tools(ctx)
            return _params(next((s for s in specs if s.name == tool), None))

        answer = await verifier.call(caller, params, call.name, dict(call.arguments), call.id)
        raw = answer.raw
        if isinstance(raw, ToolResult) and raw.call_id == call.id and raw.output == answer.text:
            return raw
        return ToolResult(
            call_id=call.id,
            name=call.name,
            output=answer.text,
            error_class=answer.error_class,
            error=answer.text.removeprefix("Error: ") if answer.error_class else None,
        )


def verify_source(inner: ToolSource, config: VerifyConfig) -> VerifiedSource:
    """Wrap a tool source with the verification policies of `config`."""
    return VerifiedSource(inner, config)


class VerifiedGuard:
    """A `Guard`'s registered tools under verification policies, for a team's own service:
    `await verified.call(name, arguments)` returns a `GuardResult` like `Guard.call`, its
    `decisions` including the verification's. Reads the policies need are made through the
    guard (validated, retried). Make one per conversation: it remembers applied writes."""

    def __init__(
        self,
        guard: Guard,
        config: VerifyConfig,
        on_decision: Callable[[GuardDecision], None] | None = None,
    ) -> None:
        self.guard = guard
        self.config = config
        self._decisions: list[GuardDecision] = []

        def emit(decision: GuardDecision) -> None:
            self._decisions.append(decision)
            if on_decision is not None:
                on_decision(decision)

        self._verifier = Verifier(config, emit)
        self._calls = 0

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, call_id: str | None = None
    ) -> GuardResult:
        """Run a registered tool under the policies (arguments as a mapping)."""
        self._calls += 1
        cid = call_id or f"call-{self._calls}"
        self._decisions = []
        guard = self.guard

        async def caller(tool: str, args: dict[str, Any], call_id: str) -> Answer:
            got = await guard.call(tool, args, call_id=call_id)
            return Answer(got.ok, got.output, got.error_class, got)

        async def params(tool: str) -> list[str] | None:
            return None  # derived from `arguments` maps or id-named arguments

        answer = await self._verifier.call(caller, params, name, dict(arguments or {}), cid)
        raw = answer.raw
        if isinstance(raw, GuardResult) and raw.output == answer.text and raw.tool == name:
            # The verification's decisions, then the guard's for the answer handed back.
            return raw.model_copy(update={"decisions": [*self._decisions, *raw.decisions]})
        decision = self._decisions[-1].decision if self._decisions else Decision.pass_
        return GuardResult(
            tool=name,
            ok=answer.ok,
            output=answer.text,
            error_class=answer.error_class,
            decision=decision,
            decisions=list(self._decisions),
        )
