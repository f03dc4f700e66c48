"""Survival by decision depth and the first divergence from every correct path.

**Decisions** are the agent's tool calls, in order, up to and including a successful transfer,
plus its final stop: the last reply without tool calls when the session ended by `agent_stop`
or `user_stop`. A session cut off (`max_steps`, `too_many_errors`) has no stop decision.

Each decision is judged against the scenario's gold actions, replayed on fresh DBs of the
scenario's domain:

- a **write** (a tool the domain marks `write`) is run, as recorded, on the session's own replay
  of its writes (a failed write is run too: it may have changed something before failing; an
  injected fault that did not commit, a backend failure or a call the guard never sent is not:
  `TracedCall.executions`). It is *correct* when the state after it equals
  the state of replaying, in gold order, the gold writes used so far plus one pending gold write
  of the same tool, which it then uses up. Comparing states, not arguments, accepts any
  argument spelling with the same effect and independent writes done in another order. A write
  that leaves the state unchanged is neutral (a failed attempt). Any other write diverges:
  `extra_write` when no gold write is pending, `wrong_argument` when a pending gold write has
  the same tool, `wrong_tool` otherwise.
- a **read** is neutral-but-correct; a failed read (or write) becomes the divergence only if it
  is never recovered (below). A call the scenario forbids diverges whatever it did.
- a successful **transfer** is the agent's stop. Transfers change no state (the verdict never
  sees them), so a transfer, like any stop, is judged by what is left undone.
- the **stop** (or the end of a cut-off session) is correct when no gold write is pending (or
  the state already equals the full gold replay). Otherwise `missing_call` — the session ended,
  however, with a gold write never made. When a call to a pending gold write's tool failed and
  no later call of that tool succeeded, the divergence is placed at that failed call instead:
  `unrecovered_tool_error` when it was the gold call itself (same arguments), `wrong_argument`
  when the tool refused arguments the gold does not have. When the agent ended the session
  itself (`agent_stop` or a transfer) while a scripted user still had turns to send, nothing
  pending, it is a `premature_stop`.
- a session judged a failure whose decisions all passed is charged to the earliest unrecovered
  failed call (`unrecovered_tool_error`) if there is one; else to its stop (`missing_call`)
  when a gold lookup's tool was never called successfully (an information task answered
  without looking); otherwise it failed *on path* (a fact not stated though looked up, a limit
  hit while on path) and has no divergence class.

**Survival** S(d): the share of sessions still on a correct path after d decisions. Censoring
rule: a session that diverged at decision k (0-based) survives d <= k; a session that never
diverged survives every d up to its number of decisions, and beyond it only if it succeeded
(a successful session is carried forward as a survivor; a failed on-path session drops out
after its last decision). So S(0) = 1 and S(∞) = the share of sessions that succeeded without
diverging. Sessions in `infra_error`, without a verdict, or under an applied schema drift (the
recorded arguments are not what the domain ran) are left out and listed with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..domains import Domain, DomainSpec
from ..records import AssistantMessageEvent, EventKind, Scenario, Session, TerminationReason
from ._calls import comparable_args, same_value
from ._trace import (
    DomainFacts,
    GoldReplays,
    GoldStates,
    TraceCache,
    TracedCall,
    apply_quietly,
    calls_of,
    made_once,
)
from ._verdict import _matches as forbidden_match

SURVIVAL_DEFINITIONS: dict[str, str] = {
    "decision": "one agent tool call (up to a successful transfer) or its final stop; text "
    "replies in between are not decisions.",
    "survival_by_depth": "S(d) = share of sessions still on a correct path after d decisions. A "
    "write is correct when the replayed state after it equals the gold replay of the gold "
    "writes used so far plus one pending gold write; reads are neutral; a session that ended "
    "before d counts as a survivor only if it succeeded. Infra errors, unjudged and drifted "
    "sessions are left out.",
    "first_divergence": "the first decision that left every correct path, with its class: "
    "wrong_tool, wrong_argument, extra_write (a write whose replayed state matches no gold "
    "prefix), missing_call (the session ended, by a stop, a transfer, the user or a limit, with "
    "a gold write never made), premature_stop (the agent ended the session while a scripted "
    "user still had turns to send), unrecovered_tool_error (a failed call never followed by a "
    "success of the same tool; a refused call with non-gold arguments is a wrong_argument). A "
    "failed session that never successfully called a gold lookup's tool is a missing_call at "
    "its stop. on_path_failure: failed without a divergence (a fact looked up but not stated, "
    "a limit hit on path). Transfers change no state and are judged as stops.",
    "success_by_need": "session success rate grouped by how many gold writes (and gold actions) "
    "the scenario needs, with 95% Wilson intervals: the same agent, more decisions to get right.",
}


class DivergenceClass(StrEnum):
    """How a session left every correct path."""

    wrong_tool = "wrong_tool"
    wrong_argument = "wrong_argument"
    missing_call = "missing_call"
    premature_stop = "premature_stop"
    extra_write = "extra_write"
    unrecovered_tool_error = "unrecovered_tool_error"


ON_PATH_FAILURE = "on_path_failure"
"""The bucket of failed sessions whose decisions never diverged."""


class FirstDivergence(BaseModel):
    """Where and how a session left every correct path."""

    model_config = ConfigDict(extra="forbid")

    index: int
    """0-based decision index (equal to the number of decisions when the missing decision is
    the one after the last: a session cut off with work pending)."""
    step: int
    """The trace step of that decision (for the virtual one: the last step of the session)."""
    turn: int
    decision: Literal["call", "stop", "end"]
    """A tool call, the final reply, or the end of a session cut off with work pending."""
    kind: DivergenceClass
    tool: str | None = None
    detail: str


class SessionSurvival(BaseModel):
    """One session's path through its decisions."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    scenario_id: str
    trial: int
    success: bool
    decisions: int
    survived: int
    """Correct decisions before the first divergence (all of them when there is none)."""
    divergence: FirstDivergence | None = None
    gold_writes: int
    gold_writes_done: int
    gold_actions: int

    def on_path(self, depth: int) -> bool:
        """Still on a correct path after `depth` decisions (the censoring rule)."""
        if self.divergence is not None:
            return depth <= self.divergence.index
        return depth <= self.decisions or self.success


