"""The built-in metrics on the metric protocol, registered in `METRICS` like any plug-in's.

Each is a `BuiltinMetric`: its definition is the text `ALL_METRIC_DEFINITIONS` prints with the
numbers, its per-session value is what a trace's evaluation event carries, and `field` names
the part of `MetricsReport` where `run_metrics` puts its full, structured aggregate (the
survival curve, the call table, ...). The terminal table, `--json`, the HTML report and the
trace events show those fields in their own sections; every registered metric without a
`field` (a user's) appears under `MetricsReport.metrics` and in the generic sections.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SessionproofError
from ..records import Session
from ._attribution import ATTRIBUTION_DEFINITIONS, attribute_failures
from ._calls import CALL_DEFINITIONS, call_accuracy, check_calls
from ._content import recorded_without_content
from ._detection_report import (
    DETECTION_DEFINITIONS,
    detected_share,
    faults_report,
    pooled_detection,
    recovered,
)
from ._metric import (
    METRICS,
    Aggregate,
    Metric,
    Placement,
    SessionInput,
    SessionMetric,
    mean_aggregate,
    rate_aggregate,
)
from ._recovery import RECOVERY_DEFINITION, error_recovery
from ._run_context import RunContext, bootstrap_intervals
from ._summary import METRIC_DEFINITIONS
from ._survival import SURVIVAL_DEFINITIONS, session_survival
from ._survival_report import survival_of, survival_skip_reason
from ._turns import TURN_DEFINITIONS, turn_report
from .stats import pass_hat_k
from .stats._internal import flakiness, pass_at_k

ALL_METRIC_DEFINITIONS: dict[str, str] = {
    **METRIC_DEFINITIONS,
    "pass@k": "mean over scenarios of 1 − C(n−c,k)/C(n,k): the chance that at least one of k "
    "trials succeeds; same infra-error rule as pass^k.",
    "bootstrap_ci": "95% percentile bootstrap interval with the scenario as the resampled unit "
    "(10,000 resamples, seed 0): session_accuracy is the mean of per-scenario success rates "
    "over judged trials, pass^k the mean of per-scenario pass^k.",
    "flakiness": "per scenario, verdict flips between consecutive judged trials; a scenario is "
    "flaky when it both succeeded and failed.",
    **CALL_DEFINITIONS,
    "error_recovery_rate": RECOVERY_DEFINITION,
    **SURVIVAL_DEFINITIONS,
    **ATTRIBUTION_DEFINITIONS,
    **DETECTION_DEFINITIONS,
}
"""Every built-in metric (and the terms they use: a decision, the bootstrap) by name, with
the definition printed with its numbers; the built-in `Metric`s below take theirs from here.
The per-turn ones, `TURN_DEFINITIONS`, are added to a report that has per-turn verdicts, and a
registered metric's own definition to every report that carries it."""


Report = Callable[[RunContext], dict[str, Any]]
"""A built-in's structured aggregate over one arm: the `MetricsReport` fields it fills."""


@dataclass(frozen=True)
class BuiltinMetric(SessionMetric):
    """A built-in metric: a `SessionMetric` whose run-level aggregate is structured (the
    survival curve, the call table, ...) and has its own place in `MetricsReport`."""

    report: Report | None = None
    """Fills its fields of the report (None: another metric's `report` fills them)."""
    field: str = ""
    """Where `MetricsReport` holds its aggregate (dotted)."""


def _verdict(item: SessionInput) -> bool | None:
    return item.session.verdict


def _table(values: Sequence[tuple[Session, float]]) -> dict[str, list[bool | None]]:
    table: dict[str, list[bool | None]] = {}
    for session, v in sorted(values, key=lambda p: (p[0].scenario_id, p[0].trial)):
        table.setdefault(session.scenario_id, []).append(bool(v))
    return table


def _by_k(
    estimator: Callable[[dict[str, list[bool | None]], int], object],
) -> Callable[[Sequence[tuple[Session, float]]], Aggregate]:
    def aggregate(values: Sequence[tuple[Session, float]]) -> Aggregate:
        table = _table(values)
        top = min((len(t) for t in table.values()), default=0)
        found: dict[str, float] = {}
        for k in range(1, top + 1):
            value = getattr(estimator(table, k), "value", None)
            if isinstance(value, float):
                found[str(k)] = value
        first = found.get("1")
        return Aggregate(first, len(table), detail={"by_k": found})

    return aggregate


