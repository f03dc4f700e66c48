"""The metric protocol: what a metric is, where metrics are registered, how one is computed.

A metric has a name, a definition (the text printed with its numbers), a value per session
(None: not applicable to that session) and an aggregation of those values over the sessions
of one arm (a value with, optionally, an interval, the count it rests on and a structured
detail). `placement` says where else it goes: per arm (always: arms are never pooled) and
onto which span of a trace its per-session value is written as a `gen_ai.evaluation.result`
event.

Metrics are registered in `METRICS`, a `Registry("metrics")`: the built-ins (see
`_builtin_metrics`), the `sessionproof.metrics` entry-point group of any installed package,
and `register_metric` / `@metric` at run time. `compute_metric` applies one metric to one
arm's sessions: a session that was not judged is left out of a metric that reads verdicts
(`judged_only`, the default), and a session whose value raised is named with the reason in
`missing` while the other sessions are still counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from .._plugins import Registry
from ..domains import DomainSpec
from ..errors import ConfigError
from ..records import Scenario, Session
from ..store._internal import scrub_text
from ._summary import verdict_of
from .stats import wilson_interval
from .stats._internal import bootstrap_ci

Span = Literal["session", "call", "none"]
"""Where a metric's values are written in a trace: its per-session value on the session's
`invoke_agent` span, its per-call values (`call_values`) on each call's `execute_tool` span,
or nowhere."""


@dataclass(frozen=True)
class Placement:
    """Where a metric's numbers appear besides the run's tables."""

    per_arm: bool = True
    """Computed for each arm apart (the only choice sessionproof offers: arms never pool)."""
    span: Span = "session"
    """The span its per-session value is written on as an evaluation event."""


@dataclass(frozen=True)
class SessionInput:
    """What a metric sees of one session: the session, and its scenario and domain when known."""

    session: Session
    scenario: Scenario | None = None
    domain: DomainSpec | None = None


@dataclass(frozen=True)
class Aggregate:
    """A metric over one arm's sessions: its value and what it rests on."""

    value: float | None
    n: int
    """Sessions (or other units, as the definition says) the value rests on."""
    ci95: tuple[float, float] | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Metric(Protocol):
    """A metric sessionproof computes per arm and prints with its definition."""

    @property
    def name(self) -> str:
        """The name it is printed, exported and registered under."""
        ...

    @property
    def definition(self) -> str:
        """What it measures, printed with its numbers (never empty)."""
        ...

    @property
    def placement(self) -> Placement:
        """Where its numbers go besides the run's tables."""
        ...

    @property
    def judged_only(self) -> bool:
        """Leave sessions without a verdict out (they are never a pass nor a failure)."""
        ...

    def value(self, item: SessionInput) -> float | None:
        """The session's value; None when the metric does not apply to it."""
        ...

    def aggregate(self, values: Sequence[tuple[Session, float]]) -> Aggregate:
        """The metric over the sessions that have a value (one arm's)."""
        ...


class MetricValue(BaseModel):
    """One registered metric's result for one arm, as `--json` and the report carry it."""

    model_config = ConfigDict(extra="forbid")

    value: float | None
    n: int
    ci95: tuple[float, float] | None = None
    definition: str
    not_applicable: int = 0
    """Sessions the metric gave no value for (None)."""
    not_judged: int = 0
    """Sessions left out because they were not judged (`judged_only` metrics)."""
    missing: dict[str, str] = Field(default_factory=dict)
    """Session id → why its value is missing (the metric raised on it)."""
    detail: dict[str, Any] = Field(default_factory=dict)


def mean_aggregate(values: Sequence[tuple[Session, float]]) -> Aggregate:
    """The mean of the values with a 95% percentile bootstrap interval of the per-scenario
    means (the scenario is the resampled unit: trials of one scenario are not independent)."""
    numbers = [v for _, v in values]
    if not numbers:
        return Aggregate(None, 0)
    by_scenario: dict[str, list[float]] = {}
    for session, v in values:
        by_scenario.setdefault(session.scenario_id, []).append(v)
    interval = bootstrap_ci([sum(vs) / len(vs) for vs in by_scenario.values()])
    return Aggregate(sum(numbers) / len(numbers), len(numbers), (interval.low, interval.high))


