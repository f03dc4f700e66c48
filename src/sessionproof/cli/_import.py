"""`sessionproof import`: trace and transcript files in as a stored run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..importers import format_names
from ..report import render_summary
from ..store import DEFAULT_STORE_PATH
from ..telemetry import import_traces
from ._app import app, err_console, out_console


@app.command("import")
def import_command(
    path: Annotated[Path, typer.Argument(help="Trace or transcript file.")],
    fmt: Annotated[
        str, typer.Option("--format", help="auto | " + " | ".join(format_names()))
    ] = "auto",
    domain: Annotated[str | None, typer.Option(help="Domain the sessions ran in.")] = None,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Import OTLP traces (OTLP-JSON or protobuf; `gen_ai.*` or OpenInference attributes) or a
    transcript file as a stored run: every metric, `patterns` and the report then work on it.

    Exit code: 0 when every record was read; 1 when some were skipped or kept with a warning
    (each named on stderr); 2 when the file cannot be used at all.
    """
    report = import_traces(path, fmt=fmt, store=store, domain=domain, argv=sys.argv[1:])
    for problem in report.errors:
        label = "skipped" if problem.fatal else "warning"
        err_console.print(
            f"[yellow]{label}:[/] {escape(str(problem))}", highlight=False, soft_wrap=True
        )
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        render_summary(out_console, f"import {report.run_id} ({report.format})", report.summary)
        out_console.print(
            f"stored in {escape(str(store))}; details: sessionproof show {report.run_id} "
            f"--store {escape(str(store))}",
            highlight=False,
        )
    raise typer.Exit(1 if report.errors else 0)
