"""Every metric of a run in one report, each with its definition.

`run_metrics` asks each built-in metric (`_builtin_metrics`, in the order their definitions are
printed) for its structured aggregate over the sessions: what needs only the sessions
(accuracy, pass^k / pass@k, bootstrap intervals, flakiness, error recovery) and, for sessions
whose scenario is known, what needs the scenario and its domain (single-call accuracy and
validity, survival by decision depth, first divergence, success by decisions needed, failure
sources); then every other registered metric (a plug-in's, a user's) into `metrics`. Whatever
could not be computed is named in `skipped` with the reason, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..domains import DomainSpec
from ..records import Scenario, Session
from ._attribution import AttributionReport
from ._builtin_metrics import ALL_METRIC_DEFINITIONS, BUILTIN_METRICS, registered_user_metrics
from ._calls import CallAccuracy
from ._detection_report import FaultsReport
from ._metric import MetricValue, SessionInput, compute_metric
from ._run_context import RunContext, Specs
from ._summary import RunSummary
from ._survival_report import SurvivalReport
from ._trace import TraceCache
from ._turns import TURN_DEFINITIONS, TurnReport
from .stats import Interval
from .stats._internal import Flakiness


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
    faults: FaultsReport | None = Field(default=None, exclude_if=lambda v: v is None)
    """Fault detection and recovery by kind (sessions that met a fault only; left out of the
    dump otherwise)."""
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
    if traces is None:
        # Each session's trace walked once, for all the metrics; nothing else kept.
        traces = TraceCache(keep_made=False)
    ctx = RunContext(sessions, Specs(scenarios, domain_for), traces)
    specs = ctx.specs
    fields: dict[str, Any] = {}
    for builtin in BUILTIN_METRICS:
        if builtin.report is not None:
            fields.update(builtin.report(ctx))
    wanted = {s.scenario_id for s in sessions}
    missing = sorted(wanted - set(specs.ok))
    skipped: dict[str, str] = {}
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
    definitions = dict(ALL_METRIC_DEFINITIONS)
    if fields.get("turns") is not None:
        definitions.update(TURN_DEFINITIONS)
    users, problems = user_metric_values(sessions, specs.ok, specs.specs.get)
    skipped.update(problems)
    definitions.update({name: value.definition for name, value in users.items()})
    return MetricsReport(
        sessions=len(sessions),
        **fields,
        scenarios_missing=missing,
        skipped=skipped,
        definitions=definitions,
        metrics=users,
    )
