"""Terminal rendering of a `MetricsReport`: every metric, then what each one means."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..scoring import MetricsReport, MetricValue
from ..scoring._internal import NeedBucket, SurvivalPoint
from ..scoring.stats import Interval
from ._faults import faults_table
from ._format import pct, pct_range
from ._turns import turns_table

_BARS = "▁▂▃▄▅▆▇█"
_MAX_ROWS = 12
_MAX_CURVE_ROWS = 24


def _boot(interval: Interval | None) -> str:
    return "" if interval is None else f"; bootstrap {pct_range(interval.low, interval.high)}"


def _frac(num: int, den: int, rate: float | None) -> str:
    return "not measured" if rate is None else f"{pct(rate)}  [{num}/{den}]"


def sparkline(values: Sequence[float]) -> str:
    """One block character per value in [0, 1] (▁ = 0, █ = 1)."""
    top = len(_BARS) - 1
    return "".join(_BARS[round(min(max(v, 0.0), 1.0) * top)] for v in values)


def _table(title: str, *columns: str) -> Table:
    table = Table(title=escape(title), title_justify="left", show_header=bool(columns))
    for column in columns or ("metric", "value"):
        table.add_column(escape(column))
    return table


def _headline(report: MetricsReport) -> Table:
    s = report.summary
    table = _table("sessions")
    ci = f" (Wilson 95% {pct_range(*s.ci95)}" if s.ci95 else " ("
    boot = _boot(report.bootstrap_ci.get("session_accuracy"))
    accuracy = "–" if s.session_accuracy is None else pct(s.session_accuracy)
    table.add_row(
        "session accuracy",
        f"{accuracy}{ci}{boot})  [{s.successes}/{s.judged} judged]".replace(" ()", ""),
    )
    if s.unevaluated_sessions:
        table.add_row(
            "over evaluated criteria",
            f"{pct(s.evaluated_accuracy)}  [{s.evaluated_successes}/{s.judged}; "
            f"{s.unevaluated_sessions} sessions have criteria left unevaluated]",
        )
    for k, value in s.pass_hat_k.items():
        at = report.pass_at_k.get(k)
        extra = _boot(report.bootstrap_ci.get(f"pass^{k}")).removeprefix("; ")
        table.add_row(
            f"pass^{k} / pass@{k}",
            f"{value:.3f} / {'n/a' if at is None else f'{at:.3f}'}"
            + (f"  ({extra})" if extra else ""),
        )
    table.add_row("sessions", str(report.sessions))
    table.add_row("infra errors", f"{s.infra_errors} (not judged, excluded from accuracy)")
    why = ", ".join(f"{escape(k)}: {v}" for k, v in s.not_judged_reasons.items())
    table.add_row(
        "not judged",
        f"{s.not_judged} (excluded from accuracy and pass^k)" + (f": {why}" if why else ""),
    )
    reasons = ", ".join(f"{escape(k)}: {v}" for k, v in s.termination_reasons.items())
    table.add_row("termination", reasons or "-")
    flaky = [f for f in report.flakiness if f.flaky]
    shown = ", ".join(
        f"{escape(f.scenario_id)} ({f.successes}/{f.trials}, {f.flips} flips)" for f in flaky[:5]
    )
    more = f" and {len(flaky) - 5} more" if len(flaky) > 5 else ""
    table.add_row(
        "flaky scenarios",
        f"{report.flaky_scenarios} of {len(report.flakiness)}"
        + (f": {shown}{more}" if shown else ""),
    )
    return table


def _calls(report: MetricsReport) -> Table | None:
    c = report.calls
    if c is None:
        return None
    table = _table("tool calls")
    table.add_row(
        "single-call accuracy",
        _frac(c.matched_calls, c.gold_tool_calls, c.single_call_accuracy),
    )
    table.add_row(
        "write-call accuracy",
        _frac(c.matched_write_calls, c.gold_tool_write_calls, c.write_call_accuracy),
    )
    table.add_row("gold recall", _frac(c.gold_actions_matched, c.gold_actions, c.gold_recall))
    table.add_row("call validity", _frac(c.valid, c.validity_judged, c.call_validity_rate))
    if c.invalid_by_reason:
        reasons = ", ".join(f"{escape(k)}: {v}" for k, v in c.invalid_by_reason.items())
        table.add_row("invalid calls", reasons)
    if c.drift_unjudged:
        table.add_row("drift, not judged", str(c.drift_unjudged))
    table.add_row("calls / sessions", f"{c.calls} / {c.sessions}")
    if c.unmeasured_sessions:
        table.add_row(
            "not measured",
            f"{c.unmeasured_sessions} sessions recorded without content (no arguments to "
            "check: e.g. a trace exported without --otel-content)",
        )
    return table


def _recovery(report: MetricsReport) -> Table:
    r = report.error_recovery
    table = _table("error recovery", "class", "failures", "recovered", "rate")
    table.add_row(
        "all",
        str(r.get("failures", 0)),
        str(r.get("recovered", 0)),
        pct(r.get("error_recovery_rate")),
    )
    by_class: Mapping[str, Mapping[str, object]] = r.get("recovery_by_class") or {}
    for name, row in by_class.items():
        rate = row.get("rate")
        table.add_row(
            escape(name),
            str(row.get("failures")),
            str(row.get("recovered")),
            pct(rate if isinstance(rate, float) else None),
        )
    table.caption = (
        f"injected: {pct(r.get('injected_rate'))}, natural: {pct(r.get('natural_rate'))}"
    )
    return table


def _curve_rows(points: Sequence[SurvivalPoint]) -> list[SurvivalPoint]:
    # The depths where something happens, plus both ends: the rest repeat the row above.
    busy = [p for p in points if p.diverging or p.ended_failed]
    keep = {points[0].depth, points[-1].depth, *(p.depth for p in busy)}
    rows = [p for p in points if p.depth in keep]
    if len(rows) > _MAX_CURVE_ROWS:
        rows = [*rows[: _MAX_CURVE_ROWS - 1], rows[-1]]
    return rows


def _survival(report: MetricsReport) -> list[Table]:
    sv = report.survival
    if sv is None or not sv.curve:
        return []
    curve = _table(
        "survival by decision depth", "d", "S(d)", "at risk", "diverging", "ended failed"
    )
    for p in _curve_rows(sv.curve):
        curve.add_row(
            str(p.depth), f"{p.survival:.1%}", str(p.at_risk), str(p.diverging), str(p.ended_failed)
        )
    first, last = sv.curve[0].depth, sv.curve[-1].depth
    curve.caption = (
        f"S(d), d = {first}…{last}: {sparkline([p.survival for p in sv.curve])}"
        f"  ({sv.sessions} sessions; {len(sv.skipped)} left out)"
    )
    tables = [curve]
    for title, buckets in (
        ("success by gold writes needed", sv.success_by_gold_writes),
        ("success by gold actions needed", sv.success_by_gold_actions),
    ):
        tables.append(_needs(title, buckets))
    classes = _table("first divergence (failed sessions)", "class", "sessions")
    for name, count in sv.divergence_classes.items():
        classes.add_row(escape(name), str(count))
    if sv.diverged_successes:
        classes.caption = f"{sv.diverged_successes} successful session(s) also diverged"
    tables.append(classes)
    return tables


def _needs(title: str, buckets: Sequence[NeedBucket]) -> Table:
    table = _table(title, "needed", "sessions", "success", "95% CI")
    for b in buckets:
        table.add_row(str(b.needed), str(b.sessions), f"{b.success_rate:.1%}", pct_range(*b.ci95))
    return table


def _sources(report: MetricsReport) -> list[Table]:
    fs = report.failure_sources
    counts = _table("failure sources", "source", "sessions")
    for name, count in fs.by_source.items():
        counts.add_row(escape(name), str(count))
    if fs.undetermined:
        counts.add_row("undetermined", str(fs.undetermined))
    counts.add_row("[bold]failed + infra[/]", f"[bold]{fs.failed}[/]")
    tables = [counts]
    if fs.sessions:
        detail = _table("why each session failed", "session", "source", "rule", "evidence")
        for a in fs.sessions[:_MAX_ROWS]:
            evidence = a.evidence if len(a.evidence) <= 240 else a.evidence[:237] + "..."
            detail.add_row(
                escape(f"{a.scenario_id}#t{a.trial}"),
                escape(a.source.value if a.source else "undetermined"),
                escape(a.rule),
                escape(evidence),
            )
        if len(fs.sessions) > _MAX_ROWS:
            detail.caption = f"first {_MAX_ROWS} of {len(fs.sessions)}; --json lists all"
        tables.append(detail)
    return tables


def value_text(value: MetricValue) -> str:
    """A registered metric's value as one line: the value with its interval and count, and
    the sessions left out, each kind apart (none is ever counted as a zero)."""
    head = "–" if value.value is None else f"{value.value:.4g}"
    if value.ci95 is not None:
        head += f" (95% {value.ci95[0]:.4g}–{value.ci95[1]:.4g})"
    parts = [f"{head}  [n={value.n}]"]
    if value.not_judged:
        parts.append(f"{value.not_judged} not judged (left out)")
    if value.not_applicable:
        parts.append(f"{value.not_applicable} not applicable")
    if value.missing:
        first = next(iter(value.missing.items()))
        parts.append(f"{len(value.missing)} missing (e.g. {first[0]}: {first[1]})")
    if "error" in value.detail:
        parts.append(str(value.detail["error"]))
    return "; ".join(parts)


def _registered(report: MetricsReport) -> Table | None:
    if not report.metrics:
        return None
    table = _table("registered metrics")
    for name, value in report.metrics.items():
        table.add_row(escape(name), escape(value_text(value)))
    return table


def render_metric_definitions(console: Console, definitions: Mapping[str, str]) -> None:
    """Print every metric's name and definition."""
    console.print("[bold]definitions[/]")
    for name, text in definitions.items():
        console.print(f"[bold]{escape(name)}[/]: {escape(text)}")


def render_metrics(
    console: Console, report: MetricsReport, title: str = "metrics", *, definitions: bool = True
) -> None:
    """Every metric of `report` as tables; the definitions after them unless told not to."""
    console.rule(escape(title))
    console.print(_headline(report))
    tables: list[Table | None] = [_calls(report), _recovery(report)]
    if report.faults is not None:
        tables.append(faults_table(report.faults))
    tables += _survival(report)
    tables += _sources(report)
    tables.append(_registered(report))
    if report.turns is not None:
        tables.append(turns_table(report.turns))
    for table in tables:
        if table is not None:
            console.print(table)
    for name, why in report.skipped.items():
        console.print(f"[yellow]skipped[/] {escape(name)}: {escape(why)}", soft_wrap=True)
    if definitions:
        render_metric_definitions(console, report.definitions)
