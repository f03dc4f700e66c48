"""What a rerun reports: each transcript's original verdict beside its rerun verdicts, the
behaviour of both, and the paired difference over (transcript, trial) pairs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..records import EventKind, Session
from ..scoring.stats._internal import PairedComparison

JudgedBy = str
"""How a transcript's reruns are judged:

- the name of a judge (a benchmark's `criteria.evaluator`, registered in the
  `sessionproof.judges` entry-point group, e.g. `tau2` or `tau-bench`): the reward of the task
  embedded in the file, as the original was scored;
- `criteria`: the generic verdict of a sessionproof scenario attached to a chat log;
- `reference_state`: a chat log with no task whose own `outcome` marks it a success: a rerun
  succeeds when it leaves the domain in the state the original's tool calls left it in;
- `recorded`: the domain was not available, so the rerun was answered from the transcript's
  own recorded tool results; the domain's state is unknown, so reruns are not judged, and
  each trial's divergences (calls no recorded call matches) are counted instead;
- `none`: no criterion at all; only termination and behaviour are compared.
"""

OriginalSource = Literal["recorded", "judged"]
"""Where the original verdict comes from: the file's own reward/outcome, or our judgement of
the recorded session against its attached task (when the file records no verdict)."""


class SessionShape(BaseModel):
    """What one session did, for behavioural comparison when verdicts say little."""

    model_config = ConfigDict(extra="forbid")

    termination: str
    user_turns: int
    """User messages sent."""
    tool_calls: int
    tool_errors: int
    """Tool results that carried an error class."""
    tools: list[str] = Field(default_factory=list)
    """Distinct tool names called, in order of first use."""

    @classmethod
    def of(cls, session: Session) -> SessionShape:
        """The shape of `session`, read from its events."""
        names = [call.name for call in session.tool_calls()]
        errors = sum(1 for result in session.tool_results() if result.error_class)
        return cls(
            termination=session.termination.value,
            user_turns=len(session.of_kind(EventKind.user_message)),
            tool_calls=len(names),
            tool_errors=errors,
            tools=list(dict.fromkeys(names)),
        )


class TranscriptRerun(BaseModel):
    """One transcript: its original verdict, the verdict of each rerun trial, and why."""

    model_config = ConfigDict(extra="forbid")

    id: str
    """The transcript's id in the file (simulation id, `task-trial`, or the log line's id)."""
    task: str
    """The task (scenario) it ran; the transcript id when it carries none."""
    judged_by: JudgedBy
    original: bool | None
    """The original's completion; None when nothing says."""
    original_source: OriginalSource | None = None
    rerun: list[bool | None] = Field(default_factory=list)
    """One verdict per trial; None for a trial that could not be judged (infra error, a
    criterion that could not be evaluated, or no criterion)."""
    session_ids: list[str] = Field(default_factory=list)
    """The stored rerun sessions, one per trial."""
    divergences: list[int] = Field(default_factory=list)
    """Per trial, in order: calls no recorded call matched (only for `recorded` reruns)."""
    why: str | None = None
    """What a reader needs to trust the numbers: how it was judged when not by a task, and
    the failing criterion of a rerun that differs from the original."""
    original_shape: SessionShape
    rerun_shapes: list[SessionShape] = Field(default_factory=list)
    fork_at: int | None = None
    """A fork rerun: the turn the lanes took over at (turns before it were replayed)."""
    fork_reason: str | None = None
    """Why that turn: `given`, or the first divergence's class and decision."""
    fork_state: list[bool | None] = Field(default_factory=list)
    """Per candidate trial: the domain's state at the fork equals the recorded state there
    (None: no state to compare, or the session never reached the fork)."""
    baseline: list[bool | None] = Field(default_factory=list)
    """Per trial: the baseline lane's verdict from the same fork."""


class Skipped(BaseModel):
    """A record of the file that was not rerun, and why."""

    model_config = ConfigDict(extra="forbid")

    record: str
    """`#INDEX (ID)` of the record in the file, or `file` for a whole-file problem."""
    why: str


