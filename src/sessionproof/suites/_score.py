"""`score_transcripts`: import a transcript file, judge every session, store them, and report
how our verdicts agree with the file's own."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._gc import paused_gc
from ..domains import get_domain
from ..errors import SessionproofError, StoreError
from ..importers import ImportedSession, RecordError, import_file
from ..importers._internal import LabelRule
from ..records import EventKind, Outcome, Session, ToolCallEvent, ToolResultEvent
from ..records._internal import make_event
from ..scoring import evaluate_session
from ._judges import Judge, Judgement, judge_of
from ._nl_judge import NLJudge, make_judge
from ._project import RECORDED_DOMAIN, Project, attach_scenarios
from ._replay import replay, replayed_calls
from ._score_report import Agreement, ArmScore, Disagreement, ScoreReport, SessionScore

if TYPE_CHECKING:
    from ..store import Store

NO_SCENARIO = (
    "no task or scenario: the record names none, so nothing says what success is (give the "
    "line a `task`, or score with --suite PROJECT where a scenario has the session's id)"
)
"""Why a session read without a task or scenario is not judged."""
RECORDED_REASON = (
    "--domain recorded: read against its own recorded tool results; the domain's state is "
    "unknown, so the session is not judged"
)
"""Why a session scored with `--domain recorded` is not judged."""


def _unjudged(reason: str) -> Judgement:
    """The verdict of a session that cannot be judged: neither a pass nor a failure."""
    return Judgement(outcome=Outcome(success=False, reward=0.0, not_judged=reason), db_match=None)


class _Caches:
    """Each judge's cache for one file (gold states shared by its sessions)."""

    def __init__(self) -> None:
        self._by_judge: dict[int, tuple[Judge, Any]] = {}

    def of(self, judge: Judge) -> Any:
        found = self._by_judge.get(id(judge))
        if found is None:
            found = self._by_judge[id(judge)] = (judge, judge.new_cache())
        return found[1]


def _grade(
    item: ImportedSession, judge: NLJudge | None, caches: _Caches, project: Project | None
) -> Judgement:
    scenario = item.scenario
    if scenario is None:
        return _unjudged(NO_SCENARIO)
    own = judge_of(scenario)  # the benchmark's own judge, when its package built the task
    if own is not None:
        return own.judge_recorded(scenario, item.session, nl_judge=judge, cache=caches.of(own))
    calls = ((c.name, c.arguments or {}) for c in replayed_calls(item.session))
    if project is not None and project.owns(scenario):
        # The project's own lookup and verdict, as `run` judges it (initial_state applied;
        # a domain with no DB of its own judged without the gold-state replay).
        spec = project.domain_for(scenario)
        final, _ = replay(spec, calls)
        outcome = project.evaluate(scenario, item.session, final)
    else:
        spec = get_domain(scenario.domain)
        final, _ = replay(spec, calls)
        outcome = evaluate_session(scenario, item.session, final, spec)
    db = outcome.criterion("db")
    return Judgement(outcome=outcome, db_match=db.passed if db else None)


def _verdict(
    item: ImportedSession,
    recorded: bool,
    judge: NLJudge | None,
    caches: _Caches,
    project: Project | None,
) -> Judgement | None:
    """Our verdict of one session; None when it keeps the verdict it came with (a trace's
    own, a label's) for want of a task or scenario to judge it by."""
    if recorded:
        return _unjudged(RECORDED_REASON)
    if item.scenario is None and item.session.outcome is not None:
        return None
    return _grade(item, judge, caches, project)


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


def _accuracy(graded: int, wins: int) -> float | None:
    return wins / graded if graded else None


