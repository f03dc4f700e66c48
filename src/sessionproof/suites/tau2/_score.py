"""`score_transcripts`: import a transcript file, judge every session, store them, and report
how our verdicts agree with the file's own."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ..._gc import paused_gc
from ...domains import get_domain
from ...errors import SessionproofError, StoreError
from ...importers import ImportedSession, LabelRule, RecordError, import_file
from ...records import EventKind, Outcome, Scenario, Session, make_event
from ...scoring import evaluate_session
from ._evaluate import Judgement, judge_tau2, judge_taubench
from ._judge import NLJudge, make_judge
from ._replay import GoldCache, replay, replayed_calls

if TYPE_CHECKING:
    from ...store import Store


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
    agreement_reward: Agreement
    agreement_db: Agreement
    disagreements: list[Disagreement] = Field(default_factory=list)
    errors: list[RecordError] = Field(default_factory=list)
    scores: list[SessionScore] = Field(default_factory=list)
    seconds: float = 0.0
    """Wall time of import, judging and storing."""
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
        skipped and warnings (each `{index, record_id, field, message}`)."""
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
        }


def _problem(error: RecordError) -> dict[str, Any]:
    return error.model_dump(include={"index", "record_id", "field", "message"})


def _grade(item: ImportedSession, judge: NLJudge | None, cache: GoldCache) -> Judgement | None:
    scenario = item.scenario
    if scenario is None:
        return None
    if "tau2_task" in scenario.metadata:
        return judge_tau2(scenario, item.session, judge=judge, cache=cache)
    if "taubench_task" in scenario.metadata:
        return judge_taubench(scenario, item.session, cache=cache)
    spec = get_domain(scenario.domain)
    final, _ = replay(spec, ((c.name, c.arguments or {}) for c in replayed_calls(item.session)))
    outcome = evaluate_session(scenario, item.session, final, spec)
    db = outcome.criterion("db")
    return Judgement(outcome=outcome, db_match=db.passed if db else None)


def _why(ours: Judgement, item: ImportedSession) -> str:
    """The component our verdict and the file's differ on, from what the file recorded."""
    reported = item.reported
    detail = reported.detail if reported and reported.detail else {}
    theirs_breakdown = detail.get("reward_breakdown") if isinstance(detail, dict) else None
    parts: list[str] = []
    if isinstance(theirs_breakdown, dict):
        for name, value in theirs_breakdown.items():
            mine = ours.breakdown.get(name)
            if mine is not None and float(value) != mine:
                parts.append(f"{name}: ours {mine:g}, theirs {float(value):g}")
    if (
        reported
        and reported.db_match is not None
        and ours.db_match is not None
        and reported.db_match != ours.db_match
    ):
        where = f" (records differing from gold: {', '.join(ours.changed)})" if ours.changed else ""
        parts.append(f"DB: ours {ours.db_match}, theirs {reported.db_match}{where}")
    for result in ours.outcome.criteria:
        if result.passed is not True:
            parts.append(f"our {result.name}: {result.evidence}")
    return "; ".join(dict.fromkeys(parts)) or "verdicts differ; no component explains it"


def score_transcripts(
    path: Path,
    fmt: str = "auto",
    domain: str | None = None,
    store_path: Path | None = None,
    judge: str | NLJudge | None = None,
    run_id: str | None = None,
    argv: list[str] | None = None,
    label_from: LabelRule | None = None,
) -> ScoreReport:
    """Import `path`, judge each session, store them under a new run, report agreement.

    `store_path` None skips storing (the report is still complete). `judge` is a model spec
    (or an NLJudge) for NL assertions; without one they are reported as not evaluated.
    `label_from` (traces, ATIF, inspect logs) names each session's own outcome label.
    """
    with paused_gc():
        return _score_transcripts(
            path, fmt, domain, store_path, judge, run_id, argv, label_from, time.perf_counter()
        )


