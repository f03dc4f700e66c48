"""`score`: judge recorded transcripts offline (`rerun` is in `_rerun`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError
from ..importers import LabelRule, format_names, label_rule
from ..scoring.stats import wilson_interval
from ..store import DEFAULT_STORE_PATH
from ..suites import Suite, open_project
from ..suites.bfcl import BfclScore, score_bfcl_file
from ..suites.tau2 import NLJudge, ScoreReport, score_transcripts

SCORE_FORMATS = ("auto", *format_names(), "bfcl")
"""What `score` reads: transcripts and traces in any format the importers register (or
detected), or BFCL model outputs."""


class BfclReport(BaseModel):
    """BFCL-compatible verdicts of one file of decoded model outputs."""

    model_config = ConfigDict(extra="forbid")

    score: BfclScore
    output: str | None = None
    """Where one verdict per line was written, if anywhere."""

    def summary(self) -> dict[str, Any]:
        """The `--json` object: per category accuracy, n, Wilson 95% CI, error types, and the
        ids where the optimal pairing accepts what BFCL's greedy matcher rejects."""
        return bfcl_summary(self.score, None if self.output is None else Path(self.output))


def bfcl_summary(score: BfclScore, output: Path | None = None) -> dict[str, Any]:
    """The `--json` summary of a BFCL score (see `BfclReport.summary`)."""
    categories: dict[str, Any] = {}
    for name, cat in score.categories.items():
        low, high = wilson_interval(cat.valid, cat.n)
        categories[name] = {
            "accuracy": cat.accuracy,
            "n": cat.n,
            "valid": cat.valid,
            "ci95": [low, high],
            "error_types": cat.error_types,
            "greedy_accuracy": cat.greedy_valid / cat.n if cat.n else None,
            "optimal_not_greedy": cat.optimal_not_greedy,
        }
    return {
        "lines": score.lines,
        "categories": categories,
        "input_errors": score.input_errors,
        "input_error_lines": score.input_error_lines,
        "broken_questions": score.broken_questions,
        "output": str(output) if output is not None else None,
    }


def score(
    path: str | Path,
    *,
    fmt: str = "auto",
    domain: str | None = None,
    store: str | Path | None = DEFAULT_STORE_PATH,
    judge: str | NLJudge | None = None,
    questions: str | Path | None = None,
    answers: str | Path | None = None,
    output: str | Path | None = None,
    argv: Sequence[str] | None = None,
    strict_empty_turns: bool = False,
    label_from: str | LabelRule | None = None,
    suite: str | Suite | None = None,
) -> ScoreReport | BfclReport:
    """Judge the recorded sessions of `path` offline.

    Transcripts (tau2, tau-bench, OpenAI or Anthropic logs; `fmt` auto detects) have each
    session's tool calls replayed into its domain and judged like a live run; they are stored
    as a `score` run in `store` (None: not stored) and the report says how our verdicts agree
    with the file's own. BFCL outputs (`fmt="bfcl"`, with `questions` and `answers`) are
    matched with BFCL's AST semantics (multi-turn files with BFCL's multi-turn checker
    semantics; `strict_empty_turns` also fails calls in turns whose gold is empty), one
    verdict per line written to `output` if given. `label_from` (traces, ATIF, inspect logs)
    names where each session's own outcome label is.

    `suite` (a project directory, a suite file, a built-in name or a `Suite`; resolved as
    `run` resolves it) makes the project's domains known (`python:` toolkits imported from
    the project folder, MCP, OpenAPI, fixtures) and judges each session whose scenario id is
    one of its scenarios against it; `domain` defaults to the project's one domain. `domain`
    `recorded` reads each session against its own recorded results: none is judged. A
    session with no task or scenario is not judged (its reason in `not_judged`), never a
    failure. Raises `ConfigError` for bad options (an unknown domain), `InputFileError` for a
    file or suite that cannot be used.
    """
    # format_names() too: a format registered after this module was imported.
    if fmt not in SCORE_FORMATS and fmt not in format_names():
        raise ConfigError(f"--format must be one of {', '.join(SCORE_FORMATS)}, not {fmt!r}")
    rule = label_rule(label_from)
    if fmt == "bfcl":
        if suite is not None:
            raise ConfigError("--suite names a project for transcripts, not for BFCL outputs")
        if rule is not None:
            raise ConfigError("--label-from reads trace, ATIF and inspect files, not BFCL outputs")
        if questions is None or answers is None:
            raise ConfigError("--format bfcl needs --questions and --answers")
        out = None if output is None else Path(output)
        result = score_bfcl_file(
            Path(path), Path(questions), Path(answers), out, strict_empty_turns=strict_empty_turns
        )
        return BfclReport(score=result, output=None if out is None else str(out))
    project = open_project(suite, domain)
    return score_transcripts(
        Path(path),
        fmt,
        project.domain,
        None if store is None else Path(store),
        judge,
        argv=None if argv is None else list(argv),
        label_from=rule,
        project=project,
    )
