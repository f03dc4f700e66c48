"""Per-turn accuracy of multi-turn sessions, in both readings, with session accuracy.

Any suite whose scenarios declare per-turn criteria (`Criteria.per_turn`: the evaluator puts
one `TurnResult` per scripted user turn in `Outcome.turns`) gets these metrics; nothing here
knows a benchmark. A session run from the first turn gives every turn's verdict on the
agent's own history; a session started at turn i from the gold prefix (`Scenario.start_turn`,
`run --reading gold-prefix`) gives turn i's verdict on the gold history of the turns before.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from ..records import Session
from .stats import wilson_interval

TURN_DEFINITIONS: dict[str, str] = {
    "turn_accuracy_own_history": "per user turn i (0-based in the JSON; tables count from 1), "
    "the share of judged sessions "
    "with per-turn criteria, run from their first turn, whose turn i passed: each turn on the "
    "agent's own history, so one bad turn can fail every later one (BFCL's reading). A turn "
    "the session never reached counts as failed; 95% Wilson CI.",
    "turn_accuracy_gold_prefix": "per user turn i, the share of judged sessions started at "
    "turn i from the gold prefix (the gold transcript of turns < i and the state their gold "
    "actions leave) whose turn i passed: each turn on its own (WildToolBench's reading; "
    "`run --reading gold-prefix`). 95% Wilson CI.",
    "turn_session_accuracy": "the share of those own-history sessions whose outcome is "
    "success (for BFCL: every checked turn passed); the same as session_accuracy when every "
    "session of the run has per-turn criteria.",
}
"""The per-turn metrics, by name, with their definitions."""


class TurnPoint(BaseModel):
    """One turn's accuracy in one reading."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    sessions: int
    """Judged sessions that have a verdict for this turn."""
    passed: int
    accuracy: float
    ci95: tuple[float, float]


class TurnReport(BaseModel):
    """Per-turn accuracy in both readings, and session accuracy of the own-history sessions."""

    model_config = ConfigDict(extra="forbid")

    own_history: list[TurnPoint] = Field(default_factory=list)
    gold_prefix: list[TurnPoint] = Field(default_factory=list)
    own_history_sessions: int = 0
    gold_prefix_sessions: int = 0
    session_accuracy: float | None = None
    """Over the own-history sessions (`turn_session_accuracy`)."""


def _points(tallies: dict[int, list[int]]) -> list[TurnPoint]:
    return [
        TurnPoint(
            turn=turn,
            sessions=n,
            passed=wins,
            accuracy=wins / n,
            ci95=wilson_interval(wins, n),
        )
        for turn, (n, wins) in sorted(tallies.items())
        if n
    ]


def turn_report(sessions: Iterable[Session]) -> TurnReport | None:
    """Per-turn accuracy of the judged sessions that carry per-turn verdicts (None when no
    session does). Infra-error sessions are not judged and are left out."""
    own: dict[int, list[int]] = {}
    prefix: dict[int, list[int]] = {}
    own_sessions = prefix_sessions = own_wins = 0
    for session in sessions:
        outcome = session.outcome
        if not session.judged or outcome is None or not outcome.turns:
            continue
        from_prefix = any(t.gold_prefix for t in outcome.turns)
        if from_prefix:
            prefix_sessions += 1
        else:
            own_sessions += 1
            own_wins += outcome.success
        tallies = prefix if from_prefix else own
        for result in outcome.turns:
            tally = tallies.setdefault(result.turn, [0, 0])
            tally[0] += 1
            tally[1] += result.passed is True
    if not own_sessions and not prefix_sessions:
        return None
    return TurnReport(
        own_history=_points(own),
        gold_prefix=_points(prefix),
        own_history_sessions=own_sessions,
        gold_prefix_sessions=prefix_sessions,
        session_accuracy=own_wins / own_sessions if own_sessions else None,
    )
