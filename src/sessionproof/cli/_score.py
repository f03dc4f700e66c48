"""`sessionproof score`: judge recorded sessions offline (chat logs, traces, ATIF trajectories,
inspect_ai logs, a benchmark's trajectories) or a benchmark's model outputs."""

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
    from ..runs._internal import SCORE_FORMATS

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
    questions: Annotated[
        Path | None,
        typer.Option(
            help="Questions file, for formats that score against question and answer files."
        ),
    ] = None,
    answers: Annotated[
        Path | None,
        typer.Option(
            help="Answers file, for formats that score against question and answer files."
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Model outputs: write one verdict per line."),
    ] = None,
    judge: Annotated[str | None, typer.Option(help="Judge model for NL assertions.")] = None,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    strict_empty_turns: Annotated[
        bool,
        typer.Option(
            help="Multi-turn model outputs: also fail a call made in a turn whose gold is "
            "empty (a check some benchmarks' own scorers leave out)."
        ),
    ] = False,
    no_report: NoReportOpt = False,
    label_from: LabelFromOpt = None,
) -> None:
    """Judge recorded sessions offline and report agreement with the file's own verdicts.

    Each session's tool calls are replayed into its domain and judged like a live run (a
    benchmark's task by its package's judge). Model outputs in a format an installed package
    scores (e.g. `--format bfcl`, with --questions and --answers) go to that package's scorer.

    Exit code: 0 when every record was read and judged cleanly; 1 when some records were
    skipped, or kept with a warning (an unknown content block type, a tool result that
    answers no call, a repeated call id), or (model outputs) some lines were input errors: each is
    named on stderr and listed in --json (`skipped`, `warnings`), and the rest are judged;
    2 when a file or an option cannot be used at all. `-o` must not name an input file.
    """
    from ..suites._internal import scorer_names

    if fmt in scorer_names():
        if suite is not None:
            raise ConfigError(f"--suite names a project for transcripts, not for {fmt} outputs")
        from ._score_outputs import score_outputs_command

        refuse_clobber(output, store=store, inputs=[path, questions, answers])
        code = score_outputs_command(
            path, fmt, questions, answers, output, as_json, strict_empty_turns=strict_empty_turns
        )
    else:
        from ._score_transcripts import score_transcripts_command

        code = score_transcripts_command(
            path, fmt, domain, store, as_json, judge, no_report, label_from=label_from, suite=suite
        )
    raise typer.Exit(code)
