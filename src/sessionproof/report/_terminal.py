"""Terminal rendering with rich: run summaries, run lists, session transcripts."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..records import (
    AgentErrorEvent,
    AssistantMessageEvent,
    DriftAppliedEvent,
    EndEvent,
    Event,
    EventKind,
    FaultInjectedEvent,
    GuardDecisionEvent,
    RecordedDivergenceEvent,
    Session,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from ..scoring import METRIC_DEFINITIONS, RunSummary
from ._format import pct, pct_range


def render_summary(console: Console, title: str, summary: RunSummary) -> None:
    """A summary table: accuracy with its interval, pass^k, termination reasons."""
    table = Table(title=escape(title), show_header=False, title_justify="left")
    table.add_column("metric", style="bold")
    table.add_column("value")
    ci = summary.ci95
    ci_text = f" (95% CI {pct_range(*ci)})" if ci else ""
    table.add_row(
        "session accuracy",
        f"{pct(summary.session_accuracy)}{ci_text}  [{summary.successes}/{summary.judged} judged]",
    )
    for k, v in summary.pass_hat_k.items():
        table.add_row(f"pass^{k}", f"{v:.3f}")
    table.add_row("sessions", str(summary.sessions))
    table.add_row(
        "termination",
        ", ".join(f"{escape(k)}: {v}" for k, v in summary.termination_reasons.items()) or "-",
    )
    table.add_row("infra errors", f"{summary.infra_errors} (not judged, excluded from accuracy)")
    console.print(table)


def render_definitions(console: Console) -> None:
    """Print what each headline metric means."""
    for name, text in METRIC_DEFINITIONS.items():
        console.print(f"[bold]{escape(name)}[/]: {escape(text)}")


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text)} chars]"


def _render_event(console: Console, e: Event) -> None:
    """One event's line(s) of a transcript (verdicts are printed after the loop)."""
    if isinstance(e, UserMessageEvent):
        console.print(f"[cyan]user[/]: {escape(_short(e.payload.content or ''))}")
    elif isinstance(e, AssistantMessageEvent):
        if e.payload.content:
            console.print(f"[green]agent[/]: {escape(_short(e.payload.content))}")
    elif isinstance(e, ToolCallEvent):
        call = e.payload
        args = call.arguments
        shown = json.dumps(args) if args is not None else repr(call.raw_arguments)
        console.print(f"  [yellow]→ {escape(call.name)}[/]({escape(_short(shown, 200))})")
    elif isinstance(e, ToolResultEvent):
        result = e.payload
        cls = result.error_class
        injected = " (injected)" if result.injected else ""
        tag = "[red]✗ " + escape(str(cls)) + injected + "[/]"
        mark = tag if cls else "[dim]←[/]"
        console.print(f"    {mark} {escape(_short(result.output, 300))}")
    elif isinstance(e, AgentErrorEvent):
        msg = escape(e.payload.message)
        console.print(f"  [red]agent error {escape(str(e.payload.error_class))}[/]: {msg}")
    elif isinstance(
        e, FaultInjectedEvent | DriftAppliedEvent | GuardDecisionEvent | RecordedDivergenceEvent
    ):
        shown = json.dumps(e.payload.model_dump(mode="json"), default=str)
        console.print(f"  [magenta]{e.kind.value}[/] {escape(shown)}")
    elif isinstance(e, EndEvent):
        end = e.payload
        detail = f" ({escape(end.detail)})" if end.detail else ""
        console.print(f"[bold]end[/]: {escape(str(end.termination))}{detail}")


def render_transcript(console: Console, session: Session) -> None:
    """One session, turn by turn: messages, tool calls, results, errors, the end and verdict."""
    outcome = session.outcome
    verdict = "not judged" if outcome is None else ("success" if outcome.success else "failure")
    console.print(
        f"[bold]{escape(session.session_id)}[/]  scenario={escape(session.scenario_id)} "
        f"trial={session.trial} arm={escape(session.arm)} model={escape(session.model)}"
    )
    turn = -1
    for e in session.events:
        if e.turn != turn and e.kind is not EventKind.verdict:
            turn = e.turn
            console.rule(f"turn {turn}", style="dim")
        _render_event(console, e)
    console.print(f"[bold]verdict[/]: {verdict}")
    if outcome:
        for c in outcome.criteria:
            mark = {True: "[green]pass[/]", False: "[red]fail[/]", None: "[yellow]n/a[/]"}[c.passed]
            console.print(f"  {escape(c.name)}: {mark}  {escape(c.evidence)}")


def render_table(
    console: Console, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]
) -> None:
    """A plain table of strings."""
    table = Table(title=escape(title), title_justify="left")
    for col in columns:
        table.add_column(col)
    for row in rows:
        table.add_row(*(escape(c) for c in row))
    console.print(table)
