"""A fork rerun's sessions back into its report: each transcript's candidate and baseline-lane
verdicts, the state at its fork, and the candidate against the baseline lane, pair by pair."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ..errors import StatisticsInputError
from ..records import Session
from ..scoring.stats import paired_comparison
from ..scoring.stats._internal import PairedComparison
from ._collect import _reason
from ._fork_plan import ForkPlan
from ._plan import RerunItem, verdict_of
from ._report import TranscriptRerun

NOT_REACHED = "the session ended before its fork (turn {turn}): not judged"


def _by_transcript(sessions: Sequence[Session]) -> dict[str, list[Session]]:
    out: dict[str, list[Session]] = defaultdict(list)
    for s in sorted(sessions, key=lambda s: s.trial):
        out[s.scenario_id].append(s)
    return out


def _lane_reasons(sessions: Sequence[Session]) -> list[str]:
    """Why the baseline lane's trials were not a success, trials with one reason together."""
    reasons: dict[str, list[str]] = defaultdict(list)
    for s in sessions:
        if verdict_of(s.outcome, s.infra_error) is not True:
            reasons[_reason(s)].append(str(s.trial))
    return [
        f"baseline lane {'trial' if len(trials) == 1 else 'trials'} {', '.join(trials)}: {why}"
        for why, trials in reasons.items()
    ]


def _state(session: Session) -> bool | None:
    fork = session.metadata.get("fork")
    value = fork.get("state_matches") if isinstance(fork, dict) else None
    return value if isinstance(value, bool) else None


def with_lanes(
    results: list[TranscriptRerun],
    items: Sequence[RerunItem],
    forks: dict[str, ForkPlan],
    candidate: Sequence[Session],
    baseline: Sequence[Session] | None,
) -> list[TranscriptRerun]:
    """`results` (the candidate lane's, per transcript, in `items` order) with each one's
    fork, the state at it per trial, the baseline lane's verdicts and the reasons of both."""
    ran = _by_transcript(candidate)
    base = _by_transcript(baseline or [])
    out = []
    for item, result in zip(items, results, strict=True):
        fork = forks[item.scenario.id]
        own = ran[item.scenario.id]
        notes = [result.why] if result.why else []
        if any(not s.metadata.get("fork", {}).get("reached") for s in own):
            notes.append(NOT_REACHED.format(turn=fork.turn))
        if item.judged_by not in ("none", "recorded"):
            notes += _lane_reasons(base[item.scenario.id])
        out.append(
            result.model_copy(
                update={
                    "fork_at": fork.turn,
                    "fork_reason": fork.reason,
                    "fork_state": [_state(s) for s in own],
                    "baseline": [
                        verdict_of(s.outcome, s.infra_error) for s in base[item.scenario.id]
                    ],
                    "why": "; ".join(notes) or None,
                }
            )
        )
    return out


def against_baseline(
    results: Sequence[TranscriptRerun], seed: int
) -> tuple[PairedComparison | None, str | None]:
    """Baseline lane (A) against the candidate (B), pair by (transcript, trial)."""
    a: dict[str, bool | None] = {}
    b: dict[str, bool | None] = {}
    for r in results:
        for trial, (base, cand) in enumerate(zip(r.baseline, r.rerun, strict=False)):
            a[f"{r.id}#t{trial}"] = base
            b[f"{r.id}#t{trial}"] = cand
    if not a:
        return None, "no transcript was forked"
    try:
        return paired_comparison(a, b, seed=seed), None
    except StatisticsInputError:
        return None, "no pair has both a baseline-lane and a candidate verdict"
