"""Turn-level credit as a shaped reward (`SessionEnv(shaped_reward=True)`).

**Potential.** After each step, the session's trace so far is walked by the first-divergence
rules of `scoring` (survival by depth: each tool call judged against the scenario's gold
path, writes by the state they leave). The potential is

    phi = (gold writes made on a correct path) / (gold writes the scenario needs)

and 0 while some call made so far has left every correct path (a wrong or extra write, a
forbidden call, a failed gold call not yet recovered). A scenario without gold writes, or a
session under schema drift (its recorded arguments are not what the domain ran), has
phi = 0 throughout: no shaping.

**Reward.** Each step earns phi(after it) - phi(before it); the last step earns the verdict
minus phi before it (the potential of the end is 0). The shaping terms telescope to zero,
so an episode's return is its verdict, as without shaping: the credit only moves earlier,
to the decisions that earned it (potential-based shaping, which keeps the optimal policies).
"""

from __future__ import annotations

import time
from typing import Any

from ..domains import ToolContext, ToolSource, WrapperToolSource
from ..engine import SessionHooks
from ..engine._internal import SessionPlan
from ..records import (
    EventKind,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from ..records._internal import EventPayload, make_event
from ..scoring._internal import GoldReplays, session_survival
from ..suites import Suite

_NO_DRIFT = "schema drift applied: the recorded arguments are not what the domain ran"


class _Trace:
    """What a session's tools saw so far: (kind, payload, turn, step) in order."""

    def __init__(self) -> None:
        self.items: list[tuple[EventKind, EventPayload, int, int]] = []

    def tee(self, ctx: ToolContext) -> ToolContext:
        """`ctx` whose events are also kept here."""

        def emit(kind: EventKind, payload: EventPayload) -> None:
            ctx.emit(kind, payload)
            self.items.append((kind, payload, ctx.turn, ctx.step))

        return ToolContext(
            run_id=ctx.run_id,
            session_id=ctx.session_id,
            scenario_id=ctx.scenario_id,
            trial=ctx.trial,
            arm=ctx.arm,
            turn=ctx.turn,
            step=ctx.step,
            seed=ctx.seed,
            emit=emit,
        )


class _Traced(WrapperToolSource):
    """The outermost tool source: keeps each call, what the layers inside emitted for it,
    and its result, as the engine records them."""

    def __init__(self, inner: ToolSource, trace: _Trace) -> None:
        super().__init__(inner)
        self._trace = trace

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The tools, their drift events kept."""
        return await self.inner.list_tools(self._trace.tee(ctx))

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """The result, kept with the call."""
        self._trace.items.append((EventKind.tool_call, call, ctx.turn, ctx.step))
        result = await self.inner.call_tool(call, self._trace.tee(ctx))
        self._trace.items.append((EventKind.tool_result, result, ctx.turn, ctx.step))
        return result


class _TracedHooks:
    """The session's hooks, with the trace outside them."""

    def __init__(self, inner: SessionHooks, trace: _Trace) -> None:
        self._inner = inner
        self._trace = trace

    def wrap(self, source: ToolSource) -> ToolSource:
        """The condition's source, traced."""
        return _Traced(self._inner.wrap(source), self._trace)


class Shaping:
    """One episode's potential and shaped rewards (rules: module docstring)."""

    def __init__(self, suite: Suite, plan: SessionPlan, replays: GoldReplays | None = None) -> None:
        """Shaping for the session `plan` describes (its hooks: `hooks`); episodes that
        share `replays` replay each scenario's gold path once between them."""
        self._plan = plan
        self._spec = suite.domain_for(plan.scenario)
        self._replays = GoldReplays() if replays is None else replays
        self._walked_at = 0
        """Trace items the last potential was computed on."""
        self._trace = _Trace()
        self.hooks: SessionHooks = _TracedHooks(plan.hooks, self._trace)
        self.potentials: list[float] = []
        self.rewards: list[float] = []
        self._why_none: str | None = None

    def _partial(self) -> Session:
        plan = self._plan
        events = [
            make_event(
                kind,
                payload,
                run_id=plan.run_id,
                session_id=plan.session_id,
                seq=seq,
                turn=turn,
                step=step,
                t_wall=0.0,
                t_mono=0.0,
            )
            for seq, (kind, payload, turn, step) in enumerate(self._trace.items)
        ]
        return Session(
            run_id=plan.run_id,
            session_id=plan.session_id,
            scenario_id=plan.scenario.id,
            trial=plan.trial,
            arm=plan.arm,
            model="gym",
            events=events,
            termination=TerminationReason.max_steps,  # cut off here: no stop decision yet
            started_at=time.time(),
        )

    def _potential(self) -> float:
        if any(kind is EventKind.drift_applied for kind, *_ in self._trace.items):
            self._why_none = _NO_DRIFT
            return 0.0
        walked = session_survival(self._partial(), self._plan.scenario, self._spec, self._replays)
        if walked.gold_writes == 0:
            self._why_none = "the scenario has no gold writes"
            return 0.0
        if walked.divergence is not None and walked.divergence.decision == "call":
            return 0.0
        return walked.gold_writes_done / walked.gold_writes

    def _last(self) -> float:
        return self.potentials[-1] if self.potentials else 0.0

    def progress(self) -> float:
        """The shaped reward of a step that did not end the session (the potential is walked
        again only when the tools saw something new: a reply changes nothing)."""
        before = self._last()
        grown = len(self._trace.items) != self._walked_at
        now = self._potential() if grown or not self.potentials else before
        self._walked_at = len(self._trace.items)
        self.potentials.append(now)
        self.rewards.append(now - before)
        return now - before

    def finish(self) -> float:
        """The shaping term of the last step (the verdict is added by the caller)."""
        reward = -self._last()
        self.potentials.append(0.0)
        self.rewards.append(reward)
        return reward

    def credit(self) -> dict[str, Any]:
        """The episode's shaping: each step's potential and shaped term, and why there was
        none (or None)."""
        return {
            "potential": list(self.potentials),
            "shaped": list(self.rewards),
            "no_shaping": self._why_none,
        }
