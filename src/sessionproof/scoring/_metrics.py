"""Every metric of a run in one report, each with its definition.

`run_metrics` computes what needs only the sessions (accuracy, pass^k / pass@k, bootstrap
intervals, flakiness, error recovery) and, for sessions whose scenario is known, what needs the
scenario and its domain (single-call accuracy and validity, survival by decision depth, first
divergence, success by decisions needed, failure sources). Whatever could not be computed is
named in `skipped` with the reason, never silently dropped. The survival curve and the
success-by-need table are assembled here from the per-session survivals of `_survival`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..domains import DomainSpec
from ..errors import SessionproofError
from ..records import Scenario, Session
from ._attribution import AttributionReport, attribute_failures
from ._builtin_metrics import ALL_METRIC_DEFINITIONS, registered_user_metrics
from ._calls import CallAccuracy, call_accuracy
from ._content import WITHOUT_CONTENT, recorded_without_content
from ._metric import MetricValue, SessionInput, compute_metric
from ._recovery import error_recovery
from ._summary import RunSummary, summarize
from ._survival import (
    ON_PATH_FAILURE,
    SessionSurvival,
    session_survival,
)
from ._trace import GoldReplays, TraceCache, drifted_tools
from ._turns import TURN_DEFINITIONS, TurnReport, turn_report
from .stats import (
    Flakiness,
    Interval,
    bootstrap_ci,
    flakiness,
    pass_at_k,
    pass_hat_k,
    trial_table,
    wilson_interval,
)

# -- the run-level picture ----------------------------------------------------------------------


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


class MetricsReport(BaseModel):
    """All the metrics of a set of sessions (one run, or one arm of it)."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    summary: RunSummary
    """Session accuracy with its Wilson interval, pass^k, terminations, infra errors."""
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    bootstrap_ci: dict[str, Interval] = Field(default_factory=dict)
    flakiness: list[Flakiness] = Field(default_factory=list)
    flaky_scenarios: int = 0
    calls: CallAccuracy | None = None
    error_recovery: dict[str, Any] = Field(default_factory=dict)
    survival: SurvivalReport | None = None
    failure_sources: AttributionReport
    turns: TurnReport | None = Field(default=None, exclude_if=lambda v: v is None)
    """Per-turn accuracy in both readings (sessions with per-turn criteria only; left out of
    the dump otherwise, so reports of other runs read as before)."""
    scenarios_missing: list[str] = Field(default_factory=list)
    """Scenario ids the sessions name but `scenarios` does not hold (or whose domain failed)."""
    skipped: dict[str, str] = Field(default_factory=dict)
    """Metric → why it was not computed (or computed for part of the sessions only)."""
    definitions: dict[str, str] = Field(default_factory=lambda: dict(ALL_METRIC_DEFINITIONS))
    metrics: dict[str, MetricValue] = Field(default_factory=dict, exclude_if=lambda v: not v)
    """Every registered metric other than the built-ins (a plug-in's, a user's): name → its
    value over these sessions (left out of the dump when there is none, so reports of runs
    without one read as before)."""


def user_metric_values(
    sessions: Sequence[Session],
    scenarios: Mapping[str, Scenario],
    spec_of: Callable[[str], DomainSpec | None],
) -> tuple[dict[str, MetricValue], dict[str, str]]:
    """Every registered non-built-in metric over `sessions` (one arm's), and the metrics that
    could not be loaded, with the reason (said, never silently dropped)."""
    found, problems = registered_user_metrics()
    if not found:
        return {}, problems
    items = [
        SessionInput(s, scenarios.get(s.scenario_id), spec_of(s.scenario_id)) for s in sessions
    ]
    values = {name: compute_metric(m, items) for name, m in found.items()}
    return values, problems


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


class _Specs:
    """Each scenario's domain spec, resolved once; failures remembered with their reason."""

    def __init__(
        self, scenarios: Mapping[str, Scenario], domain_for: Callable[[Scenario], DomainSpec]
    ) -> None:
        self.ok: dict[str, Scenario] = {}
        self.specs: dict[str, DomainSpec] = {}
        self.problems: dict[str, str] = {}
        for sid, scenario in scenarios.items():
            try:
                self.specs[sid] = domain_for(scenario)
            except SessionproofError as exc:
                self.problems[sid] = str(exc)
                continue
            self.ok[sid] = scenario

    def spec(self, scenario: Scenario) -> DomainSpec:
        """The domain of a scenario that resolved."""
        return self.specs[scenario.id]


