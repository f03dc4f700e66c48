"""`rerun --fork-at`: each transcript's first turns replayed exactly into its domain, then
the candidate (and, optionally, a baseline lane) from that turn on; each lane stored as its
own run, judged as the original was, and compared pair by pair."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from ..agents import Agent, make_agent
from ..engine import Progress, SessionHooks
from ..engine._internal import DEFAULT_MAX_STEPS
from ..errors import ConfigError
from ..importers._internal import LabelRule
from ..records import EventKind, Scenario, Session
from ..store import RunManifest
from ..store._internal import new_run_id
from ..suites import NLJudge, Project
from ..suites._internal import AgentJudge, make_judge
from ._collect import accuracies, collect, paired
from ._fork_collect import NOT_REACHED, against_baseline, with_lanes
from ._fork_lanes import RECORDED_LANE, ForkAgent, ForkHooks, ForkProbe
from ._fork_plan import ForkAt, ForkPlan, TurnBeyond, plan_fork
from ._plan import RerunItem, plan_reruns
from ._report import RerunReport, Skipped
from ._rerun import _agents, _check, _execute, _Sink, read_transcripts
from ._suite import RerunSuite


class _ForkSink(_Sink):
    """A rerun sink that also records each session's fork: the lane, the turn, and whether
    the domain's state there equals the recorded state. A session that ended before its
    fork never met the lane's agent: it is stored unjudged."""

    def __init__(
        self,
        items: dict[str, RerunItem],
        source: str,
        forks: dict[str, ForkPlan],
        probe: ForkProbe,
        lane: str,
    ) -> None:
        super().__init__(items, None, source)
        self.forks = forks
        self.probe = probe
        self.lane = lane

    def write_session(self, session: Session) -> None:
        """Record the fork, then finish and persist the session as a rerun."""
        fork = self.forks[session.scenario_id]
        reached = self.probe.reached(session.session_id)
        state = self.probe.states.get(session.session_id)
        same = (
            None if state is None or fork.recorded_state is None else state == fork.recorded_state
        )
        session.metadata = {
            **session.metadata,
            "fork": {
                "lane": self.lane,
                "turn": fork.turn,
                "reason": fork.reason,
                "reached": reached,
                "state_hash": state,
                "recorded_state_hash": fork.recorded_state,
                "state_matches": same,
            },
        }
        if not reached:
            session.outcome = None
            session.events = [e for e in session.events if e.kind is not EventKind.verdict]
            session.metadata["not_judged"] = NOT_REACHED.format(turn=fork.turn)
        super().write_session(session)


class _LaneProgress:
    """Progress of one lane: each session shown under its lane's name, so a running accuracy
    is never the two lanes pooled (both are stored as arm `baseline` of their own run)."""

    def __init__(self, inner: Progress, lane: str) -> None:
        self.inner = inner
        self.lane = lane

    def start(self, total: int, done: int) -> None:
        """The lane's total."""
        self.inner.start(total, done)

    def advance(self, session: Session) -> None:
        """One more session of the lane."""
        self.inner.advance(session.model_copy(update={"arm": f"{self.lane} lane"}))


def _lane_scenarios(
    items: Sequence[RerunItem], forks: dict[str, ForkPlan], max_steps: int, whole: bool
) -> list[Scenario]:
    """The scenarios a lane runs: the replayed decisions do not count against `max_steps`,
    and a script made of the transcript's own user messages is read turn by turn as the
    fork replays them (user messages in a row are one turn)."""
    out = []
    for item in items:
        fork = forks[item.scenario.id]
        extra = fork.total_steps + 1 if whole else fork.prefix_steps
        update: dict[str, object] = {"max_steps": max_steps + extra}
        user = item.scenario.user
        if item.transcript.scenario is None and user.turns:
            update["user"] = user.model_copy(update={"turns": [t.user for t in fork.turns]})
        out.append(item.scenario.model_copy(update=update))
    return out


def _plan_forks(
    items: Sequence[RerunItem], suite: RerunSuite, fork_at: ForkAt
) -> tuple[list[RerunItem], dict[str, ForkPlan], list[Skipped]]:
    forked: list[RerunItem] = []
    forks: dict[str, ForkPlan] = {}
    not_forked: list[Skipped] = []
    beyond: list[int] = []
    for item in items:
        try:
            forks[item.scenario.id] = plan_fork(item, suite.domain_for(item.scenario), fork_at)
            forked.append(item)
        except TurnBeyond as exc:
            beyond.append(exc.turns)
            not_forked.append(Skipped(record=item.transcript_id, why=str(exc)))
        except ValueError as exc:
            not_forked.append(Skipped(record=item.transcript_id, why=str(exc)))
    if items and len(beyond) == len(items):
        raise ConfigError(
            f"--fork-at {fork_at} is beyond every transcript (the longest has turns "
            f"0..{max(beyond) - 1})"
        )
    return forked, forks, not_forked


