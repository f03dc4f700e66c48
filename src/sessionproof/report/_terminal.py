"""Terminal rendering with rich: run summaries, run lists, session transcripts."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..records import (
    AssistantMessageEvent,
    Event,
    EventKind,
    Session,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from ..records._internal import (
    AgentErrorEvent,
    DriftAppliedEvent,
    EndEvent,
    FaultInjectedEvent,
    GuardDecisionEvent,
    Mismatch,
    RecordedDivergenceEvent,
    UserToolCallEvent,
    UserToolResultEvent,
)
from ..scoring import RunSummary
from ..scoring._internal import METRIC_DEFINITIONS, not_judged_reason, verdict_label
from ._format import pct, pct_range


def render_summary(console: Console, title: str, summary: RunSummary) -> None:
    """A summary table: accuracy over judged sessions with its interval (– when none was
    judged), accuracy over the evaluated criteria when some were left unevaluated, pass^k,
    termination reasons, and the sessions not judged with their reasons."""
    table = Table(title=escape(title), show_header=False, title_justify="left")
    table.add_column("metric", style="bold")
    table.add_column("value")
    ci = summary.ci95
    ci_text = f" (95% CI {pct_range(*ci)})" if ci else ""
    accuracy = "–" if summary.session_accuracy is None else pct(summary.session_accuracy)
    table.add_row(
        "session accuracy",
        f"{accuracy}{ci_text}  [{summary.successes}/{summary.judged} judged]",
    )
    if summary.unevaluated_sessions:
        table.add_row(
            "over evaluated criteria",
            f"{pct(summary.evaluated_accuracy)}  [{summary.evaluated_successes}/"
            f"{summary.judged}; {summary.unevaluated_sessions} sessions have criteria left "
            "unevaluated (e.g. natural-language assertions without --judge)]",
        )
    for k, v in summary.pass_hat_k.items():
        table.add_row(f"pass^{k}", f"{v:.3f}")
    table.add_row("sessions", str(summary.sessions))
    table.add_row(
        "termination",
        ", ".join(f"{escape(k)}: {v}" for k, v in summary.termination_reasons.items()) or "-",
    )
    reasons = ", ".join(f"{escape(k)}: {v}" for k, v in summary.not_judged_reasons.items())
    table.add_row(
        "not judged",
        f"{summary.not_judged} (excluded from accuracy and pass^k)"
        + (f": {reasons}" if reasons else ""),
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
    elif isinstance(e, ToolResultEvent | UserToolResultEvent):
        result = e.payload
        cls = result.error_class
        injected = " (injected)" if result.injected else ""
        tag = "[red]✗ " + escape(str(cls)) + injected + "[/]"
        mark = tag if cls else "[dim]←[/]"
        console.print(f"    {mark} {escape(_short(result.output, 300))}")
    elif isinstance(e, UserToolCallEvent):  # the user on its own tools (dual control)
        call = e.payload
        shown = json.dumps(call.arguments) if call.arguments is not None else ""
        console.print(f"  [cyan]user → {escape(call.name)}[/]({escape(_short(shown, 200))})")
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
    judged = session.verdict
    verdict = (
        f"not judged ({not_judged_reason(session)})"
        if judged is None
        else ("success" if judged else "failure")
    )
    if verdict_label(session) == "unevaluated" and outcome is not None:
        left = ", ".join(outcome.unevaluated)
        verdict += f" only on criteria left unevaluated ({left}): no evaluated criterion failed"
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
    console.print(f"[bold]verdict[/]: {escape(verdict)}")
    if outcome:
        for c in outcome.criteria:
            mark = {True: "[green]pass[/]", False: "[red]fail[/]", None: "[yellow]n/a[/]"}[c.passed]
            console.print(f"  {escape(c.name)}: {mark}  {escape(c.evidence)}")
            if c.passed is False:
                _render_details(console, c.details)


def _render_details(console: Console, details: Sequence[Mismatch]) -> None:
    """Each mismatch of a failed criterion on its own line: where, expected, actual."""
    for m in details:
        actual = "(missing)" if m.missing else _short(json.dumps(m.actual, default=str), 200)
        expected = _short(json.dumps(m.expected, default=str), 200)
        console.print(
            f"    [dim]at[/] {escape(m.where)}: expected {escape(expected)}, "
            f"actual {escape(actual)}",
            highlight=False,
            soft_wrap=True,
        )


def render_table(
    console: Console,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    keep: Sequence[int] = (),
) -> None:
    """A plain table of strings. Columns listed in `keep` (ids, arm names) are never cut: on
    a terminal they keep their full width and the other columns fold; elsewhere (a pipe, a
    CI log) the table is printed as plain aligned rows that no width cuts."""
    widest = [
        max([len(col)] + [len(line) for r in rows for line in r[i].split("\n")])
        for i, col in enumerate(columns)
    ]
    # Each column takes 3 characters of border and padding; a folded one at least 3 more.
    needed = sum(widest[i] for i in keep) + 3 * len(columns) + 3 * (len(columns) - len(keep))
    if keep and (not console.is_terminal or needed >= console.width):
        _plain_rows(console, title, columns, rows)
        return
    table = Table(title=escape(title), title_justify="left")
    for i, col in enumerate(columns):
        if i in keep:
            table.add_column(col, no_wrap=True, min_width=widest[i])
        elif keep:
            table.add_column(col, overflow="fold")
        else:
            table.add_column(col)
    for row in rows:
        table.add_row(*(escape(c) for c in row))
    console.print(table)


def _plain_rows(
    console: Console, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]
) -> None:
    """`columns` and `rows` aligned with two spaces between cells, one line each, uncut."""
    cells = [list(columns)] + [[c.replace("\n", " · ") for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = [title] + [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells
    ]
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True, crop=False)
