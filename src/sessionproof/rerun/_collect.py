"""Rerun sessions back into a report: verdicts per transcript and trial, the reasons behind
them, accuracies and the paired comparison."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ..errors import StatisticsInputError
from ..records import Session
from ..records._internal import RecordedDivergenceEvent
from ..scoring.stats import paired_comparison
from ..scoring.stats._internal import PairedComparison
from ._plan import RerunItem, verdict_of
from ._report import SessionShape, TranscriptRerun

_EVIDENCE_CHARS = 200
"""Evidence quoted in a `why` is cut here: the stored session holds it whole."""


def _short(text: str) -> str:
    return text if len(text) <= _EVIDENCE_CHARS else text[: _EVIDENCE_CHARS - 1] + "…"


def _reason(session: Session) -> str:
    """Why a rerun session was not a success, from its own verdict."""
    if session.infra_error:
        return f"infra_error ({_short(session.termination_detail)}), not judged"
    outcome = session.outcome
    if outcome is None:
        return f"ended as {session.termination.value}, not judged"
    parts = [
        f"{c.name}: {_short(c.evidence)}"
        for c in outcome.criteria
        if c.passed is False or c.passed is None
    ]
    return "; ".join(parts) or f"ended as {session.termination.value}"


def transcript_result(item: RerunItem, sessions: Sequence[Session]) -> TranscriptRerun:
    """One transcript's line of the report, from its rerun sessions (any order)."""
    ordered = sorted(sessions, key=lambda s: s.trial)
    verdicts = [verdict_of(s.outcome, s.infra_error) for s in ordered]
    notes = [item.note] if item.note else []
    if item.judged_by not in ("none", "recorded"):
        # Trials that fail for the same reason are named together, not repeated.
        reasons: dict[str, list[str]] = defaultdict(list)
        for session, verdict in zip(ordered, verdicts, strict=True):
            if verdict is not True:
                reasons[_reason(session)].append(str(session.trial))
        for reason, trials in reasons.items():
            label = "trial" if len(trials) == 1 else "trials"
            notes.append(f"{label} {', '.join(trials)}: {reason}")
    return TranscriptRerun(
        id=item.transcript_id,
        task=item.transcript.session.scenario_id,
        judged_by=item.judged_by,
        original=item.original,
        original_source=item.original_source,
        rerun=verdicts,
        session_ids=[s.session_id for s in ordered],
        divergences=[len(s.events_of(RecordedDivergenceEvent)) for s in ordered]
        if item.judged_by == "recorded"
        else [],
        why="; ".join(notes) or None,
        original_shape=SessionShape.of(item.transcript.session),
        rerun_shapes=[SessionShape.of(s) for s in ordered],
    )


def collect(items: Sequence[RerunItem], sessions: Sequence[Session]) -> list[TranscriptRerun]:
    """Every transcript's result, in file order."""
    by_scenario: dict[str, list[Session]] = defaultdict(list)
    for session in sessions:
        by_scenario[session.scenario_id].append(session)
    return [transcript_result(item, by_scenario[item.scenario.id]) for item in items]


def accuracies(results: Sequence[TranscriptRerun]) -> tuple[float | None, float | None]:
    """(original accuracy over transcripts, rerun accuracy over judged rerun sessions)."""
    originals = [r.original for r in results if r.original is not None]
    reruns = [v for r in results for v in r.rerun if v is not None]
    return (
        sum(originals) / len(originals) if originals else None,
        sum(reruns) / len(reruns) if reruns else None,
    )


def paired(
    results: Sequence[TranscriptRerun], seed: int = 0
) -> tuple[PairedComparison | None, str | None]:
    """Original (A) against rerun (B) over (transcript, trial) pairs, or why there is none.

    Each trial is paired with its transcript's one original verdict; a pair with either side
    unknown is left out and listed as unpaired.
    """
    original: dict[str, bool | None] = {}
    rerun: dict[str, bool | None] = {}
    for r in results:
        for trial, verdict in enumerate(r.rerun):
            key = f"{r.id}#t{trial}"
            original[key] = r.original
            rerun[key] = verdict
    if not original:
        return None, "no transcript was rerun"
    try:
        return paired_comparison(original, rerun, seed=seed), None
    except StatisticsInputError:
        return None, "no pair has both an original and a rerun verdict"
