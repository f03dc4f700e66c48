"""`sessionproof score --format bfcl`: BFCL-compatible verdicts for decoded model outputs."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
from rich.markup import escape
from rich.table import Table

from .. import runs
from ..scoring.stats import wilson_interval
from ..suites.bfcl import BfclScore
from ._safe import SafeConsole as Console  # control characters escaped


def _table(score: BfclScore) -> Table:
    multi_turn = any(name.startswith("multi_turn") for name in score.categories)
    title = (
        "BFCL multi-turn verdicts (BFCL's checker semantics)"
        if multi_turn
        else "BFCL AST verdicts (parallel calls paired optimally)"
    )
    table = Table(title=title)
    for column in ("category", "n", "accuracy", "95% CI", "BFCL greedy", "top errors"):
        table.add_column(
            column, justify="left" if column in ("category", "top errors") else "right"
        )
    for name, cat in score.categories.items():
        low, high = wilson_interval(cat.valid, cat.n)
        top = ", ".join(f"{k} ×{v}" for k, v in list(cat.error_types.items())[:3])
        greedy = f"{cat.greedy_valid / cat.n:.1%}" if cat.n else "-"
        if cat.optimal_not_greedy:
            greedy += f" ({len(cat.optimal_not_greedy)} differ)"
        table.add_row(
            name,
            str(cat.n),
            f"{cat.accuracy:.1%}" if cat.accuracy is not None else "-",
            f"{low:.1%}–{high:.1%}",
            greedy,
            top or "-",
        )
    return table


def score_bfcl_command(
    path: Path,
    questions: Path | None,
    answers: Path | None,
    output: Path | None,
    as_json: bool,
    *,
    strict_empty_turns: bool = False,
) -> int:
    """Score `path` against BFCL questions/answers; print a table or (`as_json`) a summary.

    Returns the exit code: 0 when every line was judged, 1 when some lines were input errors
    (they are reported, and every other line is still judged). Raises `InputFileError` when
    a file cannot be read or written or holds no model output, `ConfigError` when `output`
    is one of the input files or `questions` / `answers` is missing.
    """
    report = runs.score(
        path,
        fmt="bfcl",
        questions=questions,
        answers=answers,
        output=output,
        strict_empty_turns=strict_empty_turns,
    )
    if not isinstance(report, runs.BfclReport):
        raise TypeError("transcripts are scored by score_tau_command")
    score = report.score
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(report.summary(), option=orjson.OPT_INDENT_2) + b"\n")
        sys.stdout.flush()
    else:
        console = Console()
        console.print(_table(score))
        if score.input_errors:
            detail = ", ".join(f"{k} ×{v}" for k, v in score.input_errors.items())
            lines = ", ".join(str(n) for n in score.input_error_lines[:10])
            console.print(f"[yellow]not judged:[/] {detail} (lines {lines})")
        for qid, why in score.broken_questions.items():
            console.print(f"[yellow]broken question[/] {escape(qid)}: {escape(why)}")
        if output is not None:
            console.print(f"verdicts written to {output}")
    return 1 if score.input_errors else 0
