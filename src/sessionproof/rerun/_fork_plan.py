"""Where each transcript forks, and what its recorded first turns are.

A **turn** is a user message and every agent message up to the next user message, numbered
from 0 as the trace numbers them (agent messages before the first user message, a greeting,
belong to no turn: the engine's sessions open with the user). Forking at turn T replays the
recorded turns 0..T-1 whole (the user's messages, the agent's messages, and its tool calls
run against the domain), then the recorded user message of turn T, and hands every agent
decision from there on to the lane's agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ..domains import DomainSpec
from ..errors import ConfigError
from ..records import (
    AssistantMessageEvent,
    Message,
    Scenario,
    Session,
    TerminationReason,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from ..scoring._internal import session_survival
from ..suites import replay, replayed_calls
from ._plan import RerunItem

DIVERGENCE: Literal["divergence"] = "divergence"
"""`--fork-at divergence`: fork at the turn of the first divergence scoring finds."""

ForkAt = int | Literal["divergence"]


def parse_fork_at(value: object) -> ForkAt:
    """A `--fork-at` value: a turn number (0 or more) or `divergence`; `ConfigError` else."""
    if isinstance(value, bool):
        value = str(value)
    if isinstance(value, int) and value >= 0:
        return value
    text = str(value).strip()
    if text.lower() == DIVERGENCE:
        return DIVERGENCE
    if text.isdigit():
        return int(text)
    raise ConfigError(
        f"--fork-at must be a turn number (0 or more) or 'divergence', not {str(value)!r}"
    )


class TurnBeyond(ValueError):
    """A `--fork-at` turn past a transcript's last turn."""

    def __init__(self, turn: int, turns: int) -> None:
        super().__init__(f"turn {turn} is beyond the transcript (its turns are 0..{turns - 1})")
        self.turns = turns
        """How many turns the transcript has."""


@dataclass(frozen=True)
class RecordedTurn:
    """One recorded turn: the user's message and the agent's messages after it."""

    user: str
    replies: tuple[Message, ...]
    """The agent's messages, each one decision: text-only messages that the agent sent
    before more messages of the same turn are joined to the next one (the engine ends a
    turn at a message without tool calls)."""
    start: int = 0
    """Position in the session's events of the turn's (first) user message: the events
    before it are the turns before this one."""
    trace_turn: int = 0
    """The turn number the trace gives that user message."""


def _merge(messages: Sequence[Message]) -> tuple[Message, ...]:
    out: list[Message] = []
    pending: list[str] = []
    for msg in messages:
        if msg.content:
            pending.append(msg.content)
        if msg.tool_calls:
            text = "\n\n".join(pending) or None
            out.append(Message.assistant(text, [c.model_copy() for c in msg.tool_calls]))
            pending = []
    if pending:
        out.append(Message.assistant("\n\n".join(pending)))
    return tuple(out)


def recorded_turns(session: Session) -> list[RecordedTurn]:
    """The session's turns in order, by position (see the module docstring): user messages
    in a row make one turn, as the engine sends one message a turn."""
    found: list[tuple[int, int, list[str], list[Message]]] = []
    for index, event in enumerate(session.events):
        if isinstance(event, UserMessageEvent):
            text = event.payload.content or ""
            if found and not found[-1][3]:
                found[-1][2].append(text)
            else:
                found.append((index, event.turn, [text], []))
        elif isinstance(event, AssistantMessageEvent) and found:
            found[-1][3].append(event.payload)
    return [
        RecordedTurn("\n".join(texts), _merge(replies), start, turn)
        for start, turn, texts, replies in found
    ]


def ends_with_user_stop(session: Session, turns: Sequence[RecordedTurn]) -> bool:
    """True when the recorded user ended the session with its last message."""
    return (
        bool(turns) and session.termination is TerminationReason.user_stop and not turns[-1].replies
    )


@dataclass(frozen=True)
class ForkPlan:
    """One transcript's fork: where, why there, and what the state there must be."""

    scenario_id: str
    turn: int
    """Turns 0..turn-1 are replayed whole; the lane's agent answers from `turn` on."""
    reason: str
    """How the turn was chosen: `given`, or the first divergence's class and decision."""
    turns: tuple[RecordedTurn, ...]
    recorded_stop: bool
    """The recorded user ended the session with its last message."""
    recorded_state: str | None
    """Hash of the domain's state after the recorded calls of turns 0..turn-1 replayed into
    a fresh domain (None when the domain keeps none, e.g. recorded responses)."""
    prefix_steps: int
    """Agent decisions (tool calls and text replies) the replayed turns take."""
    total_steps: int
    """Agent decisions of every recorded turn (the recorded lane replays them all)."""
    rest: Scenario
    """The task from the fork on, for reference agents that read it (the oracle): the gold
    actions the replayed turns have not already made successfully, on the turns left."""


def _steps(turns: Sequence[RecordedTurn]) -> int:
    return sum(max(1, len(m.tool_calls)) for t in turns for m in t.replies)


