"""`rerun`: replay real transcripts' user side against a candidate agent in the same domain,
judge each rerun as the original was judged, store the reruns as a run, and compare."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..agents import Agent
from ..agents._internal import plays_users
from ..engine import Progress, SessionHooks, execute_run
from ..engine._internal import DEFAULT_MAX_STEPS, HooksFactory, NoHooks, RunPlan
from ..errors import ConfigError
from ..importers import ImportResult, import_file
from ..importers._internal import LabelRule
from ..records import EventKind, Scenario, Session
from ..store import RunManifest, Store
from ..store._internal import new_run_id, recorded_run
from ..suites import NLJudge, Project
from ..suites._internal import RECORDED_DOMAIN, AgentJudge, attach_scenarios, make_judge
from ._collect import accuracies, collect, paired
from ._plan import RerunItem, import_problems, plan_reruns
from ._report import RerunReport, Skipped
from ._suite import RerunSuite

"""Candidates that are not language models: with no `user_model`, a task's user states its
instructions as one message instead of being simulated (as `sessionproof run` does)."""


class _Sink:
    """Tags each finished rerun with the transcript it reruns, drops the placeholder verdict
    of a transcript with no criterion, and stores it (when a store is given)."""

    def __init__(self, items: dict[str, RerunItem], store: Store | None, source: str) -> None:
        self.items = items
        self.store = store
        self.source = source
        self.sessions: list[Session] = []

    def write_session(self, session: Session) -> None:
        """Finish and persist one rerun session."""
        item = self.items[session.scenario_id]
        session.metadata = {
            **session.metadata,
            "rerun_of": item.transcript_id,
            "task": item.transcript.session.scenario_id,
            "source": self.source,
            "judged_by": item.judged_by,
        }
        if item.judged_by in ("none", "recorded"):
            # Nothing says what success is: the session is stored unjudged, not as a failure.
            session.outcome = None
            session.events = [e for e in session.events if e.kind is not EventKind.verdict]
        if self.store is not None:
            self.store.write_session(session)
        self.sessions.append(session)


async def _agents(
    model: str | Agent, user_model: str | Agent | None, seed: int
) -> tuple[Agent, Agent | None, list[Agent]]:
    """(candidate, simulated user's model or None, the agents made here and to be closed)."""
    from ..agents import make_agent

    made: list[Agent] = []
    if isinstance(model, str):
        candidate = make_agent(model, seed=seed)
        made.append(candidate)
    else:
        candidate = model
    user: Agent | None
    if user_model is None:
        user = candidate if plays_users(candidate) else None
    elif isinstance(user_model, str):
        if isinstance(model, str) and user_model.strip() == model.strip():
            user = candidate
        else:
            try:
                user = make_agent(user_model, tool_mode="native", seed=seed)
            except BaseException:
                for agent in made:
                    await agent.aclose()
                raise
            made.append(user)
    else:
        user = user_model
    return candidate, user, made


def _check(trials: int, limit: int | None, concurrency: int, max_steps: int) -> None:
    if trials < 1:
        raise ConfigError(f"trials must be at least 1, got {trials}")
    if limit is not None and limit < 1:
        raise ConfigError(f"limit must be at least 1, got {limit}")
    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency}")
    if max_steps < 1:
        raise ConfigError(f"max_steps must be at least 1, got {max_steps}")


def read_transcripts(
    source: Path,
    fmt: str,
    run_id: str,
    domain: str | None,
    label_from: LabelRule | None,
    project: Project | None,
) -> tuple[ImportResult, list[Skipped], list[str]]:
    """The file's transcripts (with the project's scenarios attached), the records that
    could not be read, and the importer's warnings."""
    # `recorded` is no domain the importer knows: it only says where the answers come from.
    result = import_file(
        source,
        fmt,
        run_id=run_id,
        domain=None if domain == RECORDED_DOMAIN else domain,
        label_from=label_from,
    )
    if project is not None:
        attach_scenarios(result.sessions, project)
    skipped, warnings = import_problems(result)
    return result, skipped, warnings


