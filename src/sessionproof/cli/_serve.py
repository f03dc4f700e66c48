"""`sessionproof serve`: one scenario's tools as an MCP server on loopback, judged at the end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from .._defaults import DEFAULT_STORE_PATH
from ._app import app, err_console, out_console

if TYPE_CHECKING:
    from ..runs._internal import ServeReport

SERVE_HELP = (
    "Serve one scenario's tools as an MCP server (streamable HTTP on 127.0.0.1), wrapped by "
    "the arm's faults, drift and guard exactly as in a run. Connect any MCP client to the "
    "printed URL and drive the session; when the client ends its MCP session (or on Ctrl-C) "
    "the final state is judged and the verdict printed and stored."
)


@app.command("serve", help=SERVE_HELP)
def serve(
    suite: Annotated[str, typer.Option(help="Suite name, scenario file or project dir.")],
    scenario: Annotated[str, typer.Option(help="The scenario's id.")],
    faults: Annotated[str | None, typer.Option(help="Fault plan, e.g. 3% or timeout:2%.")] = None,
    drift: Annotated[str | None, typer.Option(help="Schema drift KIND[:P%][@TURN[@TOOL]].")] = None,
    guard: Annotated[bool, typer.Option("--guard/--no-guard", help="Wrap in the guard.")] = False,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: a free one).")] = 0,
    seed: Annotated[int, typer.Option(help="Seed for faults and drift.")] = 0,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    from .. import runs

    config = runs.ServeConfig(
        suite=suite,
        scenario=scenario,
        faults=faults,
        drift=drift,
        guard=guard,
        port=port,
        seed=seed,
        store=store,
    )

    def ready(url: str) -> None:
        err_console.print(f"serving scenario {escape(scenario)} at", highlight=False)
        # The URL alone on stdout's first line, so a script can read it.
        typer.echo(url)
        err_console.print("end the MCP session (or press Ctrl-C) to be judged", highlight=False)

    try:
        runs.serve(config, on_ready=ready, on_end=lambda r: _verdict(r, as_json))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def _verdict(report: ServeReport, as_json: bool) -> None:
    session = report.session
    outcome = session.outcome
    if as_json:
        body = {
            "run_id": report.run_id,
            "session_id": session.session_id,
            "arm": report.arm,
            "termination": session.termination.value,
            "success": session.verdict,
            "judged": session.verdict is not None,
            "detail": session.termination_detail,
            "reward": None if outcome is None else outcome.reward,
            "criteria": [] if outcome is None else [c.model_dump() for c in outcome.criteria],
            "tool_calls": len(session.tool_results()),
            "store": report.store,
        }
        typer.echo(json.dumps(body, indent=2))
        return
    if session.verdict is None:  # the tools failed, not the agent: no verdict at all
        verdict = "[yellow]NOT JUDGED[/]"
    else:
        verdict = "[green]PASS[/]" if session.verdict else "[red]FAIL[/]"
    out_console.print(
        f"{verdict} scenario {escape(session.scenario_id)} ({escape(report.arm)}): "
        f"{len(session.tool_results())} tool calls, {escape(session.termination.value)}",
        highlight=False,
    )
    if session.verdict is None:
        out_console.print(f"  why: {escape(session.termination_detail)}", highlight=False)
    for check in [] if outcome is None else outcome.criteria:
        mark = "ok " if check.passed else "no "
        line = f"  {mark}{escape(check.name)}: {escape(check.evidence)}"
        out_console.print(line, highlight=False)
    if report.store:
        out_console.print(
            f"stored as run {report.run_id}; details: sessionproof show {report.run_id} "
            f"--store {escape(report.store)}",
            highlight=False,
        )
