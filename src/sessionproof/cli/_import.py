"""`sessionproof import`: trace and transcript files in as a stored run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .._defaults import DEFAULT_STORE_PATH
from ._app import app, err_console, out_console
from ._later import help_later

LabelFromOpt = Annotated[
    str | None,
    typer.Option(
        "--label-from",
        help="Trace, ATIF, inspect or JSONL chat files: where each session's outcome label "
        "is (NAME>=N for a numeric score); see `import --help`.",
    ),
]
"""`--label-from` as `score`, `rerun` and `patterns` take it."""


def _format_help() -> dict[str, str]:
    from ..importers import format_names

    return {"fmt": "auto | " + " | ".join(format_names())}


@app.command("import", cls=help_later(_format_help))
def import_command(
    path: Annotated[Path, typer.Argument(help="Trace or transcript file.")],
    fmt: Annotated[
        str, typer.Option("--format", help="auto | the formats this installation reads")
    ] = "auto",
    domain: Annotated[str | None, typer.Option(help="Domain the sessions ran in.")] = None,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    label_from: Annotated[
        str | None,
        typer.Option(
            "--label-from",
            help="Attribute holding each session's outcome label (traces: a span or span "
            "event attribute, or an evaluation name; ATIF and chat logs: a dotted path in the "
            "record; inspect: a scorer), e.g. user.feedback; NAME>=N for a numeric score.",
        ),
    ] = None,
) -> None:
    """Import OTLP traces (OTLP-JSON or protobuf; `gen_ai.*` or OpenInference attributes), a
    Harbor ATIF trajectory, an inspect_ai eval log or a transcript file as a stored run: every
    metric, `patterns` and the report then work on it. --label-from names where each
    session's outcome is (true/false, 1/0, pass/fail, success/failure, C/I, thumbs_up/down).

    Exit code: 0 when every record was read; 1 when some were skipped or kept with a warning
    (each named on stderr); 2 when the file cannot be used at all.
    """
    # Imported here: the trace readers are this command's alone (~0.1 s of every start-up).
    from ..runs import ImportConfig, import_traces
    from ._summaries import render_summaries

    config = ImportConfig(path=path, fmt=fmt, store=store, domain=domain, label_from=label_from)
    report = import_traces(config, argv=sys.argv[1:])
    for problem in report.errors:
        label = "skipped" if problem.fatal else "warning"
        err_console.print(
            f"[yellow]{label}:[/] {escape(str(problem))}", highlight=False, soft_wrap=True
        )
    if report.errors:
        skipped = sum(e.fatal for e in report.errors)
        err_console.print(
            f"{skipped} record{'' if skipped == 1 else 's'} skipped, "
            f"{len(report.errors) - skipped} kept with a warning; the rest stored",
            highlight=False,
        )
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        title = f"import {report.run_id} ({report.format})"
        render_summaries(out_console, report.summary_by_arm or {"": report.summary}, title)
        out_console.print(
            f"stored in {escape(str(store))}; details: sessionproof show {report.run_id} "
            f"--store {escape(str(store))}",
            highlight=False,
        )
    raise typer.Exit(1 if report.errors else 0)