def rate_aggregate(values: Sequence[tuple[Session, float]]) -> Aggregate:
    """For values that are 0 or 1 (True / False): the share of ones with its 95% Wilson
    interval, as session accuracy has it."""
    numbers = [v for _, v in values]
    if not numbers:
        return Aggregate(None, 0)
    wins = sum(1 for v in numbers if v)
    return Aggregate(wins / len(numbers), len(numbers), wilson_interval(wins, len(numbers)))


class _Aggregated:
    """The aggregation the decorated metrics share: their `aggregator` over the values."""

    aggregator: Callable[[Sequence[tuple[Session, float]]], Aggregate]

    def aggregate(self, values: Sequence[tuple[Session, float]]) -> Aggregate:
        """`aggregator` over the values (for a `CallMetric`: the per-session means)."""
        return self.aggregator(values)


@dataclass(frozen=True)
class SessionMetric(_Aggregated):
    """A metric made from a per-session function, aggregated by `aggregator` (the mean with
    its interval by default). What `@metric` and `register_metric` build."""

    name: str
    definition: str
    fn: Callable[[SessionInput], float | bool | None]
    aggregator: Callable[[Sequence[tuple[Session, float]]], Aggregate] = mean_aggregate
    placement: Placement = Placement()
    judged_only: bool = True

    def value(self, item: SessionInput) -> float | None:
        """`fn`'s value for the session, as a float (True 1.0, False 0.0)."""
        found = self.fn(item)
        return None if found is None else float(found)


CallValues = Callable[[SessionInput], Mapping[str, float | bool | None]]
"""Per-call values of a session: tool call id → its value (None: the call is not judged)."""


@dataclass(frozen=True)
class CallMetric(_Aggregated):
    """A metric placed on tool calls: `fn` gives each call of a session its value; a
    session's value is the mean over its judged calls (None when it has none), aggregated
    by `aggregator`. Each call's value is written on that call's `execute_tool` span."""

    name: str
    definition: str
    fn: CallValues
    aggregator: Callable[[Sequence[tuple[Session, float]]], Aggregate] = mean_aggregate
    placement: Placement = Placement(span="call")
    judged_only: bool = True

    def call_values(self, item: SessionInput) -> dict[str, float]:
        """Each judged call's value (True 1.0, False 0.0), by tool call id."""
        return {cid: float(v) for cid, v in self.fn(item).items() if v is not None}

    def value(self, item: SessionInput) -> float | None:
        """The mean over the session's judged calls; None when it has none."""
        values = list(self.call_values(item).values())
        return sum(values) / len(values) if values else None


def _check_metric(name: str, obj: Any) -> Metric:
    if isinstance(obj, type):
        try:
            obj = obj()
        except TypeError as exc:
            raise ConfigError(f"metric {name!r}: cannot make {obj.__name__}() ({exc})") from exc
    if not isinstance(obj, Metric):
        raise ConfigError(
            f"metric {name!r}: {type(obj).__name__} is not a Metric (it needs name, "
            "definition, placement, judged_only, value() and aggregate())"
        )
    if not isinstance(obj.definition, str) or not obj.definition.strip():
        raise ConfigError(f"metric {name!r}: its definition is empty (it is printed with it)")
    if obj.placement.span == "call" and not callable(getattr(obj, "call_values", None)):
        raise ConfigError(f"metric {name!r}: placed on calls, it needs call_values()")
    return obj


METRICS: Registry[Metric] = Registry("metrics", check=_check_metric)
"""Every metric: the built-ins, the `sessionproof.metrics` entry points, run-time ones."""