def _key(name: str, args: dict[str, Any] | None) -> bytes:
    return name.encode() + b"\0" + orjson.dumps(args or {}, option=orjson.OPT_SORT_KEYS)


def _calls_before(session: Session, cut: int) -> list[ToolCallEvent]:
    """The tool-call events before position `cut` of the session's events."""
    return [e for e in session.events[:cut] if isinstance(e, ToolCallEvent)]


def _done_before(session: Session, cut: int) -> list[bytes]:
    """The calls before event position `cut` that succeeded in the recording."""
    ok = {e.payload.call_id for e in session.events_of(ToolResultEvent) if e.payload.ok}
    return [
        _key(e.payload.name, e.payload.arguments)
        for e in _calls_before(session, cut)
        if e.payload.id in ok and e.payload.arguments is not None
    ]


def rest_of_task(scenario: Scenario, session: Session, turn: int, cut: int) -> Scenario:
    """`scenario` as seen from turn `turn` (whose user message is at event position `cut`):
    gold actions the recording already made successfully before it are left out (each at
    most once), the others' turns counted from the fork, and only the scripted user turns
    from the fork on."""
    done = _done_before(session, cut)
    left = []
    for action in scenario.criteria.gold_actions:
        key = _key(action.tool, action.args)
        if key in done:
            done.remove(key)
            continue
        shifted = None if action.turn is None else max(action.turn - turn, 0)
        left.append(action.model_copy(update={"turn": shifted}))
    criteria = scenario.criteria.model_copy(update={"gold_actions": left})
    user = scenario.user
    if user.turns:
        user = user.model_copy(update={"turns": list(user.turns[turn:])})
    return scenario.model_copy(update={"criteria": criteria, "user": user})


def recorded_state(spec: DomainSpec, session: Session, cut: int) -> str | None:
    """The state hash after replaying the recorded calls before event position `cut` (the
    fork's user message) into a fresh domain."""
    before = {e.payload.id for e in _calls_before(session, cut)}
    calls = [(c.name, c.arguments or {}) for c in replayed_calls(session) if c.id in before]
    domain, _ = replay(spec, calls)
    return domain.state_hash()


def _transfer_before(session: Session, cut: int, transfers: set[str]) -> int | None:
    ok = {e.payload.call_id for e in session.events_of(ToolResultEvent) if e.payload.ok}
    for event in _calls_before(session, cut):
        if event.payload.name in transfers and event.payload.id in ok:
            return event.turn
    return None


def fork_turn(
    item: RerunItem, spec: DomainSpec, fork_at: ForkAt, turns: Sequence[RecordedTurn]
) -> tuple[int, str]:
    """The turn (a position in `turns`) `item` forks at and how it was chosen; `ValueError`
    says why it does not fork."""
    if fork_at != DIVERGENCE:
        assert isinstance(fork_at, int)
        if fork_at >= len(turns):
            raise TurnBeyond(fork_at, len(turns))
        return fork_at, "given"
    if item.original is True:
        raise ValueError("the original passed: it has no divergence to fork at")
    if item.original is None:
        raise ValueError("no original verdict: a divergence is sought only in a failed one")
    if item.recorded is not None or item.judged_by in ("none", "recorded"):
        raise ValueError(
            "a divergence needs the transcript's task and domain; fork at a turn number"
        )
    found = session_survival(item.transcript.session, item.scenario, spec).divergence
    if found is None:
        raise ValueError("the original failed on a correct path: no divergence to fork at")
    # The turn whose user message is the last at or before the divergence's (the trace's
    # numbering and the positions agree unless the trace skips numbers).
    at = [i for i, t in enumerate(turns) if t.trace_turn <= found.turn]
    if not at:
        raise ValueError(f"its divergence is at turn {found.turn}, before any user message")
    return at[-1], f"divergence: {found.kind.value} at {found.decision} {found.index}"


def plan_fork(item: RerunItem, spec: DomainSpec, fork_at: ForkAt) -> ForkPlan:
    """`item`'s fork; `ValueError` says why it cannot be forked."""
    session = item.transcript.session
    turns = recorded_turns(session)
    if not turns:
        raise ValueError("the transcript has no user message to replay")
    turn, reason = fork_turn(item, spec, fork_at, turns)
    cut = turns[turn].start
    domain = spec.create()
    transferred = _transfer_before(session, cut, set(domain.transfer_tools))
    if transferred is not None:
        raise ValueError(
            f"the recording transferred at turn {transferred}, before the fork at turn {turn}: "
            "a session ends at a transfer"
        )
    return ForkPlan(
        scenario_id=item.scenario.id,
        turn=turn,
        reason=reason,
        turns=tuple(turns),
        recorded_stop=ends_with_user_stop(session, turns),
        recorded_state=recorded_state(spec, session, cut),
        prefix_steps=_steps(turns[:turn]),
        total_steps=_steps(turns),
        rest=rest_of_task(item.scenario, session, turn, cut),
    )
