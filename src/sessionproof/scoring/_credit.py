"""Turn-level and step-level credit of one session, derived from its trace (docs/rollouts.md).

The **steps** are the session's decisions as survival counts them (`_survival`): each tool call
in order (up to a successful transfer) and the final stop; a session cut off with gold work
pending gets one more, virtual `end` step where the first divergence places it. Let `n` be the
number of steps, `R` the outcome reward of a judged session.

- `basis = divergence` (the scenario and its domain are known, no drift applied): a potential
  rises by `1/n` with every step on a correct path; the step that settles the session is charged
  the difference between `R` and what the steps before it earned. The settling step is the first
  divergence, or the last step when the session never diverged. So an on-path step before it
  earns `1/n`, the settling step `R - k/n` (k: the steps before it), the steps after a divergence
  `0` (their quality is unknown once off every correct path). A passed session without a
  divergence gives every step `1/n` (R = 1).
- `basis = outcome` (the first divergence cannot be had: the reason is said): every step earns
  `R/n`.
- `basis = none` (the session was not judged): no credit at all, never a zero.

Invariant: for a judged session the step credits plus `unassigned` (R when there is no step,
else 0) sum to `R`, and each turn's credit is the sum of its steps' credits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..domains import DomainSpec
from ..errors import SessionproofError
from ..records import (
    AssistantMessageEvent,
    EventKind,
    Scenario,
    Session,
    TerminationReason,
    ToolCall,
    ToolCallEvent,
)
from ._recovery import _SessionView
from ._survival import FirstDivergence, _Decision, _Walk
from ._survival_report import survival_skip_reason
from ._trace import GoldReplays

Basis = Literal["divergence", "outcome", "none"]
"""What a session's credit rests on (the module's doc defines each)."""


class FaultCredit(BaseModel):
    """One tool failure the step met (injected or natural) and whether it was recovered."""

    model_config = ConfigDict(extra="forbid")

    error_class: str
    injected: bool
    recovered: bool
    """As `error_recovery_rate` judges it (scoring/_recovery.py)."""


class StepCredit(BaseModel):
    """One decision of the session and its credit."""

    model_config = ConfigDict(extra="forbid")

    index: int
    """0-based decision index."""
    step: int
    """The trace step of the decision (events carry it)."""
    turn: int
    decision: Literal["call", "stop", "end"]
    tool: str | None = None
    call_id: str | None = None
    on_path: bool | None
    """Still on a correct path when taken (None: not known, basis `outcome` or `none`)."""
    diverged: bool = False
    """This decision is the first divergence."""
    credit: float | None
    faults: list[FaultCredit] = Field(default_factory=list)


class TurnCredit(BaseModel):
    """One user turn: its decisions' credit summed."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    decisions: int
    credit: float | None
    on_path: bool | None
    """Every decision of the turn was on a correct path (None: not known)."""
    broke: bool = False
    """The first divergence happened in this turn."""


class SessionCredit(BaseModel):
    """The credit of one session: per step, per turn, and what it rests on."""

    model_config = ConfigDict(extra="forbid")

    basis: Basis
    reason: str | None = None
    """Why the basis is not `divergence` (None when it is)."""
    reward: float | None
    unassigned: float | None
    """The part of the reward no step carries: R when there is no step, else 0."""
    divergence: FirstDivergence | None = None
    broken_turn: int | None = None
    """The turn of the first divergence."""
    steps: list[StepCredit]
    turns: list[TurnCredit]
    faults: int = 0
    recovered_faults: int = 0


def _plain_decisions(session: Session) -> list[tuple[_Decision, ToolCall | None]]:
    """The decisions when no domain says which tools transfer: every tool call, and the last
    reply without calls when the agent or the user ended the session."""
    out: list[tuple[_Decision, ToolCall | None]] = []
    for event in session.events_of(ToolCallEvent):
        out.append((_Decision(len(out), event.step, event.turn, None), event.payload))
    if session.termination in (TerminationReason.agent_stop, TerminationReason.user_stop):
        replies = [e for e in session.events_of(AssistantMessageEvent) if not e.payload.tool_calls]
        if replies:
            out.append((_Decision(len(out), replies[-1].step, replies[-1].turn, None), None))
    return out