def register_metric(metric: Metric | str, name: str | None = None) -> None:
    """Register `metric` (an object, or a lazily imported `module:attr`) under its name (or
    `name`): from then on every report, `--json`, the HTML report and the trace events of
    this process carry it."""
    if isinstance(metric, str):
        if name is None:
            raise ConfigError(f"register_metric({metric!r}): a reference needs a name")
        METRICS.add(name, metric)
        return
    METRICS.add(name or _check_metric(getattr(metric, "name", "?"), metric).name, metric)


def metric(
    name: str,
    definition: str,
    *,
    aggregator: Callable[[Sequence[tuple[Session, float]]], Aggregate] = mean_aggregate,
    span: Span = "session",
    judged_only: bool = True,
    register: bool = True,
) -> Callable[[Callable[[SessionInput], Any]], SessionMetric | CallMetric]:
    """Decorator: a function of a `SessionInput` becomes a registered metric named `name`.

    With `span="session"` (or `"none"`) the function returns the session's number (or a bool),
    or None when the metric does not apply to it: a `SessionMetric`. With `span="call"` it
    returns a mapping of tool call id → value (None: that call is not judged): a `CallMetric`,
    whose values also go on each call's span. `register=False` only builds the metric (for an
    entry point, which names the object itself)."""

    def wrap(fn: Callable[[SessionInput], Any]) -> SessionMetric | CallMetric:
        made: SessionMetric | CallMetric
        if span == "call":
            made = CallMetric(name, definition, fn, aggregator, judged_only=judged_only)
        else:
            made = SessionMetric(
                name, definition, fn, aggregator, Placement(span=span), judged_only=judged_only
            )
        if register:
            register_metric(made)
        return made

    return wrap


def _reason(exc: BaseException) -> str:
    # Said in reports, --json and trace events: a credential in the message is redacted.
    text = scrub_text(str(exc).splitlines()[0][:200]) if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def session_value(metric_: Metric, item: SessionInput) -> tuple[float | None, str | None]:
    """(value, None), or (None, why) when the metric raised or gave no finite number."""
    try:
        found = metric_.value(item)
    except Exception as exc:  # a plug-in's bug: that session's value is missing, said why
        return None, _reason(exc)
    if found is None:
        return None, None
    if isinstance(found, bool):
        return float(found), None
    if not isinstance(found, (int, float)) or not math.isfinite(found):
        return None, f"not a finite number: {found!r}"[:200]
    return float(found), None


def call_values(metric_: Metric, item: SessionInput) -> tuple[dict[str, float], str | None]:
    """A call-placed metric's values of the session's calls, or ({}, why) when it raised."""
    values = getattr(metric_, "call_values", None)
    if not callable(values):
        return {}, None
    try:
        found = values(item)
    except Exception as exc:
        return {}, _reason(exc)
    return {str(k): float(v) for k, v in dict(found).items() if _finite(v)}, None


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def compute_metric(metric_: Metric, items: Sequence[SessionInput]) -> MetricValue:
    """`metric_` over one arm's sessions (the module docstring says which are left out)."""
    values: list[tuple[Session, float]] = []
    missing: dict[str, str] = {}
    not_applicable = not_judged = 0
    for item in items:
        if metric_.judged_only and verdict_of(item.session) is None:
            not_judged += 1
            continue
        found, why = session_value(metric_, item)
        if why is not None:
            missing[item.session.session_id] = why
        elif found is None:
            not_applicable += 1
        else:
            values.append((item.session, found))
    try:
        agg = metric_.aggregate(values)
    except Exception as exc:
        agg = Aggregate(None, len(values), detail={"error": f"aggregate: {_reason(exc)}"})
    return MetricValue(
        value=agg.value,
        n=agg.n,
        ci95=agg.ci95,
        definition=metric_.definition,
        not_applicable=not_applicable,
        not_judged=not_judged,
        missing=missing,
        detail=agg.detail,
    )
