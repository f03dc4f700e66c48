"""From imported transcripts to rerunnable scenarios: which user side replays each one, which
evaluator judges its reruns, and what its original verdict was."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..domains import DomainSpec, get_domain
from ..engine._internal import with_termination
from ..errors import ConfigError, UnknownDomainError
from ..importers import ImportedSession, ImportResult, RecordError
from ..records import Action, Criteria, Outcome, Scenario, UserMessageEvent, UserSpec
from ..scoring import evaluate_session
from ..suites import Judge, NLJudge, Project, replay, replayed_calls
from ..suites._internal import RECORDED_DOMAIN, judge_of
from ._report import JudgedBy, OriginalSource, Skipped

NO_CRITERION = (
    "no criterion: the transcript carries neither a task nor an outcome, so neither the "
    "original nor its reruns are judged; only termination and behaviour are compared"
)
REFERENCE_STATE = (
    "judged by the original's end state: the log marks the original a success and carries "
    "no task, so a rerun succeeds when its tool calls leave the domain as the original's did"
)
RECORDED_NOTE = (
    "{why}: answered from the transcript's own recorded tool results; the domain's state is "
    "unknown, so reruns are not judged: divergences count the calls no recorded call matches"
)
FAILED_NO_TASK = (
    "the log marks the original a failure and carries no task: nothing says what a "
    "successful rerun looks like, so reruns are not judged"
)


@dataclass(frozen=True)
class RerunItem:
    """One transcript ready to rerun."""

    transcript: ImportedSession
    scenario: Scenario
    """What the rerun runs: id = the transcript id, the domain, the user side, criteria."""
    judged_by: JudgedBy
    original: bool | None
    original_source: OriginalSource | None
    note: str | None = None
    """How the transcript is judged, when that needs saying."""
    recorded: DomainSpec | None = None
    """The recorded-response domain it reruns in, when its own domain is not available."""
    own: bool = False
    """True when `scenario` is one of the user's project's (`--suite`): it runs in the
    project's domain lookup and is judged by the project's suite."""

    @property
    def transcript_id(self) -> str:
        """The transcript's id in the file."""
        return self.transcript.session.session_id


def verdict_of(outcome: Outcome | None, infra_error: bool = False) -> bool | None:
    """True or False when judged; None for an infra error, no outcome, an outcome that was
    not judged, or one whose failure rests only on criteria that could not be evaluated
    (never counted as a pass)."""
    if infra_error or outcome is None or not outcome.judged:
        return None
    if outcome.success:
        return True
    if any(c.passed is False for c in outcome.criteria) or not outcome.criteria:
        return False
    return None


def record_label(error: RecordError) -> str:
    """`#INDEX (ID)` of the record an import error is about, or `file`."""
    if error.index is None:
        return "file"
    return f"#{error.index}" + (f" ({error.record_id})" if error.record_id else "")


def _describe(error: RecordError) -> str:
    return f"{error.field}: {error.message}" if error.field else error.message


def import_problems(result: ImportResult) -> tuple[list[Skipped], list[str]]:
    """The import's fatal problems as skipped records, and its warnings as text."""
    skipped = [Skipped(record=record_label(e), why=_describe(e)) for e in result.errors if e.fatal]
    warnings = [str(e) for e in result.errors if not e.fatal]
    return skipped, warnings


def _judge(scenario: Scenario) -> tuple[JudgedBy, Judge | None]:
    """How the scenario is judged: by the judge its benchmark's package registered under
    `criteria.evaluator` (its name), else by its criteria. An evaluator no installed package
    registers costs this record (a ValueError naming it), never a generic verdict."""
    try:
        own = judge_of(scenario)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    if own is None or scenario.criteria.evaluator is None:
        return "criteria", None
    return scenario.criteria.evaluator, own


def _judge_original(
    own: Judge | None,
    scenario: Scenario,
    item: ImportedSession,
    judge: NLJudge | None,
    project: Project | None = None,
) -> Outcome:
    session = item.session
    if own is not None:
        return own.judge_recorded(scenario, session, nl_judge=judge).outcome
    calls = ((c.name, c.arguments or {}) for c in replayed_calls(session))
    if project is not None and project.suite is not None:
        spec = project.suite.domain_for(scenario)
        final, _ = replay(spec, calls)
        outcome = project.suite.evaluate(scenario, session, final)
    else:
        spec = get_domain(scenario.domain)
        final, _ = replay(spec, calls)
        outcome = evaluate_session(scenario, session, final, spec)
    return with_termination(outcome, session.termination)


def _user_turns(item: ImportedSession) -> list[str]:
    texts = [e.payload.content or "" for e in item.session.events_of(UserMessageEvent)]
    return [t for t in texts if t.strip()]


def _reference_actions(item: ImportedSession, domain: str) -> list[Action]:
    # Only calls the domain really ran (answered, with parsed arguments) to tools it has:
    # replaying anything else would not be what the original did.
    known = {t.name for t in get_domain(domain).tools()}
    return [
        Action(tool=c.name, args=dict(c.arguments or {}))
        for c in replayed_calls(item.session)
        if c.name in known
    ]