async def afork(
    path: str | Path,
    model: str | Agent,
    *,
    fork_at: ForkAt,
    baseline_lane: str | Agent | None = None,
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
    """Fork every transcript of `path` (see `fork`)."""
    _check(trials, limit, concurrency, max_steps)
    source = Path(path)
    run_id = new_run_id()
    base_id = new_run_id() if baseline_lane is not None else None
    result, skipped, warnings = read_transcripts(source, fmt, run_id, domain, label_from, project)
    candidate, user, made = await _agents(model, user_model, seed)
    lanes: dict[str, tuple[str, ForkAgent, _ForkSink]] = {}
    try:
        nl_judge = make_judge(judge) if isinstance(judge, str) else judge
        if isinstance(judge, str) and isinstance(nl_judge, AgentJudge):
            made.append(nl_judge.agent)
        items, not_runnable = plan_reruns(
            result, domain=domain, judge=nl_judge, limit=limit, project=project
        )
        skipped.extend(not_runnable)
        whole = RerunSuite(
            f"rerun:{source.name}",
            [i.scenario for i in items],
            {i.scenario.id: i.judged_by for i in items},
            nl_judge,
            {i.scenario.id: i.recorded for i in items if i.recorded is not None},
            None if project is None else project.suite,
            {i.scenario.id for i in items if i.own},
        )
        forked, forks, not_forked = _plan_forks(items, whole, fork_at)
        other: Agent | None = None
        if isinstance(baseline_lane, str) and baseline_lane != RECORDED_LANE:
            same = isinstance(model, str) and baseline_lane.strip() == model.strip()
            other = candidate if same else make_agent(baseline_lane, seed=seed)
            if not same:
                made.append(other)
        elif baseline_lane is not None and not isinstance(baseline_lane, str):
            other = baseline_lane
        simulated = user is not None and any(not i.scenario.user.scripted for i in forked)
        user_name = user.name if simulated and user is not None else None
        lane_list: list[tuple[str, str, Agent | None]] = [("candidate", run_id, candidate)]
        if baseline_lane is not None and base_id is not None:
            lane_list.append(("baseline", base_id, other))
        for lane, lane_run, agent in lane_list:
            probe = ForkProbe({})
            recorded_lane = agent is None
            scenarios = _lane_scenarios(forked, forks, max_steps, recorded_lane)
            suite = RerunSuite(
                whole.name,
                scenarios,
                whole.judged_by,
                nl_judge,
                whole.recorded,
                whole.project,
                whole.own,
            )
            fork_agent = ForkAgent(forks, agent)
            manifest = RunManifest(
                run_id=lane_run,
                command="rerun",
                suite=str(source.resolve()),
                suite_hash=suite.content_hash(),
                model=fork_agent.name,
                user_model=None if recorded_lane else user_name,
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
                    "fork_at": str(fork_at),
                    "fork_lane": lane,
                    "fork_runs": {"candidate": run_id, "baseline": base_id},
                }
                | ({"suite": project.source} if project is not None and project.source else {}),
                scenario_ids=[s.id for s in scenarios],
                argv=argv or [],
            )
            sink = _ForkSink({i.scenario.id: i for i in forked}, str(source), forks, probe, lane)
            lanes[lane] = (lane_run, fork_agent, sink)

            def hooks_for(
                arm: str,
                session_seed: int,
                scenario: Scenario,
                probe: ForkProbe = probe,
                whole_lane: bool = recorded_lane,
            ) -> SessionHooks:
                return ForkHooks(forks[scenario.id], probe, whole_lane)

            if forked:
                await _execute(
                    suite,
                    fork_agent,
                    None if recorded_lane else user,
                    manifest,
                    sink,
                    store_path,
                    None if progress is None else _LaneProgress(progress, lane),
                    hooks_for,
                )
    finally:
        for agent in made:
            await agent.aclose()
    cand = lanes["candidate"][2].sessions
    base = lanes["baseline"][2].sessions if "baseline" in lanes else None
    results = with_lanes(collect(forked, cand), forked, forks, cand, base)
    original_accuracy, rerun_accuracy = accuracies(results)
    comparison, note = paired(results, seed) if forked else (None, "no transcript was forked")
    vs_base, base_note = (None, None)
    base_accuracy = None
    if base is not None:
        vs_base, base_note = against_baseline(results, seed)
        judged = [v for r in results for v in r.baseline if v is not None]
        base_accuracy = sum(judged) / len(judged) if judged else None
    lane_name = None
    if baseline_lane is not None:
        lane_name = baseline_lane if isinstance(baseline_lane, str) else baseline_lane.name
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
        recorded=sum(1 for i in forked if i.recorded is not None),
        store=str(store_path) if store_path is not None and forked else None,
        fork_at=str(fork_at),
        baseline_lane=lane_name,
        baseline_run_id=base_id if forked else None,
        baseline_accuracy=base_accuracy,
        baseline_paired=vs_base,
        baseline_paired_note=base_note,
        not_forked=not_forked,
    )


def fork(
    path: str | Path,
    model: str | Agent,
    *,
    fork_at: ForkAt,
    baseline_lane: str | Agent | None = None,
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
    """Fork every transcript of `path` at `fork_at` (a turn, or `divergence`: the turn of
    the first divergence scoring finds in a failed original; a passed one is not forked,
    and `not_forked` says so) and hand it to `model` from there.

    The turns before the fork are replayed exactly: the recorded user messages, and the
    recorded agent messages whose tool calls run against the domain, so the state at the
    fork is the recorded one (each session notes its state hash there beside the recorded
    state's). From the fork on, the candidate answers and the user side goes on as in
    `rerun` (the task's simulated user, or the remaining scripted messages) after the
    recorded user message of the fork's turn. `baseline_lane` runs the same forks with
    another agent, or with `recorded`: the recorded agent's own later messages (and the
    recorded user's), the original replayed whole through the fork, so what the fork itself
    changes is seen apart from what the candidate changes. Each lane is stored as its own
    `rerun` run. The other arguments are `rerun`'s.
    """
    return asyncio.run(
        afork(
            path,
            model,
            fork_at=fork_at,
            baseline_lane=baseline_lane,
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