def _walked(
    session: Session,
    scenario: Scenario | None,
    spec: DomainSpec | None,
    replays: GoldReplays | None,
) -> tuple[list[tuple[_Decision, ToolCall | None]], FirstDivergence | None, str | None]:
    """(decisions, first divergence, why no divergence analysis: None when there is one)."""
    why = survival_skip_reason(session, scenario)
    if why is None and (scenario is None or spec is None):
        why = "scenario unavailable"
    if why is not None or scenario is None or spec is None:
        return _plain_decisions(session), None, why
    try:
        walk = _Walk(session, scenario, spec, replays)
        taken = [(d, d.traced.call if d.traced else None) for d in walk.decisions]
        return taken, walk.run(), None
    except SessionproofError as exc:
        return _plain_decisions(session), None, f"divergence analysis failed: {str(exc)[:80]}"


def _faults(session: Session) -> dict[str, list[FaultCredit]]:
    view = _SessionView(session)
    found: dict[str, list[FaultCredit]] = {}
    for failure in view.failures:
        found.setdefault(failure.call_id, []).append(
            FaultCredit(
                error_class=failure.error_class.value,
                injected=failure.injected,
                recovered=view.recovered(failure),
            )
        )
    return found


def _credits(n: int, reward: float | None, settle: int | None, basis: Basis) -> list[float | None]:
    if reward is None:
        return [None] * n
    if basis == "outcome" or settle is None:
        return [reward / n] * n
    return [
        1.0 / n if i < settle else (reward - settle / n if i == settle else 0.0) for i in range(n)
    ]


def session_credit(
    session: Session,
    scenario: Scenario | None,
    spec: DomainSpec | None,
    replays: GoldReplays | None = None,
) -> SessionCredit:
    """The turn-level and step-level credit of `session` (the rule: this module's doc).
    `scenario` and `spec` enable the divergence basis; `replays` shares gold replays between
    the sessions of one scenario."""
    decisions, divergence, why = _walked(session, scenario, spec, replays)
    reward = session.outcome.reward if session.judged and session.outcome is not None else None
    basis: Basis = "none" if reward is None else ("outcome" if why is not None else "divergence")
    if basis == "none":
        why = survival_skip_reason(session, None) or "not judged"
    faults = _faults(session)
    steps = [
        StepCredit(
            index=d.index,
            step=d.step,
            turn=d.turn,
            decision="stop" if call is None else "call",
            tool=None if call is None else call.name,
            call_id=None if call is None else call.id,
            on_path=None,
            credit=None,
            faults=[] if call is None else faults.get(call.id, []),
        )
        for d, call in decisions
    ]
    if divergence is not None and divergence.decision == "end":
        steps.append(
            StepCredit(
                index=divergence.index,
                step=divergence.step,
                turn=divergence.turn,
                decision="end",
                tool=divergence.tool,
                on_path=None,
                credit=None,
            )
        )
    n = len(steps)
    settle: int | None = None
    if basis == "divergence":
        settle = divergence.index if divergence is not None else n - 1
        for s in steps:
            s.on_path = divergence is None or s.index < divergence.index
            s.diverged = divergence is not None and s.index == divergence.index
    values = _credits(n, reward, settle, basis) if n else []
    for s, value in zip(steps, values, strict=True):
        s.credit = value
    unassigned = None if reward is None else (0.0 if n else reward)
    all_faults = [f for group in faults.values() for f in group]
    return SessionCredit(
        basis=basis,
        reason=why,
        reward=reward,
        unassigned=unassigned,
        divergence=divergence,
        broken_turn=divergence.turn if divergence is not None else None,
        steps=steps,
        turns=_turns(session, steps, divergence, reward),
        faults=len(all_faults),
        recovered_faults=sum(f.recovered for f in all_faults),
    )


def _turns(
    session: Session,
    steps: Sequence[StepCredit],
    divergence: FirstDivergence | None,
    reward: float | None,
) -> list[TurnCredit]:
    numbers = sorted(
        {e.turn for e in session.of_kind(EventKind.user_message)} | {s.turn for s in steps}
    )
    out: list[TurnCredit] = []
    for turn in numbers:
        mine = [s for s in steps if s.turn == turn]
        values = [s.credit for s in mine]
        paths = [s.on_path for s in mine]
        out.append(
            TurnCredit(
                turn=turn,
                decisions=len(mine),
                credit=None if reward is None else sum(v or 0.0 for v in values),
                on_path=None if any(p is None for p in paths) else all(p for p in paths),
                broke=divergence is not None and divergence.turn == turn,
            )
        )
    return out
