"""What `score` reports of one transcript file: agreement with the file's own verdicts, each
session's verdicts side by side, and the sessions that could not be judged."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..importers import RecordError
from ..records import Scenario, Session


class Agreement(BaseModel):
    """How many of the comparable sessions got the same verdict from us and from the file."""

    model_config = ConfigDict(extra="forbid")

    match: int = 0
    total: int = 0


class Disagreement(BaseModel):
    """One session whose verdict differs from the file's, and why."""

    model_config = ConfigDict(extra="forbid")

    session: str
    ours: dict[str, Any]
    theirs: dict[str, Any]
    why: str


class SessionScore(BaseModel):
    """One session's verdicts side by side."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    scenario_id: str
    termination: str
    success: bool | None
    reward: float | None
    db_match: bool | None
    reported_reward: float | None
    reported_db_match: bool | None
    breakdown: dict[str, float] = Field(default_factory=dict)


class ArmScore(BaseModel):
    """Session accuracy of one arm of a scored file (arms are never pooled)."""

    model_config = ConfigDict(extra="forbid")

    graded: int
    session_accuracy: float | None


class ScoreReport(BaseModel):
    """What `score` found in one file."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    source: str
    format: str
    domain: str | None
    sessions: int
    """Sessions imported (and stored)."""
    graded: int
    """Sessions we could judge (they carry a task or scenario) and that did not end in
    infra_error; session accuracy is over these."""
    session_accuracy: float | None
    """Over the graded sessions of a file of one arm; None when none was graded, or when the
    file holds several arms (each arm's is in `arms`: arms are never pooled)."""
    agreement_reward: Agreement
    agreement_db: Agreement
    disagreements: list[Disagreement] = Field(default_factory=list)
    errors: list[RecordError] = Field(default_factory=list)
    scores: list[SessionScore] = Field(default_factory=list)
    seconds: float = 0.0
    """Wall time of import, judging and storing."""
    not_judged: dict[str, int] = Field(default_factory=dict)
    """Sessions that could not be judged, by reason (never counted as failures)."""
    divergences: int | None = None
    """With `--domain recorded`: the recorded calls no recorded result answers (the calls a
    rerun against these responses could not replay); None otherwise."""
    arms: dict[str, ArmScore] = Field(default_factory=dict)
    """With more than one arm in the file: each arm's graded sessions and accuracy."""
    suite: str | None = None
    """The project (`--suite`) whose domains and scenarios the sessions were judged in."""
    judged: list[Session] = Field(default_factory=list, exclude=True)
    """The sessions read (with our verdicts attached), for callers that go on with them
    (`patterns`); not part of the summary."""
    scenarios: dict[str, Scenario] = Field(default_factory=dict, exclude=True)
    """The scenarios the sessions were judged against, by id."""

    @property
    def warnings(self) -> list[RecordError]:
        """Problems with records that were kept (an odd block, a result answering no call)."""
        return [e for e in self.errors if not e.fatal]

    @property
    def skipped(self) -> list[RecordError]:
        """Problems that cost a record (not imported, judged or stored)."""
        return [e for e in self.errors if e.fatal]

    def summary(self) -> dict[str, Any]:
        """The `--json` object: run_id, sessions, session_accuracy, agreement, disagreements,
        skipped and warnings (each `{index, record_id, field, message}`); when some sessions could
        not be judged, not_judged (how many) and not_judged_reasons (reason -> count); with
        several arms, arms (arm -> graded, session_accuracy; session_accuracy is then None:
        arms are never pooled); with `--domain recorded` divergences, with `--suite` the
        suite."""
        return {
            "run_id": self.run_id,
            "sessions": self.sessions,
            "session_accuracy": self.session_accuracy,
            "agreement": {
                "reward": self.agreement_reward.model_dump(),
                "db": self.agreement_db.model_dump(),
            },
            "disagreements": [d.model_dump() for d in self.disagreements],
            "skipped": [_problem(e) for e in self.skipped],
            "warnings": [_problem(e) for e in self.warnings],
            # Only where they apply, so other files' JSON keeps its keys. Sessions not judged
            # are counted apart, never as failures (nor in session_accuracy).
            **(
                {
                    "not_judged": sum(self.not_judged.values()),
                    "not_judged_reasons": dict(self.not_judged),
                }
                if self.not_judged
                else {}
            ),
            **({"arms": {a: v.model_dump() for a, v in self.arms.items()}} if self.arms else {}),
            **({"divergences": self.divergences} if self.divergences is not None else {}),
            **({"suite": self.suite} if self.suite is not None else {}),
        }


def _problem(error: RecordError) -> dict[str, Any]:
    return error.model_dump(include={"index", "record_id", "field", "message"})
