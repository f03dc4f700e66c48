"""`sessionproof audit SUITE`: a task set checked before anyone trusts a number from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ._app import app, err_console, out_console
from ._outputs import refuse_clobber

_SEVERITY_STYLE = {"error": "red", "warning": "yellow", "note": "dim"}


@app.command("audit")
def audit(
    suite: Annotated[
        str,
        typer.Argument(
            help="A registered suite (demo, wild, bfcl:CATEGORY...) or a suite file or project."
        ),
    ],
    store: Annotated[
        Path | None,
        typer.Option(
            help="Also read this store's runs of the suite: tasks never passed, verdicts that flip."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write the findings as an HTML page.", metavar="FILE"),
    ] = None,
) -> None:
    """Check every task of SUITE: the oracle passes under every reading, the gold actions
    replay cleanly, the criteria name only tools and arguments that exist, a do-nothing and a
    read-only agent do not pass, the gold state differs from the initial one; with --store,
    the tasks no run ever passed and those whose verdicts flip most. Exit 1 when any finding
    is an error.
    """
    from .._atomic import replaced_on_success
    from ..report.html._internal import audit_page
    from ..runs import audit as run_audit

    refuse_clobber(html, store=store)
    report = run_audit(suite, store=store)
    data = report.model_dump(mode="json")
    if html is not None:
        with replaced_on_success(html) as path:
            Path(path).write_text(audit_page(data), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps({**data, "errors": report.errors, "ok": report.ok}, indent=2))
    else:
        table = Table(title=f"audit of {report.suite}: {report.tasks} tasks")
        for column in ("task", "check", "severity", "reason"):
            table.add_column(column, overflow="fold")
        for f in report.flags:
            style = _SEVERITY_STYLE.get(f.severity, "")
            table.add_row(
                escape(f.scenario), f.check, f"[{style}]{f.severity}[/]", escape(f.reason)
            )
        out_console.print(table)
        oracle = ", ".join(f"{k} {v}" for k, v in report.oracle.items())
        out_console.print(
            f"readings: {', '.join(report.readings)}; oracle: {oracle}; do-nothing passes: "
            f"{report.do_nothing_passes}; read-only passes: {report.read_only_passes}; "
            f"errors: {report.errors}",
            highlight=False,
        )
    if html is not None:
        err_console.print(f"audit page: {escape(str(html))}", highlight=False)
    if not report.ok:
        raise typer.Exit(1)