def _flaky(values: Sequence[tuple[Session, float]]) -> Aggregate:
    rows = flakiness(_table(values))
    flaky = sum(f.flaky for f in rows)
    return Aggregate(flaky / len(rows) if rows else None, len(rows), detail={"flaky": flaky})


def _recovered_share(item: SessionInput) -> float | None:
    total = error_recovery([item.session]).overall
    return total.rate if total.failures else None


def _pooled_recovery(values: Sequence[tuple[Session, float]]) -> Aggregate:
    total = error_recovery([s for s, _ in values]).overall
    return Aggregate(total.rate, total.failures)


def _call_share(which: str) -> Callable[[SessionInput], float | None]:
    """One session's share of valid (or of matched) calls, counted as `call_accuracy` counts
    them; None where it leaves the session out (infra error, no scenario, no content)."""

    def share(item: SessionInput) -> float | None:
        session = item.session
        if item.scenario is None or item.domain is None or session.infra_error:
            return None
        if recorded_without_content(session):
            return None
        checks = [
            c for c in check_calls(session, item.scenario, item.domain) if c.valid is not None
        ]
        if which == "valid":
            judged = [bool(c.valid) for c in checks]
        else:
            judged = [c.matched_gold is not None for c in checks if c.targets_gold_tool]
        return sum(judged) / len(judged) if judged else None

    return share


def _survived(item: SessionInput) -> float | None:
    """The share of the session's decisions on a correct path; None where survival leaves
    the session out (`survival_skip_reason`, or a domain without write tools)."""
    if item.domain is None or survival_skip_reason(item.session, item.scenario) is not None:
        return None
    if item.scenario is None or not any(t.write for t in item.domain.tools()):
        return None
    s = session_survival(item.session, item.scenario, item.domain)
    return s.survived / s.decisions if s.decisions else 1.0


def _summary(ctx: RunContext) -> dict[str, Any]:
    return {"summary": ctx.summary}


def _pass_at(ctx: RunContext) -> dict[str, Any]:
    found = ((k, pass_at_k(ctx.table, k).value) for k in ctx.ks)
    return {"pass_at_k": {str(k): v for k, v in found if v is not None}}


def _bootstrap(ctx: RunContext) -> dict[str, Any]:
    return {"bootstrap_ci": bootstrap_intervals(ctx.table, ctx.ks)}


def _flakiness(ctx: RunContext) -> dict[str, Any]:
    rows = flakiness(ctx.table)
    return {"flakiness": rows, "flaky_scenarios": sum(f.flaky for f in rows)}


def _calls(ctx: RunContext) -> dict[str, Any]:
    ok = ctx.specs.ok
    calls = call_accuracy(ctx.sessions, ok, ctx.specs.spec, ctx.traces) if ok else None
    return {"calls": calls}


def _recovery(ctx: RunContext) -> dict[str, Any]:
    recovery = error_recovery(ctx.sessions, ctx.traces)
    found = recovery.summary()
    found["injected_rate"] = recovery.injected.rate
    found["natural_rate"] = recovery.natural.rate
    found["excluded_infra"] = recovery.excluded_infra
    return {"error_recovery": found}


def _survival_report(ctx: RunContext) -> dict[str, Any]:
    if not ctx.specs.ok:
        return {"survival": None}
    report, ctx.survivals = survival_of(ctx.sessions, ctx.specs.ok, ctx.specs.spec, ctx.traces)
    return {"survival": report}


def _sources(ctx: RunContext) -> dict[str, Any]:
    found = attribute_failures(ctx.sessions, ctx.specs.ok, ctx.survivals, ctx.traces)
    return {"failure_sources": found}


def _faults(ctx: RunContext) -> dict[str, Any]:
    specs = ctx.specs.specs

    def writes(session: Session) -> set[str] | None:
        spec = specs.get(session.scenario_id)
        return None if spec is None else {t.name for t in spec.tools() if t.write}

    return {"faults": faults_report(ctx.sessions, writes)}


def _turns(ctx: RunContext) -> dict[str, Any]:
    return {"turns": turn_report(ctx.sessions)}


def _no_value(item: SessionInput) -> None:
    """Metrics whose per-session result is not a number (a class, a table per turn)."""
    return None


_NONE = Placement(span="none")