def _with_task(
    item: ImportedSession,
    scenario: Scenario,
    tid: str,
    domain: str | None,
    judge: NLJudge | None,
    project: Project | None = None,
) -> RerunItem:
    kind, own_judge = _judge(scenario)
    own = project is not None and project.owns(scenario) and domain in (None, scenario.domain)
    if not own:
        project = None
    if domain:
        scenario = scenario.model_copy(
            update={"domain": own_judge.domain_name(domain) if own_judge else domain}
        )
    scenario = scenario.model_copy(update={"id": tid})
    get_domain(scenario.domain)  # an unknown domain costs this record only
    reported = item.reported
    if reported is not None and reported.success is not None:
        return RerunItem(item, scenario, kind, reported.success, "recorded", own=own)
    try:
        outcome = _judge_original(own_judge, scenario, item, judge, project)
    except Exception as exc:  # a record the evaluator chokes on must not end the rerun
        note = f"the original could not be judged: {type(exc).__name__}: {exc}"
        return RerunItem(item, scenario, kind, None, None, note, own=own)
    original = verdict_of(outcome, item.session.infra_error)
    note = "the file records no verdict: the original was judged here against its task"
    source: OriginalSource | None = "judged" if original is not None else None
    return RerunItem(item, scenario, kind, original, source, note, own=own)


def _without_task(item: ImportedSession, tid: str, domain: str) -> RerunItem:
    turns = _user_turns(item)
    if not turns:
        raise ValueError("the transcript has no user message to replay")
    reported = item.reported
    original = reported.success if reported is not None else None
    base = Scenario(id=tid, domain=domain, user=UserSpec(turns=turns), tags=["rerun"])
    if original is True:
        criteria = Criteria(gold_actions=_reference_actions(item, domain), compare_state=True)
        scenario = base.model_copy(update={"criteria": criteria})
        return RerunItem(item, scenario, "reference_state", True, "recorded", REFERENCE_STATE)
    scenario = base.model_copy(update={"criteria": Criteria(compare_state=False)})
    note = FAILED_NO_TASK if original is False else NO_CRITERION
    source: OriginalSource | None = "recorded" if original is not None else None
    return RerunItem(item, scenario, "none", original, source, note)


def _recorded(item: ImportedSession, tid: str, why: str) -> RerunItem:
    """A rerun answered from the transcript's own recorded results (no domain needed)."""
    # The tool sources (httpx among them) load here: planning from a known domain, and a
    # rerun's report, need none of them.
    from ..domains.sources._internal import RecordedDomainSpec

    session = item.session
    domain = session.metadata.get("domain")
    name = f"recorded:{domain}" if isinstance(domain, str) and domain else "recorded"
    spec = RecordedDomainSpec(name, session)
    if item.scenario is not None:
        scenario = item.scenario.model_copy(update={"id": tid, "domain": name})
    else:
        turns = _user_turns(item)
        if not turns:
            raise ValueError("the transcript has no user message to replay")
        scenario = Scenario(id=tid, domain=name, user=UserSpec(turns=turns), tags=["rerun"])
    scenario = scenario.model_copy(update={"criteria": Criteria(compare_state=False)})
    reported = item.reported
    original = reported.success if reported is not None else None
    source: OriginalSource | None = "recorded" if original is not None else None
    note = RECORDED_NOTE.format(why=why)
    return RerunItem(item, scenario, "recorded", original, source, note, spec)


def plan_reruns(
    result: ImportResult,
    *,
    domain: str | None = None,
    judge: NLJudge | None = None,
    limit: int | None = None,
    project: Project | None = None,
) -> tuple[list[RerunItem], list[Skipped]]:
    """The first `limit` imported transcripts as rerun items, and those that cannot be rerun.

    `domain` overrides the domain the importer found (for chat logs, the per-line one too);
    `recorded` answers every transcript from its own recorded tool results. A transcript
    whose domain is not known here is answered from them too, and its note says so.
    `project` (`--suite`): a transcript of one of its scenarios runs in the project's domain
    lookup (its `initial_state` applied) and is judged by the project's suite.
    """
    items: list[RerunItem] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    chosen: Sequence[ImportedSession] = result.sessions[:limit] if limit else result.sessions
    for imported in chosen:
        tid = imported.session.session_id
        if tid in seen:
            tid = f"{tid}#{imported.index}"
        seen.add(tid)
        label = f"#{imported.index} ({imported.session.session_id})"
        try:
            if domain == RECORDED_DOMAIN:
                items.append(_recorded(imported, tid, "--domain recorded"))
                continue
            if imported.scenario is not None:
                items.append(_with_task(imported, imported.scenario, tid, domain, judge, project))
                continue
            dom = domain or imported.session.metadata.get("domain") or result.domain
            if not isinstance(dom, str) or not dom:
                raise ValueError("no domain: the record names none; pass --domain")
            items.append(_without_task(imported, tid, dom))
        except UnknownDomainError as exc:
            try:
                items.append(_recorded(imported, tid, f"domain not available ({exc})"))
            except ValueError as why:
                skipped.append(Skipped(record=label, why=f"{exc}; {why}"))
        except ValueError as exc:
            skipped.append(Skipped(record=label, why=str(exc)))
    return items, skipped