@dataclass
class _Decision:
    index: int
    step: int
    turn: int
    traced: TracedCall | None
    """None for the stop."""


class _Walk:
    """Judges one session's decisions in order (the rules are in the module docstring)."""

    def __init__(
        self,
        session: Session,
        scenario: Scenario,
        spec: DomainSpec,
        replays: GoldReplays | None = None,
        traces: TraceCache | None = None,
    ) -> None:
        self.session = session
        self.scenario = scenario
        self._spec = spec
        self._domain: Domain[Any] | None = None
        if replays is None:
            self._domain = spec.create()
            facts = DomainFacts.of(self._domain)
        else:
            facts = replays.facts(spec)
        tools = facts.tools
        self.tools = tools
        self.transfers = facts.transfers
        gold = scenario.criteria.gold_actions
        self.gold = gold
        self.gold_writes = [
            i
            for i, a in enumerate(gold)
            if a.tool not in self.transfers and a.tool in tools and tools[a.tool].write
        ]
        self.states = (
            GoldStates(spec, scenario, self.gold_writes)
            if replays is None
            else replays.states(spec, scenario, self.gold_writes)
        )
        self.used: frozenset[int] = frozenset()
        self.state = facts.start
        self.calls = calls_of(session, traces)
        self.failures: list[_Decision] = []
        self.achieved: set[int] = set()
        """Call positions whose write was used up by a gold write (effect achieved)."""
        self.decisions = self._decisions()

    def _decisions(self) -> list[_Decision]:
        out: list[_Decision] = []
        transferred = False
        for traced in self.calls:
            out.append(_Decision(len(out), traced.step, traced.turn, traced))
            if traced.call.name in self.transfers and not traced.failed:
                transferred = True
                break
        end = self.session.termination
        if not transferred and end in (TerminationReason.agent_stop, TerminationReason.user_stop):
            replies = [
                e for e in self.session.events_of(AssistantMessageEvent) if not e.payload.tool_calls
            ]
            if replies:
                out.append(_Decision(len(out), replies[-1].step, replies[-1].turn, None))
        return out

    # -- helpers ----------------------------------------------------------------------------

    @property
    def domain(self) -> Domain[Any]:
        """This session's own domain, made when its first write is replayed."""
        if self._domain is None:
            self._domain = self._spec.create()
        return self._domain

    def pending(self) -> list[int]:
        """Gold writes not used up yet, in gold order."""
        return [i for i in self.gold_writes if i not in self.used]

    def _recovered(self, failed: _Decision) -> bool:
        traced = failed.traced
        if traced is None or traced.position in self.achieved:
            return True
        return any(
            later.call.name == traced.call.name and not later.failed
            for later in self.calls[traced.position + 1 :]
        )

    def _diverge(
        self, at: _Decision | None, kind: DivergenceClass, detail: str, tool: str | None = None
    ) -> FirstDivergence:
        if at is None:
            last = self.session.events[-1] if self.session.events else None
            return FirstDivergence(
                index=len(self.decisions),
                step=last.step if last else 0,
                turn=last.turn if last else 0,
                decision="end",
                kind=kind,
                tool=tool,
                detail=detail,
            )
        name = tool if tool is not None else (at.traced.call.name if at.traced else None)
        return FirstDivergence(
            index=at.index,
            step=at.step,
            turn=at.turn,
            decision="call" if at.traced else "stop",
            kind=kind,
            tool=name,
            detail=detail,
        )

    def _names(self, indices: Iterable[int]) -> str:
        return ", ".join(f"#{i} {self.gold[i].tool}" for i in indices)

    # -- the rules --------------------------------------------------------------------------

    def _write(self, d: _Decision, traced: TracedCall, forbidden: bool) -> FirstDivergence | None:
        name = traced.call.name
        args = traced.call.arguments
        after = self.state
        if traced.executions and args is not None:
            for _ in range(traced.executions):
                apply_quietly(self.domain, name, args)
            after = self.domain.state_hash()
        same_tool = [i for i in self.pending() if self.gold[i].tool == name]
        exact = {i for i in same_tool if args is not None and self._exact(i, args)}
        for i in sorted(same_tool, key=lambda i: (i not in exact, i)):
            if not forbidden and self.states.hash(self.used | {i}) == after:
                self.used = self.used | {i}
                self.state = after
                self.achieved.add(traced.position)
                return None
        if after == self.state and not forbidden:
            if traced.failed:
                self.failures.append(d)
            return None
        if forbidden:
            return self._diverge(d, self._write_class(same_tool), "a call the scenario forbids")
        if exact:
            i = min(exact)
            detail = (
                f"same arguments as gold write #{i}, but the state differs from the gold replay "
                "(an order-dependent write made out of order, or an earlier side effect)"
            )
        elif same_tool:
            detail = f"no pending gold write of {name} has this effect (pending: "
            detail += self._names(same_tool) + ")"
        elif self.pending():
            detail = f"gold writes pending: {self._names(self.pending())}"
        else:
            detail = "every gold write was already made"
        return self._diverge(d, self._write_class(same_tool), detail)

    def _exact(self, i: int, args: dict[str, Any]) -> bool:
        spec = self.tools.get(self.gold[i].tool)
        return same_value(comparable_args(args, spec), comparable_args(self.gold[i].args, spec))

    def _write_class(self, same_tool: list[int]) -> DivergenceClass:
        if not self.pending():
            return DivergenceClass.extra_write
        return DivergenceClass.wrong_argument if same_tool else DivergenceClass.wrong_tool

    def _unrecovered(
        self, failed: _Decision, traced: TracedCall, pending: list[int]
    ) -> FirstDivergence:
        result = traced.result
        cls = result.error_class.value if result and result.error_class else "no result"
        args = traced.call.arguments
        right = args is not None and any(
            self.gold[i].tool == traced.call.name and self._exact(i, args) for i in pending
        )
        if right:
            # The very call the gold needs failed, and the agent never got it through.
            detail = f"the gold call failed ({cls}) and no later call of it succeeded"
            kind = DivergenceClass.unrecovered_tool_error
        else:
            # The tool refused a call the gold does not make; it was never made right.
            detail = f"arguments no pending gold write has; the tool refused ({cls})"
            kind = DivergenceClass.wrong_argument
        return self._diverge(failed, kind, f"{detail}; pending: {self._names(pending)}")

    def _end(self, stop: _Decision | None, transfer: bool) -> FirstDivergence | None:
        pending = self.pending()
        if pending and self.state == self.states.hash(self.states.all):
            pending = []  # the remaining gold writes change nothing the session had not done
        if pending:
            tools = {self.gold[i].tool for i in pending}
            for failed in self.failures:
                traced = failed.traced
                if traced and traced.call.name in tools and not self._recovered(failed):
                    return self._unrecovered(failed, traced, pending)
            how = "transferred" if transfer else ("stopped" if stop else "was cut off")
            return self._diverge(
                stop,
                DivergenceClass.missing_call,
                f"{how} with gold writes never made: {self._names(pending)}",
                tool=self.gold[pending[0]].tool,
            )
        turns = self.scenario.user.turns or []
        sent = len(self.session.of_kind(EventKind.user_message))
        agent_ended = transfer or self.session.termination is TerminationReason.agent_stop
        if stop is not None and agent_ended and sent < len(turns):
            how = "transferred" if transfer else "ended the session"
            return self._diverge(
                stop,
                DivergenceClass.premature_stop,
                f"{how} with {len(turns) - sent} scripted user turn(s) still unsent",
            )
        if not self.session.success:
            for failed in self.failures:
                if not self._recovered(failed):
                    return self._diverge(
                        failed,
                        DivergenceClass.unrecovered_tool_error,
                        "the session failed; this failed call was never followed by a success "
                        "of the same tool",
                    )
            done = {c.call.name for c in self.calls if not c.failed}
            skipped = [
                i
                for i, a in enumerate(self.gold)
                if i not in self.gold_writes and a.tool not in self.transfers and a.tool not in done
            ]
            if skipped:
                how = "stopped" if stop else "was cut off"
                return self._diverge(
                    stop,
                    DivergenceClass.missing_call,
                    f"failed, and {how} without any successful call of gold lookup(s) "
                    + self._names(skipped),
                    tool=self.gold[skipped[0]].tool,
                )
        return None

    def run(self) -> FirstDivergence | None:
        """The first divergence, or None when the session stayed on a correct path."""
        for d in self.decisions:
            traced = d.traced
            if traced is None:
                return self._end(d, transfer=False)
            call = traced.call
            forbidden = any(
                forbidden_match(call, f, traced.turn) for f in self.scenario.criteria.forbidden
            )
            if call.name in self.transfers and not traced.failed:
                if forbidden:
                    return self._diverge(d, DivergenceClass.premature_stop, "a forbidden transfer")
                return self._end(d, transfer=True)
            spec = self.tools.get(call.name)
            if spec is not None and spec.write:
                found = self._write(d, traced, forbidden)
                if found is not None:
                    return found
            elif forbidden:
                return self._diverge(d, DivergenceClass.wrong_tool, "a call the scenario forbids")
            elif traced.failed:
                self.failures.append(d)
        return self._end(None, transfer=False)


def session_survival(
    session: Session,
    scenario: Scenario,
    spec: DomainSpec,
    replays: GoldReplays | None = None,
    traces: TraceCache | None = None,
) -> SessionSurvival:
    """Judge one session's decisions against the scenario's gold replay (rules: module doc).
    Sessions judged with one `replays` share each scenario's gold-state replays (and with
    one `traces`, each session's traced calls with the other metrics; the survival itself
    is made once there)."""
    key = (session, scenario, spec)
    return made_once(traces, "survival", key, _walked, replays, traces)


def _walked(
    session: Session,
    scenario: Scenario,
    spec: DomainSpec,
    replays: GoldReplays | None,
    traces: TraceCache | None,
) -> SessionSurvival:
    walk = _Walk(session, scenario, spec, replays, traces)
    divergence = walk.run()
    n = len(walk.decisions)
    return SessionSurvival(
        session_id=session.session_id,
        scenario_id=session.scenario_id,
        trial=session.trial,
        success=session.success,
        decisions=n,
        survived=divergence.index if divergence else n,
        divergence=divergence,
        gold_writes=len(walk.gold_writes),
        gold_writes_done=len(walk.used),
        gold_actions=len(scenario.criteria.gold_actions),
    )