def score_transcripts(
    path: Path,
    fmt: str = "auto",
    domain: str | None = None,
    store_path: Path | None = None,
    judge: str | NLJudge | None = None,
    run_id: str | None = None,
    argv: list[str] | None = None,
    label_from: LabelRule | None = None,
    project: Project | None = None,
) -> ScoreReport:
    """Import `path`, judge each session, store them under a new run, report agreement.

    `store_path` None skips storing (the report is still complete). `judge` is a model spec
    (or an NLJudge) for NL assertions; without one they are reported as not evaluated.
    `label_from` (traces, chat logs, ATIF, inspect logs) names each session's own outcome label.
    `project` (`open_project`, from `--suite`): its domains are known, and a session whose
    scenario id is one of its scenarios is judged against it. `domain` `recorded`: every
    session is read against its own recorded results and not judged. A session with no task
    or scenario is not judged either (`not_judged`, with the reason): never a failure.
    """
    with paused_gc():
        return _score_transcripts(
            path,
            fmt,
            domain,
            store_path,
            judge,
            run_id,
            argv,
            label_from,
            time.perf_counter(),
            project,
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
    project: Project | None = None,
) -> ScoreReport:
    from ..store._internal import new_run_id

    run_id = run_id or new_run_id()
    nl_judge = make_judge(judge) if isinstance(judge, str) else judge
    recorded = domain == RECORDED_DOMAIN
    # `recorded` is no domain the importer knows: it only says where the answers come from.
    result = import_file(
        path, fmt, run_id=run_id, domain=None if recorded else domain, label_from=label_from
    )
    if project is not None:
        attach_scenarios(result.sessions, project)
    not_judged: dict[str, int] = {}
    divergences = 0
    caches = _Caches()
    reward, db = Agreement(), Agreement()
    disagreements: list[Disagreement] = []
    scores: list[SessionScore] = []
    tally: dict[str, list[int]] = {}  # arm -> [graded, wins]: arms are never pooled
    errors = list(result.errors)
    kept: list[ImportedSession] = []
    for item in result.sessions:
        session = item.session
        try:
            verdict = _verdict(item, recorded, nl_judge, caches, project)
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
        if recorded:
            divergences += _unanswered(session)
        if item.scenario is not None and project is not None and project.owns(item.scenario):
            # Embedded, so `show --metrics` finds the scenario without loading the project.
            session.metadata = {
                **session.metadata,
                "scenario": item.scenario.model_dump(mode="json"),
            }
        if verdict is not None:
            _attach(session, verdict.outcome)
        # Ours when judged: a session not judged has no verdict to compare or count.
        ours = verdict if verdict is not None and verdict.outcome.judged else None
        if verdict is not None and not verdict.outcome.judged:
            reason = verdict.outcome.not_judged or ""
            not_judged[reason] = not_judged.get(reason, 0) + 1
        elif ours is not None and session.termination.value != "infra_error":
            counts = tally.setdefault(session.arm, [0, 0])
            counts[0] += 1
            counts[1] += ours.outcome.success
        reported = item.reported
        theirs_reward = reported.reward if reported else None
        theirs_db = reported.db_match if reported else None
        ours_reward = ours.outcome.reward if ours is not None else None
        ours_db = ours.db_match if ours is not None else None
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
                success=ours.outcome.success if ours is not None else None,
                reward=ours_reward,
                db_match=ours_db,
                reported_reward=theirs_reward,
                reported_db_match=theirs_db,
                breakdown=ours.breakdown if ours is not None else {},
            )
        )
    if store_path is not None:
        suite = None if project is None or project.suite is None else project.source
        errors.extend(
            _store(store_path, run_id, path, result.format, result.domain, kept, argv, suite)
        )
    return ScoreReport(
        run_id=run_id,
        source=str(path),
        format=result.format,
        domain=result.domain,
        sessions=len(kept),
        graded=sum(graded for graded, _ in tally.values()),
        # One accuracy for a file of one arm; with several, each arm's alone (in `arms`).
        session_accuracy=_accuracy(*next(iter(tally.values()))) if len(tally) == 1 else None,
        arms={
            arm: ArmScore(graded=g, session_accuracy=_accuracy(g, w))
            for arm, (g, w) in tally.items()
        }
        if len(tally) > 1
        else {},
        agreement_reward=reward,
        agreement_db=db,
        disagreements=disagreements,
        errors=errors,
        scores=scores,
        seconds=time.perf_counter() - started,
        not_judged=not_judged,
        divergences=divergences if recorded else None,
        suite=None if project is None or project.suite is None else project.source,
        judged=[item.session for item in kept],
        scenarios={i.scenario.id: i.scenario for i in kept if i.scenario is not None},
    )


def _unanswered(session: Session) -> int:
    """The session's calls that no recorded result answers."""
    answered = {e.payload.call_id for e in session.events_of(ToolResultEvent)}
    return sum(1 for e in session.events_of(ToolCallEvent) if e.payload.id not in answered)


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
    suite: str | None = None,
) -> list[RecordError]:
    # Imported here: judging alone (and the suites that use it) needs no database.
    from ..store import RunManifest, Store
    from ..store._internal import recorded_run

    models = sorted({s.session.model for s in sessions if s.session.model})
    manifest = RunManifest(
        run_id=run_id,
        command="score",
        suite=str(Path(source).resolve()),  # `show --metrics` re-reads it from anywhere
        model=", ".join(models),
        scenario_ids=sorted({s.session.scenario_id for s in sessions}),
        options={"format": fmt, "domain": domain} | ({"suite": suite} if suite else {}),
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
