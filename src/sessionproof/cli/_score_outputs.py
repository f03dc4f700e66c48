"""`sessionproof score --format NAME` for model outputs an installed package scores."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from .. import runs
from ..suites._internal import ScoreReport
from ._safe import SafeConsole as Console  # control characters escaped


def score_outputs_command(
    path: Path,
    fmt: str,
    questions: Path | None,
    answers: Path | None,
    output: Path | None,
    as_json: bool,
    *,
    strict_empty_turns: bool = False,
) -> int:
    """Score `path` with the output scorer of `fmt`; print its tables or (`as_json`) summary.

    Returns the scorer's exit code: 0 when every line was judged, 1 when some lines were
    input errors (they are reported, and every other line is still judged). Raises
    `InputFileError` when a file cannot be read or written or holds no model output,
    `ConfigError` when `output` is one of the input files or `questions` / `answers` is
    missing.
    """
    report = runs.score(
        path,
        fmt=fmt,
        questions=questions,
        answers=answers,
        output=output,
        strict_empty_turns=strict_empty_turns,
    )
    if isinstance(report, ScoreReport):
        raise TypeError("transcripts are scored by score_transcripts_command")
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(report.summary(), option=orjson.OPT_INDENT_2) + b"\n")
        sys.stdout.flush()
    else:
        report.render(Console())
    return report.exit_code()