class RerunReport(BaseModel):
    """Everything `rerun` found: per transcript, overall, and what was skipped."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    source: str
    format: str
    model: str
    user_model: str | None
    """The simulated user's model; None when users were scripted or stated their task whole."""
    trials: int
    transcripts: list[TranscriptRerun] = Field(default_factory=list)
    original_accuracy: float | None = None
    """Share of transcripts with a known original verdict that succeeded."""
    rerun_accuracy: float | None = None
    """Share of judged rerun sessions (transcripts × trials) that succeeded."""
    paired: PairedComparison | None = None
    """Rerun against original over (transcript, trial) pairs: rate_a is the original's,
    rate_b the rerun's; exact McNemar p and a bootstrap interval of the difference."""
    paired_note: str | None = None
    """Why `paired` is missing, when it is."""
    skipped: list[Skipped] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    """Problems with records that were still rerun (unknown tools, unparsable arguments)."""
    recorded: int = 0
    """Transcripts rerun against their own recorded responses (their domain not available)."""
    store: str | None = None
    """The store file the rerun sessions were written to (None: not stored)."""
    fork_at: str | None = None
    """A fork rerun: `--fork-at` as given (a turn number or `divergence`); None otherwise.
    `rerun` then holds the candidate's verdicts from the fork and `paired` compares them
    with the originals."""
    baseline_lane: str | None = None
    """The baseline lane's agent (`recorded`: the recorded agent), when one ran."""
    baseline_run_id: str | None = None
    """The run the baseline lane's sessions are stored as (a lane is never pooled)."""
    baseline_accuracy: float | None = None
    baseline_paired: PairedComparison | None = None
    """Candidate (B) against the baseline lane (A) from the same forks, over (transcript,
    trial) pairs: what the candidate changed beyond what forking itself changed."""
    baseline_paired_note: str | None = None
    not_forked: list[Skipped] = Field(default_factory=list)
    """Transcripts not forked, and why (a passed original has no divergence)."""

    def summary(self) -> dict[str, Any]:
        """The `--json` object of `sessionproof rerun`."""
        per: list[dict[str, Any]] = []
        for t in self.transcripts:
            item: dict[str, Any] = {
                "id": t.id,
                "task": t.task,
                "judged_by": t.judged_by,
                "original": t.original,
                "rerun": t.rerun,
                "termination": {
                    "original": t.original_shape.termination,
                    "rerun": [s.termination for s in t.rerun_shapes],
                },
            }
            if t.judged_by == "recorded":
                item["divergences"] = t.divergences
            if t.why:
                item["why"] = t.why
            if self.fork_at is not None:
                item["fork_at"] = t.fork_at
                item["fork_reason"] = t.fork_reason
                item["fork_state_matches"] = t.fork_state
                if self.baseline_lane is not None:
                    item["baseline"] = t.baseline
            per.append(item)
        out: dict[str, Any] = {
            "run_id": self.run_id,
            "transcripts": len(self.transcripts),
            "original_accuracy": self.original_accuracy,
            "rerun_accuracy": self.rerun_accuracy,
            "paired": self.paired.model_dump(mode="json") if self.paired else None,
            "paired_note": self.paired_note,
            "per_transcript": per,
            "skipped": [s.model_dump() for s in self.skipped],
            "warnings": list(self.warnings),
            "store": self.store,
            "recorded_responses": self.recorded,
        }
        if self.fork_at is not None:
            out["fork_at"] = self.fork_at
            out["forks"] = self._forks()
        return out

    def _forks(self) -> dict[str, Any]:
        states = [v for t in self.transcripts for v in t.fork_state]
        return {
            "forked": len(self.transcripts),
            "not_forked": [s.model_dump() for s in self.not_forked],
            "state_at_fork_matches": sum(1 for v in states if v is True),
            "state_at_fork_differs": sum(1 for v in states if v is False),
            "candidate_accuracy": self.rerun_accuracy,
            "baseline_lane": self.baseline_lane,
            "baseline_run_id": self.baseline_run_id,
            "baseline_accuracy": self.baseline_accuracy,
            "baseline_paired": self.baseline_paired.model_dump(mode="json")
            if self.baseline_paired
            else None,
            "baseline_paired_note": self.baseline_paired_note,
        }