def _score_transcripts(
    path: Path,
    fmt: str,
    domain: str | None,
    store_path: Path | None,
    judge: str | NLJudge | None,
    run_id: str | None,
    argv: list[str] | None,
    label_from: LabelRule | None,
    started: float,
) -> ScoreReport:
    from ...store import new_run_id

    run_id = run_id or new_run_id()
    nl_judge = make_judge(judge) if isinstance(judge, str) else judge
    result = import_file(path, fmt, run_id=run_id, domain=domain, label_from=label_from)
    cache = GoldCache()
    reward, db = Agreement(), Agreement()
    disagreements: list[Disagreement] = []
    scores: list[SessionScore] = []
    graded = wins = 0
    errors = list(result.errors)
    kept: list[ImportedSession] = []
    for item in result.sessions:
        session = item.session
        try:
            verdict = _grade(item, nl_judge, cache)
        except SessionproofError as exc:
            # One session that cannot be judged (its scenario names a domain or tool we lack)
            # costs itself, not the file.
            errors.append(
                RecordError(
                    index=item.index,
                    field="",
                    message=f"cannot judge: {exc}",
                    record_id=session.session_id,
                )
            )
            continue
        kept.append(item)
        if verdict is not None:
            _attach(session, verdict.outcome)
            if session.termination.value != "infra_error":
                graded += 1
                wins += verdict.outcome.success
        reported = item.reported
        theirs_reward = reported.reward if reported else None
        theirs_db = reported.db_match if reported else None
        ours_reward = verdict.outcome.reward if verdict else None
        ours_db = verdict.db_match if verdict else None
        differs = False
        if ours_reward is not None and theirs_reward is not None:
            reward.total += 1
            same = abs(ours_reward - theirs_reward) < 1e-9
            reward.match += same
            differs |= not same
        if ours_db is not None and theirs_db is not None:
            db.total += 1
            db.match += ours_db == theirs_db
            differs |= ours_db != theirs_db
        if differs and verdict is not None:
            disagreements.append(
                Disagreement(
                    session=session.session_id,
                    ours={"reward": ours_reward, "db": ours_db},
                    theirs={"reward": theirs_reward, "db": theirs_db},
                    why=f"task {session.scenario_id}: {_why(verdict, item)}",
                )
            )
        scores.append(
            SessionScore(
                session_id=session.session_id,
                scenario_id=session.scenario_id,
                termination=session.termination.value,
                success=verdict.outcome.success if verdict else None,
                reward=ours_reward,
                db_match=ours_db,
                reported_reward=theirs_reward,
                reported_db_match=theirs_db,
                breakdown=verdict.breakdown if verdict else {},
            )
        )
    if store_path is not None:
        errors.extend(_store(store_path, run_id, path, result.format, result.domain, kept, argv))
    return ScoreReport(
        run_id=run_id,
        source=str(path),
        format=result.format,
        domain=result.domain,
        sessions=len(kept),
        graded=graded,
        session_accuracy=wins / graded if graded else None,
        agreement_reward=reward,
        agreement_db=db,
        disagreements=disagreements,
        errors=errors,
        scores=scores,
        seconds=time.perf_counter() - started,
        judged=[item.session for item in kept],
        scenarios={i.scenario.id: i.scenario for i in kept if i.scenario is not None},
    )


def _attach(session: Session, outcome: Outcome) -> None:
    """Set the session's outcome and append its verdict event (as the engine does)."""
    session.outcome = outcome
    last = session.events[-1] if session.events else None
    session.events.append(
        make_event(
            EventKind.verdict,
            outcome,
            run_id=session.run_id,
            session_id=session.session_id,
            seq=len(session.events),
            turn=last.turn if last else 0,
            step=last.step if last else 0,
            t_wall=last.t_wall if last else session.ended_at,
            t_mono=last.t_mono if last else 0.0,
        )
    )


def _store(
    store_path: Path,
    run_id: str,
    source: Path,
    fmt: str,
    domain: str | None,
    sessions: list[ImportedSession],
    argv: list[str] | None,
) -> list[RecordError]:
    # Imported here: judging alone (and the suites that use it) needs no database.
    from ...store import RunManifest, Store, recorded_run

    models = sorted({s.session.model for s in sessions if s.session.model})
    manifest = RunManifest(
        run_id=run_id,
        command="score",
        suite=str(Path(source).resolve()),  # `show --metrics` re-reads it from anywhere
        model=", ".join(models),
        scenario_ids=sorted({s.session.scenario_id for s in sessions}),
        options={"format": fmt, "domain": domain},
        argv=argv or [],
    )
    problems: list[RecordError] = []
    # A failed write leaves the run `failed`, never `running` (resumable).
    with Store.open(store_path) as store, recorded_run(store, manifest, on_error="failed"):
        _write(store, sessions, problems)
    return problems


def _write(store: Store, sessions: list[ImportedSession], problems: list[RecordError]) -> None:
    """Write every session, naming in `problems` each one the store refused."""
    try:
        # One transaction for the whole file: a commit per session would cost more than
        # scoring it. A refused batch falls back to one write each, to name the culprits and
        # keep the rest.
        store.write_sessions([item.session for item in sessions])
        return
    except StoreError:
        pass
    for item in sessions:
        try:
            store.write_session(item.session)
        except StoreError as exc:
            problems.append(
                RecordError(
                    index=item.index,
                    field="",
                    message=f"not stored: {exc}",
                    record_id=item.session.session_id,
                )
            )
