"""Schema drift: the agent sees a changed API; the domain behind it still works.

`DriftPlan.parse("KIND[:P%][@TURN[@TOOL]]")` names the change, in what share of sessions it
happens, from which user turn and on which tool; `DriftHooks` applies it to one session.
Without `@TOOL` the drifted tool is chosen from the seed among the tools the kind applies to
(never a transfer tool, since the engine recognises those by name), preferring tools the
caller names (e.g. the scenario's gold actions) and tools with parameters; with `@TOOL` only
that tool drifts (a session without it, or where the kind does not apply to it, meets no
drift). `:P%` drifts that share of sessions, drawn from the session seed (a canary rollout:
some sessions see the new API version, the rest the old); without it every session drifts.
`@TOOL` follows a turn, so `@x` alone stays a malformed turn. `rename_param@2@book_reservation`:
from the second user turn, in every session, a parameter of `book_reservation` is renamed;
`rename_param:50%@1@book_reservation`: the same from the start, in half the sessions.

Like a real API after a release, the drifted tool validates calls against its new schema: a
call in the old form (old parameter name, old type, old enum value, old tool name) fails
as `validation_error` with the API's message, and a call in the new form is translated back
and executed, so the task stays solvable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..domains import ToolContext, ToolSource, WrapperToolSource
from ..domains._internal import Emit
from ..errors import ConfigError
from ..records import ErrorClass, EventKind, ToolCall, ToolResult, ToolSpec
from ..records._internal import DriftApplied
from ._drift_kinds import BUILDERS, DriftKind, ToolDrift
from ._hash import stable_pick, unit_draw

if TYPE_CHECKING:
    import jsonschema

_SPEC = re.compile(r"^([a-z_]+)(?::(\d+(?:\.\d+)?)%)?(?:@(\d+)(?:@([A-Za-z_][A-Za-z0-9_.\-]*))?)?$")


class DriftPlan(BaseModel):
    """Which schema drift a session meets, and from which user turn on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str
    kind: DriftKind
    at_turn: int = 1
    """1-based user turn from which the drift is in effect (`@2`: the second user message
    onwards); 1 (no `@`) means from the start."""
    tool: str | None = None
    """The one tool that drifts (`@TOOL`); None: chosen from the seed."""
    share: float = 1.0
    """Share of sessions that meet the drift (`:P%`), drawn per session seed."""

    @classmethod
    def parse(cls, spec: str) -> DriftPlan:
        """Parse `KIND[:P%][@TURN[@TOOL]]`; raises `ConfigError`."""
        text = spec.strip()
        match = _SPEC.match(text)
        kinds = ", ".join(k.value for k in DriftKind)
        if match is None:
            raise ConfigError(
                f"drift spec {spec!r}: write KIND or KIND@TURN (TURN a user turn from 1), "
                f"optionally KIND:P%@TURN@TOOL (P a share of sessions, TOOL the one tool "
                f"that drifts); kinds: {kinds}"
            )
        name, percent, turn, tool = match.groups()
        if name not in DriftKind.__members__:
            raise ConfigError(f"drift spec {spec!r}: unknown drift kind {name!r}; kinds: {kinds}")
        at_turn = int(turn) if turn is not None else 1
        if at_turn < 1:
            raise ConfigError(f"drift spec {spec!r}: turns count from 1")
        share = float(percent) / 100 if percent is not None else 1.0
        if not 0 < share <= 1:
            raise ConfigError(f"drift spec {spec!r}: the share must be above 0% and at most 100%")
        return cls(spec=text, kind=DriftKind(name), at_turn=at_turn, tool=tool, share=share)

    def drifts(self, seed: int) -> bool:
        """True when the session seeded with `seed` meets the drift (its share's draw)."""
        return self.share >= 1 or unit_draw("drift-share", self.spec, seed) < self.share

    def active(self, turn: int) -> bool:
        """True at the engine's 0-based user turn index `turn`."""
        return turn + 1 >= self.at_turn


def _is_transfer(name: str) -> bool:
    return name.startswith("transfer")


def choose_drift(
    kind: DriftKind, tools: Sequence[ToolSpec], seed: int, prefer: Sequence[str] = ()
) -> ToolDrift | None:
    """The drift `kind` makes to one tool of `tools`, chosen from `seed`; None if none fits."""
    names = {t.name for t in tools}
    build = BUILDERS[kind]
    options = {
        t.name: drift
        for t in tools
        if not _is_transfer(t.name) and (drift := build(t, seed, names)) is not None
    }
    if not options:
        return None
    pool = [n for n in options if n in set(prefer)] or list(options)
    with_params = [n for n in pool if options[n].original.parameters.get("properties")]
    return options[stable_pick(sorted(with_params or pool), "drift-tool", seed, kind.value)]


def _violations(validator: jsonschema.protocols.Validator, args: dict[str, Any]) -> list[str]:
    out = []
    for err in sorted(validator.iter_errors(args), key=lambda e: str(list(e.absolute_path))):
        where = ".".join(str(p) for p in err.absolute_path) or "(arguments)"
        out.append(f"{where}: {err.message}")
    return out


