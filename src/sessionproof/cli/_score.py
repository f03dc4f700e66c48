"""`sessionproof score`: judge recorded sessions offline (tau2, tau-bench, chat logs, traces,
ATIF trajectories, inspect_ai logs, BFCL)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .._defaults import DEFAULT_STORE_PATH
from ..errors import ConfigError
from ._app import app
from ._import import LabelFromOpt
from ._later import help_later
from ._outputs import refuse_clobber
from ._report import NoReportOpt


def _format_help() -> dict[str, str]:
    from ..runs import SCORE_FORMATS

    return {"fmt": " | ".join(SCORE_FORMATS)}


@app.command("score", cls=help_later(_format_help))
def score(
    path: Annotated[Path, typer.Argument(help="Transcripts or model outputs to score.")],
    fmt: Annotated[
        str, typer.Option("--format", help="auto | the formats this installation scores")
    ] = "auto",
    domain: Annotated[
        str | None,
        typer.Option(
            help="Domain the transcripts ran in (default with --suite: the project's one "
            "domain); `recorded`: read against their own recorded results, not judged."
        ),
    ] = None,
    suite: Annotated[
        str | None,
        typer.Option(
            help="A project directory or suite file (as for `run`): its domains are known and "
            "a session whose scenario id is one of its scenarios is judged against it."
        ),
    ] = None,
    questions: Annotated[Path | None, typer.Option(help="BFCL questions file.")] = None,
    answers: Annotated[Path | None, typer.Option(help="BFCL possible-answers file.")] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="BFCL: write one verdict per line.")
    ] = None,
    judge: Annotated[str | None, typer.Option(help="Judge model for NL assertions.")] = None,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    strict_empty_turns: Annotated[
        bool,
        typer.Option(
            help="BFCL multi-turn: also fail a call made in a turn whose gold is empty (BFCL "
            "2026.3.23 does not check this)."
        ),
    ] = False,
    no_report: NoReportOpt = False,
    label_from: LabelFromOpt = None,
) -> None:
    """Judge recorded sessions offline and report agreement with the file's own verdicts.

    Each session's tool calls are replayed into its domain and judged like a live run.
    BFCL outputs (`--format bfcl`) are matched with BFCL's AST semantics.

    Exit code: 0 when every record was read and judged cleanly; 1 when some records were
    skipped, or kept with a warning (an unknown content block type, a tool result that
    answers no call, a repeated call id), or (BFCL) some lines were input errors: each is
    named on stderr and listed in --json (`skipped`, `warnings`), and the rest are judged;
    2 when a file or an option cannot be used at all. `-o` must not name an input file.
    """
    if fmt == "bfcl":
        if suite is not None:
            raise ConfigError("--suite names a project for transcripts, not for BFCL outputs")
        from ._score_bfcl import score_bfcl_command

        refuse_clobber(output, store=store, inputs=[path, questions, answers])
        code = score_bfcl_command(
            path, questions, answers, output, as_json, strict_empty_turns=strict_empty_turns
        )
    else:
        from ._score_tau import score_tau_command

        code = score_tau_command(
            path, fmt, domain, store, as_json, judge, no_report, label_from=label_from, suite=suite
        )
    raise typer.Exit(code)
