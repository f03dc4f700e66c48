"""The run-level survival picture, assembled from the per-session survivals of `_survival`:
the curve S(d), first-divergence classes, success by decisions needed, and which sessions were
left out of it and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..domains import DomainSpec
from ..records import Scenario, Session
from ._content import WITHOUT_CONTENT, recorded_without_content
from ._survival import ON_PATH_FAILURE, SessionSurvival, session_survival
from ._trace import GoldReplays, TraceCache, drifted_tools
from .stats import wilson_interval


class SurvivalPoint(BaseModel):
    """S(d) at one depth, with what happened at the next decision."""

    model_config = ConfigDict(extra="forbid")

    depth: int
    survivors: int
    survival: float
    at_risk: int
    """Sessions on path after `depth` decisions that still had a decision to make."""
    diverging: int
    """Of those, sessions whose decision `depth` (0-based) was the first divergence."""
    ended_failed: int
    """Sessions that ended on path after exactly `depth` decisions and failed."""


class NeedBucket(BaseModel):
    """Success of the sessions whose scenario needs `needed` gold writes (or actions)."""

    model_config = ConfigDict(extra="forbid")

    needed: int
    sessions: int
    successes: int
    success_rate: float
    ci95: tuple[float, float]


class SurvivalReport(BaseModel):
    """Survival curve, first divergences and success by decisions needed, for one run."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    curve: list[SurvivalPoint] = Field(default_factory=list)
    divergence_classes: dict[str, int] = Field(default_factory=dict)
    """First-divergence class counts over failed sessions (plus on_path_failure)."""
    diverged_successes: int = 0
    """Successful sessions that nonetheless left the gold path somewhere (reported apart)."""
    success_by_gold_writes: list[NeedBucket] = Field(default_factory=list)
    success_by_gold_actions: list[NeedBucket] = Field(default_factory=list)
    per_session: list[SessionSurvival] = Field(default_factory=list)
    skipped: dict[str, str] = Field(default_factory=dict)
    """Session id → why it was left out."""


def survival_curve(items: Sequence[SessionSurvival]) -> list[SurvivalPoint]:
    """S(d) for d = 0 .. one past the longest session (rule: the module docstring)."""
    if not items:
        return []
    top = max(s.divergence.index if s.divergence else s.decisions for s in items)
    top = max(top, max(s.decisions for s in items))
    points = []
    # One point past the longest session: S there is the share that succeeded on path.
    for depth in range(top + 2):
        survivors = sum(s.on_path(depth) for s in items)
        diverging = sum(1 for s in items if s.divergence and s.divergence.index == depth)
        at_risk = sum(
            1
            for s in items
            if (s.divergence and s.divergence.index >= depth)
            or (s.divergence is None and s.decisions > depth)
        )
        ended = sum(
            1 for s in items if s.divergence is None and not s.success and s.decisions == depth
        )
        points.append(
            SurvivalPoint(
                depth=depth,
                survivors=survivors,
                survival=survivors / len(items),
                at_risk=at_risk,
                diverging=diverging,
                ended_failed=ended,
            )
        )
    return points


def success_by_need(pairs: Iterable[tuple[int, bool]]) -> list[NeedBucket]:
    """Success rate per number needed, from (needed, success) pairs, with Wilson intervals."""
    groups: dict[int, list[bool]] = {}
    for needed, success in pairs:
        groups.setdefault(needed, []).append(success)
    out = []
    for needed in sorted(groups):
        wins, n = sum(groups[needed]), len(groups[needed])
        out.append(
            NeedBucket(
                needed=needed,
                sessions=n,
                successes=wins,
                success_rate=wins / n,
                ci95=wilson_interval(wins, n),
            )
        )
    return out


def survival_report(
    items: Sequence[SessionSurvival],
    skipped: dict[str, str],
    need: Iterable[tuple[int, int, bool]] | None = None,
) -> SurvivalReport:
    """The run-level report from per-session survivals.

    `need` holds (gold writes, gold actions, success) per judged session, so success by need
    can include sessions survival left out (e.g. drifted ones); by default it is read from
    `items`.
    """
    classes: Counter[str] = Counter()
    diverged_successes = 0
    for s in items:
        if s.success:
            diverged_successes += s.divergence is not None
        else:
            classes[s.divergence.kind.value if s.divergence else ON_PATH_FAILURE] += 1
    rows = (
        list(need)
        if need is not None
        else [(s.gold_writes, s.gold_actions, s.success) for s in items]
    )
    return SurvivalReport(
        sessions=len(items),
        curve=survival_curve(items),
        divergence_classes=dict(classes.most_common()),
        diverged_successes=diverged_successes,
        success_by_gold_writes=success_by_need((w, ok) for w, _, ok in rows),
        success_by_gold_actions=success_by_need((a, ok) for _, a, ok in rows),
        per_session=list(items),
        skipped=skipped,
    )


def survival_skip_reason(session: Session, scenario: Scenario | None) -> str | None:
    """Why a session is left out of survival (None when it is judged)."""
    if session.infra_error:
        return "infra_error (not judged)"
    if session.outcome is None:
        return "no verdict"
    if session.outcome.not_judged is not None:
        return f"not judged: {session.outcome.not_judged}"
    if scenario is None:
        return "scenario unavailable"
    if recorded_without_content(session):
        return WITHOUT_CONTENT
    if drifted_tools(session) is not None:
        return "schema drift applied: recorded arguments are not what the domain ran"
    return None


def survival_of(
    sessions: Sequence[Session],
    scenarios: Mapping[str, Scenario],
    spec: Callable[[Scenario], DomainSpec],
    traces: TraceCache,
) -> tuple[SurvivalReport, dict[str, SessionSurvival]]:
    """The survival report of `sessions` against the scenarios whose domain resolved (`spec`
    gives it), and each judged session's survival by id."""
    items: list[SessionSurvival] = []
    skipped: dict[str, str] = {}
    need: list[tuple[int, int, bool]] = []
    replays = GoldReplays()
    for session in sessions:
        scenario = scenarios.get(session.scenario_id)
        why = survival_skip_reason(session, scenario)
        if why is None and scenario is not None:
            domain = spec(scenario)
            if not any(t.write for t in domain.tools()):
                why = "the domain has no write tools: there is no state path to follow"
            else:
                item = session_survival(session, scenario, domain, replays, traces)
                items.append(item)
                need.append((item.gold_writes, item.gold_actions, item.success))
                continue
        skipped[session.session_id] = why or "not judged"
    report = survival_report(items, skipped, need)
    return report, {s.session_id: s for s in items}
