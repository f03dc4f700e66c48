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

from ..errors import SessionproofError
from ..records import Session
from ._arms import ARM_DEFINITIONS
from ._attribution import ATTRIBUTION_DEFINITIONS
from ._calls import CALL_DEFINITIONS, check_calls
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
from ._recovery import error_recovery
from ._summary import METRIC_DEFINITIONS
from ._survival import SURVIVAL_DEFINITIONS, session_survival
from .stats import flakiness, pass_at_k, pass_hat_k

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
    "error_recovery_rate": ARM_DEFINITIONS["error_recovery_rate"],
    **SURVIVAL_DEFINITIONS,
    **ATTRIBUTION_DEFINITIONS,
}
"""Every built-in metric (and the terms they use: a decision, the bootstrap) by name, with
the definition printed with its numbers; the built-in `Metric`s below take theirs from here.
The per-turn ones, `TURN_DEFINITIONS`, are added to a report that has per-turn verdicts, and a
registered metric's own definition to every report that carries it."""


@dataclass(frozen=True)
class BuiltinMetric(SessionMetric):
    """A built-in metric: a `SessionMetric` whose run-level aggregate has its own place."""

    field: str = ""
    """Where `MetricsReport` holds its structured aggregate (dotted)."""


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
    def share(item: SessionInput) -> float | None:
        if item.scenario is None or item.domain is None:
            return None
        checks = check_calls(item.session, item.scenario, item.domain)
        if which == "valid":
            judged = [c.valid for c in checks if c.valid is not None]
        else:
            judged = [c.matched_gold is not None for c in checks if c.targets_gold_tool]
        return sum(judged) / len(judged) if judged else None

    return share


def _survived(item: SessionInput) -> float | None:
    if item.scenario is None or item.domain is None:
        return None
    if not any(t.write for t in item.domain.tools()):
        return None
    s = session_survival(item.session, item.scenario, item.domain)
    return s.survived / s.decisions if s.decisions else 1.0


_NONE = Placement(span="none")

BUILTIN_METRICS: tuple[BuiltinMetric, ...] = (
    BuiltinMetric(
        "session_accuracy",
        METRIC_DEFINITIONS["session_accuracy"],
        _verdict,
        rate_aggregate,
        _NONE,  # the verdict is its own event
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
        field="pass_at_k",
    ),
    BuiltinMetric(
        "flakiness",
        ALL_METRIC_DEFINITIONS["flakiness"],
        _verdict,
        _flaky,
        _NONE,
        field="flakiness",
    ),
    BuiltinMetric(
        "error_recovery_rate",
        ARM_DEFINITIONS["error_recovery_rate"],
        _recovered_share,
        _pooled_recovery,
        judged_only=False,  # infra sessions are left out by the recovery rules themselves
        field="error_recovery",
    ),
    BuiltinMetric(
        "single_call_accuracy",
        CALL_DEFINITIONS["single_call_accuracy"],
        _call_share("matched"),
        mean_aggregate,
        judged_only=False,
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
        field="survival",
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
