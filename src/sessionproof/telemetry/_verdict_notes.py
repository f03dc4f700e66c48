"""A session's verdict and each criterion's, as the notes an observability tool files on a trace:
Phoenix span annotations on the session's root span, Langfuse scores on its trace.

One note per session named `verdict` (label `pass` or `fail`, score 1 or 0) and one per
criterion named `criterion.NAME` (label `pass`, `fail` or `not evaluated`, score 1, 0 or none),
each with its evidence as the explanation (scrubbed). A session that was not judged (infra
error, no outcome, or an outcome that says it could not be judged) gets one note only: label
`not judged`, no score, the reason as the explanation; it is never filed as a pass or a fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..records import CriterionResult, Session
from ..records._internal import Mismatch
from ..store._internal import scrub_text, scrub_value
from ._spans import session_span_ids

VERDICT = "verdict"
"""The name of the session-level note."""
CRITERION_PREFIX = "criterion."
"""Each criterion's note is named this prefix and the criterion's name."""
NOT_JUDGED = "not judged"
NOT_EVALUATED = "not evaluated"
ANNOTATOR = "sessionproof"
"""Phoenix's annotation identifier and Langfuse's score source: a re-export replaces ours
and never a note someone else filed under the same name."""
_DETAILS_SHOWN = 5


@dataclass(frozen=True)
class VerdictNote:
    """One note on one session: its name, label, score (None: no score) and explanation."""

    name: str
    label: str
    score: float | None
    explanation: str


def not_judged_reason(session: Session) -> str:
    """Why `session` has no verdict (only meaningful when `session.judged` is False)."""
    if session.infra_error:
        detail = session.termination_detail or "the provider or harness could not go on"
        return f"infra_error: {detail}"
    if session.outcome is None:
        return "no verdict was recorded for this session"
    return session.outcome.not_judged or "not judged"


def _value(value: Any) -> str:
    return json.dumps(scrub_value(value), sort_keys=True, default=str)


def _mismatch(m: Mismatch) -> str:
    if m.missing:
        return f"{m.where}: expected {_value(m.expected)}, missing"
    return f"{m.where}: expected {_value(m.expected)}, got {_value(m.actual)}"


def _criterion_text(c: CriterionResult) -> str:
    parts = [c.evidence] if c.evidence else []
    shown = [_mismatch(m) for m in c.details[:_DETAILS_SHOWN]]
    if len(c.details) > _DETAILS_SHOWN:
        shown.append(f"and {len(c.details) - _DETAILS_SHOWN} more")
    if shown:
        parts.append("; ".join(shown))
    return scrub_text(" | ".join(parts))


def _criterion_names(criteria: Iterable[CriterionResult]) -> list[str]:
    """Note names of the criteria, unique: a repeated name gets `#2`, `#3`..."""
    seen: dict[str, int] = {}
    out = []
    for c in criteria:
        seen[c.name] = seen.get(c.name, 0) + 1
        suffix = "" if seen[c.name] == 1 else f"#{seen[c.name]}"
        out.append(f"{CRITERION_PREFIX}{c.name}{suffix}")
    return out


def verdict_notes(session: Session) -> list[VerdictNote]:
    """The notes of one session (see the module docstring), the verdict first."""
    if not session.judged or session.outcome is None:
        return [VerdictNote(VERDICT, NOT_JUDGED, None, scrub_text(not_judged_reason(session)))]
    outcome = session.outcome
    failed = [c.name for c in outcome.criteria if c.passed is False]
    unevaluated = outcome.unevaluated
    if session.success:
        why = f"{len(outcome.criteria) - len(unevaluated)} criteria met"
    else:
        why = "failed: " + (", ".join(failed) or "the session did not succeed")
    if unevaluated:
        why += f"; not evaluated: {', '.join(unevaluated)}"
    passed = session.success
    notes = [VerdictNote(VERDICT, "pass" if passed else "fail", float(passed), why)]
    for name, c in zip(_criterion_names(outcome.criteria), outcome.criteria, strict=True):
        if c.passed is None:
            label, score = NOT_EVALUATED, None
        else:
            label, score = ("pass" if c.passed else "fail"), float(c.passed)
        notes.append(VerdictNote(name, label, score, _criterion_text(c)))
    return notes


def _facts(session: Session) -> dict[str, Any]:
    reward = session.outcome.reward if session.outcome is not None and session.judged else None
    return {
        "run_id": session.run_id,
        "session_id": session.session_id,
        "scenario_id": session.scenario_id,
        "trial": session.trial,
        "arm": session.arm,
        "reward": reward,
    }


def phoenix_annotations(sessions: Iterable[Session]) -> list[dict[str, Any]]:
    """The body items of Phoenix's `POST /v1/span_annotations` for `sessions`: each note on
    the session's root span, by a CODE annotator, under our identifier."""
    out: list[dict[str, Any]] = []
    for session in sessions:
        _, root = session_span_ids(session)
        facts = _facts(session)
        for note in verdict_notes(session):
            result: dict[str, Any] = {"label": note.label, "explanation": note.explanation}
            if note.score is not None:
                result["score"] = note.score
            out.append(
                {
                    "span_id": root,
                    "name": note.name,
                    "annotator_kind": "CODE",
                    "result": result,
                    "metadata": facts,
                    "identifier": ANNOTATOR,
                }
            )
    return out


def langfuse_scores(sessions: Iterable[Session]) -> list[dict[str, Any]]:
    """One body of Langfuse's `POST /api/public/scores` per note: a categorical score on the
    session's trace (its OTel trace id) and root observation, with a fixed id so that a
    re-export updates the score instead of adding another."""
    out: list[dict[str, Any]] = []
    for session in sessions:
        trace, root = session_span_ids(session)
        facts = _facts(session) | {"source": ANNOTATOR}
        for note in verdict_notes(session):
            out.append(
                {
                    "id": f"{ANNOTATOR}-{trace}-{note.name}",
                    "traceId": trace,
                    "observationId": root,
                    "name": note.name,
                    "value": note.label,
                    "dataType": "CATEGORICAL",
                    "comment": note.explanation,
                    "metadata": facts,
                }
            )
    return out