BUILTIN_METRICS: tuple[BuiltinMetric, ...] = (
    BuiltinMetric(
        "session_accuracy",
        METRIC_DEFINITIONS["session_accuracy"],
        _verdict,
        rate_aggregate,
        _NONE,  # the verdict is its own event
        report=_summary,
        field="summary.session_accuracy",
    ),
    BuiltinMetric(
        "pass^k",
        METRIC_DEFINITIONS["pass^k"],
        _verdict,
        _by_k(pass_hat_k),
        _NONE,
        field="summary.pass_hat_k",
    ),
    BuiltinMetric(
        "pass@k",
        ALL_METRIC_DEFINITIONS["pass@k"],
        _verdict,
        _by_k(pass_at_k),
        _NONE,
        report=_pass_at,
        field="pass_at_k",
    ),
    BuiltinMetric(
        "bootstrap_ci",
        ALL_METRIC_DEFINITIONS["bootstrap_ci"],
        _verdict,
        mean_aggregate,
        _NONE,
        report=_bootstrap,
        field="bootstrap_ci",
    ),
    BuiltinMetric(
        "flakiness",
        ALL_METRIC_DEFINITIONS["flakiness"],
        _verdict,
        _flaky,
        _NONE,
        report=_flakiness,
        field="flakiness",
    ),
    BuiltinMetric(
        "error_recovery_rate",
        RECOVERY_DEFINITION,
        _recovered_share,
        _pooled_recovery,
        judged_only=False,  # infra sessions are left out by the recovery rules themselves
        report=_recovery,
        field="error_recovery",
    ),
    BuiltinMetric(
        "single_call_accuracy",
        CALL_DEFINITIONS["single_call_accuracy"],
        _call_share("matched"),
        mean_aggregate,
        judged_only=False,
        report=_calls,
        field="calls",
    ),
    BuiltinMetric(
        "call_validity_rate",
        CALL_DEFINITIONS["call_validity_rate"],
        _call_share("valid"),
        mean_aggregate,
        judged_only=False,
        field="calls",
    ),
    BuiltinMetric(
        "survival_by_depth",
        SURVIVAL_DEFINITIONS["survival_by_depth"],
        _survived,
        mean_aggregate,
        report=_survival_report,
        field="survival",
    ),
    BuiltinMetric(
        "failure_source",
        ATTRIBUTION_DEFINITIONS["failure_source"],
        _no_value,  # a class, not a number: its trace event carries it as a label
        mean_aggregate,
        _NONE,
        judged_only=False,
        report=_sources,
        field="failure_sources",
    ),
    BuiltinMetric(
        "fault_detection_rate",
        DETECTION_DEFINITIONS["fault_detection_rate"],
        detected_share,
        pooled_detection,
        judged_only=False,  # read from the trace; infra_error sessions give no value
        report=_faults,
        field="faults",
    ),
    BuiltinMetric(
        "fault_recovery_rate",
        DETECTION_DEFINITIONS["fault_recovery_rate"],
        recovered,
        rate_aggregate,
        field="faults",
    ),
    BuiltinMetric(
        "turn_accuracy_own_history",
        TURN_DEFINITIONS["turn_accuracy_own_history"],
        _no_value,  # one value per turn, not per session
        mean_aggregate,
        _NONE,
        report=_turns,
        field="turns",
    ),
)
"""The built-ins, in the order their definitions are printed."""

BUILTIN_NAMES = frozenset(m.name for m in BUILTIN_METRICS)
"""Names whose aggregates `MetricsReport` holds in fields of their own."""

for _m in BUILTIN_METRICS:
    METRICS.add(_m.name, _m)


def user_metric_names() -> list[str]:
    """Every registered metric name that is not a built-in, sorted (entry points included,
    none of them imported yet)."""
    return [n for n in METRICS.names() if n not in BUILTIN_NAMES]


def registered_user_metrics() -> tuple[dict[str, Metric], dict[str, str]]:
    """Every registered metric other than the built-ins, loaded (name order), and those that
    could not be loaded, with the reason (said where their numbers would be, never dropped)."""
    found: dict[str, Metric] = {}
    problems: dict[str, str] = {}
    for name in user_metric_names():
        try:
            obj = METRICS.get(name)
        except SessionproofError as exc:
            problems[name] = f"could not be loaded: {exc}"
            continue
        if obj is not None:
            found[name] = obj
    return found, problems