async def arerun(
    path: str | Path,
    model: str | Agent,
    *,
    fmt: str = "auto",
    domain: str | None = None,
    trials: int = 1,
    user_model: str | Agent | None = None,
    limit: int | None = None,
    concurrency: int = 4,
    seed: int = 0,
    store_path: str | Path | None = None,
    judge: str | NLJudge | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    progress: Progress | None = None,
    argv: list[str] | None = None,
    label_from: LabelRule | None = None,
    project: Project | None = None,
) -> RerunReport:
    """Async form of `rerun`."""
    _check(trials, limit, concurrency, max_steps)
    source = Path(path)
    run_id = new_run_id()
    result, skipped, warnings = read_transcripts(source, fmt, run_id, domain, label_from, project)
    candidate, user, made = await _agents(model, user_model, seed)
    try:
        nl_judge = make_judge(judge) if isinstance(judge, str) else judge
        if isinstance(judge, str) and isinstance(nl_judge, AgentJudge):
            made.append(nl_judge.agent)  # made here from a spec: ours to close
        items, not_runnable = plan_reruns(
            result, domain=domain, judge=nl_judge, limit=limit, project=project
        )
        skipped.extend(not_runnable)
        simulated = user is not None and any(not i.scenario.user.scripted for i in items)
        user_name = user.name if simulated and user is not None else None
        suite = RerunSuite(
            f"rerun:{source.name}",
            [i.scenario for i in items],
            {i.scenario.id: i.judged_by for i in items},
            nl_judge,
            {i.scenario.id: i.recorded for i in items if i.recorded is not None},
            None if project is None else project.suite,
            {i.scenario.id for i in items if i.own},
        )
        manifest = RunManifest(
            run_id=run_id,
            command="rerun",
            suite=str(Path(source).resolve()),  # `show --metrics` re-reads it from anywhere
            suite_hash=suite.content_hash(),
            model=candidate.name,
            user_model=user_name,
            seed=seed,
            trials=trials,
            arms=["baseline"],
            max_steps=max_steps,
            limit=limit,
            concurrency=concurrency,
            options={
                "format": result.format,
                "domain": domain,
                "judge": nl_judge.name if nl_judge else None,
            }
            | ({"suite": project.source} if project is not None and project.source else {}),
            scenario_ids=[i.scenario.id for i in items],
            argv=argv or [],
        )
        sink = _Sink({i.scenario.id: i for i in items}, None, str(source))
        if items:
            await _execute(suite, candidate, user, manifest, sink, store_path, progress)
    finally:
        for agent in made:
            await agent.aclose()
    results = collect(items, sink.sessions)
    original_accuracy, rerun_accuracy = accuracies(results)
    comparison, note = paired(results, seed)
    return RerunReport(
        run_id=run_id,
        source=str(source),
        format=result.format,
        model=candidate.name,
        user_model=user_name,
        trials=trials,
        transcripts=results,
        original_accuracy=original_accuracy,
        rerun_accuracy=rerun_accuracy,
        paired=comparison,
        paired_note=note,
        skipped=skipped,
        warnings=warnings,
        recorded=sum(1 for i in items if i.recorded is not None),
        store=str(store_path) if store_path is not None and items else None,
    )


def _plain(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    """The hooks of a plain rerun: none."""
    return NoHooks()


async def _execute(
    suite: RerunSuite,
    candidate: Agent,
    user: Agent | None,
    manifest: RunManifest,
    sink: _Sink,
    store_path: str | Path | None,
    progress: Progress | None,
    hooks_for: HooksFactory | None = None,
) -> None:
    """Run every rerun session into `sink`, inside a stored run when `store_path` is set
    (`hooks_for`: each session's hooks, as for `execute_run`)."""
    plan = RunPlan(
        run_id=manifest.run_id,
        trials=manifest.trials,
        seed=manifest.seed,
        concurrency=manifest.concurrency,
        max_steps=manifest.max_steps or DEFAULT_MAX_STEPS,
    )
    hooks = hooks_for or _plain
    if store_path is None:
        await execute_run(
            suite, candidate, plan, sink, user_model=user, progress=progress, hooks_for=hooks
        )
        return
    # Any error marks the run `interrupted`: a rerun is not resumable, so it must not look live.
    with Store.open(store_path) as store, recorded_run(store, manifest, on_error="interrupted"):
        sink.store = store
        await execute_run(
            suite, candidate, plan, sink, user_model=user, progress=progress, hooks_for=hooks
        )


def rerun(
    path: str | Path,
    model: str | Agent,
    *,
    fmt: str = "auto",
    domain: str | None = None,
    trials: int = 1,
    user_model: str | Agent | None = None,
    limit: int | None = None,
    concurrency: int = 4,
    seed: int = 0,
    store_path: str | Path | None = None,
    judge: str | NLJudge | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    progress: Progress | None = None,
    argv: list[str] | None = None,
    label_from: LabelRule | None = None,
    project: Project | None = None,
) -> RerunReport:
    """Rerun every transcript of `path` against `model` (a `--model` spec or an `Agent`).

    Each transcript's user side is replayed: its own user messages in order (a scripted
    user) or, when the file attaches a task (tau2 and tau-bench files always do), a user
    simulated by `user_model` (default: the candidate; for `oracle` and `python:` agents
    with no user model, the task's instructions stated as one message). The rerun runs in
    the transcript's domain (`domain` overrides) and is judged as the original was: tau2
    reward, tau-bench reward, the generic verdict of an attached scenario, or, for a chat
    log whose only verdict is its `outcome`, by reaching the successful original's end state.

    Sessions are stored as a run (`command="rerun"`) when `store_path` is given. Records
    that cannot be read or rerun are listed in `skipped`; the rest still run. Raises
    `InputFileError` when the file cannot be read at all, `ConfigError` for bad options.
    `label_from` (traces, chat logs, ATIF, inspect logs) names each original's outcome label.
    `project` (`open_project`, from `--suite`): the user's project, whose domains are then
    known and whose scenarios a transcript of the same scenario id reruns and is judged by.
    """
    return asyncio.run(
        arerun(
            path,
            model,
            fmt=fmt,
            domain=domain,
            trials=trials,
            user_model=user_model,
            limit=limit,
            concurrency=concurrency,
            seed=seed,
            store_path=store_path,
            judge=judge,
            max_steps=max_steps,
            progress=progress,
            argv=argv,
            label_from=label_from,
            project=project,
        )
    )