def _bootstrap(sessions: Sequence[Session], k_values: Iterable[int]) -> dict[str, Interval]:
    table = trial_table(sessions)
    out: dict[str, Interval] = {}
    # Same values, same interval (the seed is fixed): where every trial of each scenario
    # agrees, session accuracy and pass^k for every k are one list, bootstrapped once.
    done: dict[tuple[float, ...], Interval] = {}

    def interval(values: Sequence[float]) -> Interval:
        key = tuple(values)
        found = done.get(key)
        if found is None:
            found = done[key] = bootstrap_ci(values)
            return found
        return found.model_copy()  # each metric its own object

    rates = [
        sum(bool(v) for v in judged) / len(judged)
        for judged in ([v for v in t if v is not None] for t in table.values())
        if judged
    ]
    if rates:
        out["session_accuracy"] = interval(rates)
    for k in k_values:
        per = pass_hat_k(table, k).per_scenario
        if per:
            out[f"pass^{k}"] = interval(list(per.values()))
    return out


def _survival(
    sessions: Sequence[Session], specs: _Specs, traces: TraceCache
) -> tuple[SurvivalReport, dict[str, SessionSurvival]]:
    items: list[SessionSurvival] = []
    skipped: dict[str, str] = {}
    need: list[tuple[int, int, bool]] = []
    replays = GoldReplays()
    for session in sessions:
        scenario = specs.ok.get(session.scenario_id)
        why = survival_skip_reason(session, scenario)
        if why is None and scenario is not None:
            spec = specs.spec(scenario)
            if not any(t.write for t in spec.tools()):
                why = "the domain has no write tools: there is no state path to follow"
            else:
                item = session_survival(session, scenario, spec, replays, traces)
                items.append(item)
                need.append((item.gold_writes, item.gold_actions, item.success))
                continue
        skipped[session.session_id] = why or "not judged"
    report = survival_report(items, skipped, need)
    return report, {s.session_id: s for s in items}


def run_metrics(
    sessions: Sequence[Session],
    scenarios: Mapping[str, Scenario],
    domain_for: Callable[[Scenario], DomainSpec],
    traces: TraceCache | None = None,
) -> MetricsReport:
    """Every metric of `sessions`, with its definition.

    `scenarios` maps scenario ids to scenarios (it may be empty, or miss some); `domain_for`
    gives a scenario's domain. What cannot be computed is listed in `skipped`. `traces`:
    what was already made of these sessions (`MetricsWarmer.traces`; a new cache if None).
    """
    sessions = list(sessions)
    summary = summarize(sessions)
    table = trial_table(sessions)
    ks = [int(k) for k in summary.pass_hat_k]
    pass_at = {str(k): v for k in ks if (v := pass_at_k(table, k).value) is not None}
    flaky = flakiness(table)
    if traces is None:
        # Each session's trace walked once, for all the metrics; nothing else kept.
        traces = TraceCache(keep_made=False)
    recovery = error_recovery(sessions, traces)
    specs = _Specs(scenarios, domain_for)
    wanted = {s.scenario_id for s in sessions}
    missing = sorted(wanted - set(specs.ok))
    skipped: dict[str, str] = {}
    calls: CallAccuracy | None = None
    survival: SurvivalReport | None = None
    survivals: dict[str, SessionSurvival] = {}
    if specs.ok:
        calls = call_accuracy(sessions, specs.ok, specs.spec, traces)
        survival, survivals = _survival(sessions, specs, traces)
    if missing:
        what = "no scenario is available" if not specs.ok else f"{len(missing)} scenarios missing"
        reasons = sorted({specs.problems.get(m, "not found") for m in missing})
        note = f"{what} ({'; '.join(reasons)[:300]})"
        scoped = "computed without them" if specs.ok else "skipped"
        for name in ("single_call_accuracy", "call_validity_rate", "survival_by_depth"):
            skipped[name] = f"{scoped}: {note}"
        skipped["failure_source"] = (
            f"user rules need the scenario: failures of sessions without one are left "
            f"undetermined unless infra or environment ({note})"
        )
    sources = attribute_failures(sessions, specs.ok, survivals, traces)
    summary_rec = recovery.summary()
    summary_rec["injected_rate"] = recovery.injected.rate
    summary_rec["natural_rate"] = recovery.natural.rate
    summary_rec["excluded_infra"] = recovery.excluded_infra
    turns = turn_report(sessions)
    definitions = dict(ALL_METRIC_DEFINITIONS)
    if turns is not None:
        definitions.update(TURN_DEFINITIONS)
    users, problems = user_metric_values(sessions, specs.ok, specs.specs.get)
    skipped.update(problems)
    definitions.update({name: value.definition for name, value in users.items()})
    return MetricsReport(
        sessions=len(sessions),
        summary=summary,
        pass_at_k=pass_at,
        bootstrap_ci=_bootstrap(sessions, ks),
        flakiness=flaky,
        flaky_scenarios=sum(f.flaky for f in flaky),
        calls=calls,
        error_recovery=summary_rec,
        survival=survival,
        failure_sources=sources,
        turns=turns,
        scenarios_missing=missing,
        skipped=skipped,
        definitions=definitions,
        metrics=users,
    )