class DriftHooks:
    """Applies one `DriftPlan` to one session: the tools the agent sees, the calls it makes.

    `wrap(source)` is the session's drifted source (`DriftedSource`); `tools` is its listing
    side as a plain function.
    """

    def __init__(self, plan: DriftPlan, seed: int, prefer_tools: Sequence[str] = ()) -> None:
        self.plan = plan
        self.seed = seed
        self.prefer_tools = tuple(prefer_tools)
        self._chosen = False
        self._drift: ToolDrift | None = None
        self._validator: jsonschema.protocols.Validator | None = None
        self._announced = False

    @property
    def drift(self) -> ToolDrift | None:
        """The change chosen for this session (None before the tools were seen, or when the
        kind applies to no tool)."""
        return self._drift

    def _choose(self, tools: Sequence[ToolSpec]) -> ToolDrift | None:
        if not self._chosen:
            self._chosen = True
            if self.plan.tool is not None:
                tools = [t for t in tools if t.name == self.plan.tool]
            if self.plan.drifts(self.seed):
                self._drift = choose_drift(self.plan.kind, tools, self.seed, self.prefer_tools)
            if self._drift is not None:
                import jsonschema  # only a session that drifts a tool validates against it

                params = self._drift.drifted.parameters
                cls = jsonschema.validators.validator_for(params)
                self._validator = cls(params)
        return self._drift

    def tools(self, tools: list[ToolSpec], turn: int, emit: Emit) -> list[ToolSpec]:
        """The tool list the agent sees at 0-based user turn `turn`."""
        drift = self._choose(tools)
        if not self.plan.active(turn) or not self.plan.drifts(self.seed):
            # Outside the plan's share the session sees the old API: nothing to announce.
            return tools
        if not self._announced:
            self._announced = True
            payload: dict[str, Any] = {
                "kind": self.plan.kind.value,
                "tool": drift.original.name if drift else None,
                "detail": drift.detail if drift else self._nothing(),
                "turn": turn,
                "applied": drift is not None,
            }
            if drift is not None and drift.drifted.name != drift.original.name:
                payload["new_tool"] = drift.drifted.name
            emit(EventKind.drift_applied, DriftApplied.model_validate(payload))
        if drift is None:
            return tools
        return [drift.drifted if t.name == drift.original.name else t for t in tools]

    def _nothing(self) -> str:
        if self.plan.tool is not None:
            return f"{self.plan.kind} does not apply to {self.plan.tool!r} (or it is not listed)"
        return f"no tool where {self.plan.kind} applies"

    def wrap(self, inner: ToolSource) -> ToolSource:
        """A source that speaks the drifted form to the agent and the old one to `inner`."""
        return DriftedSource(inner, self)

    async def call(self, inner: ToolSource, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """One call in the agent's (drifted) form, served by `inner` in its own form."""
        own = await inner.list_tools(ctx)
        drift = self._choose(own)
        if drift is None or not self.plan.active(ctx.turn):
            return await inner.call_tool(call, ctx)
        if call.name == drift.drifted.name:
            return await self._translated(call, ctx, inner, drift)
        if call.name == drift.original.name:  # only reachable after rename_tool
            names = sorted(
                drift.drifted.name if t.name == drift.original.name else t.name for t in own
            )
            text = f"unknown tool {call.name!r}; available tools: {', '.join(names)}"
            return _rejected(call, text)
        return await inner.call_tool(call, ctx)

    async def _translated(
        self, call: ToolCall, ctx: ToolContext, inner: ToolSource, drift: ToolDrift
    ) -> ToolResult:
        args = call.arguments
        if args is not None and self._validator is not None:
            problems = _violations(self._validator, args)
            if problems:
                return _rejected(call, f"invalid arguments for {call.name}: {'; '.join(problems)}")
            args = drift.to_domain(args)
        inner_call = call.model_copy(update={"name": drift.original.name, "arguments": args})
        result = await inner.call_tool(inner_call, ctx)
        update: dict[str, Any] = {"name": call.name}
        if result.ok and drift.from_domain is not None:
            try:
                value = json.loads(result.output)
            except ValueError:
                value = None
            if isinstance(value, dict | list):
                update["output"] = json.dumps(drift.from_domain(value))
        return result.model_copy(update=update)


class DriftedSource(WrapperToolSource):
    """A tool source under one session's drift: the listing shows the changed API, calls in
    its form are translated back to the source's own."""

    def __init__(self, inner: ToolSource, hooks: DriftHooks) -> None:
        super().__init__(inner)
        self.hooks = hooks

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """`inner`'s tools, drifted from the plan's turn on (announced once, when it starts)."""
        return self.hooks.tools(await self.inner.list_tools(ctx), ctx.turn, ctx.emit)

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """The call translated to `inner`'s form (or rejected, as the new API would)."""
        return await self.hooks.call(self.inner, call, ctx)


def _rejected(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(
        call_id=call.id,
        name=call.name,
        output=f"Error: {text}",
        error_class=ErrorClass.validation_error,
        error=text,
    )
