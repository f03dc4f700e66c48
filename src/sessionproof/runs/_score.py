"""`score`: judge recorded transcripts offline (`rerun` is in `_rerun`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..importers import format_names
from ..importers._internal import LabelRule, label_rule
from ..store._internal import DEFAULT_STORE_PATH
from ..suites import NLJudge, OutputReport, ScoreOptions, Suite, open_project
from ..suites._internal import ScoreReport, score_outputs, score_transcripts, scorer_names

if TYPE_CHECKING:
    SCORE_FORMATS: tuple[str, ...]
    """What `score` reads: transcripts and traces in any format the importers register (or
    detected), or model outputs in a format an installed package scores
    (`sessionproof.scorers`). Computed when asked, so a plug-in registered since is in it."""


def score_formats() -> tuple[str, ...]:
    """`SCORE_FORMATS`, read from the registries now."""
    return ("auto", *format_names(), *scorer_names())


def __getattr__(name: str) -> object:
    # SCORE_FORMATS is computed when asked: the entry points are read then, not at import.
    if name == "SCORE_FORMATS":
        return score_formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
) -> ScoreReport | OutputReport:
    """Judge the recorded sessions of `path` offline.

    Transcripts (any registered format; `fmt` auto detects) have each session's tool calls
    replayed into its domain and judged like a live run (a benchmark's task by the judge its
    package registered); they are stored as a `score` run in `store` (None: not stored) and
    the report says how our verdicts agree with the file's own. Model outputs in a format an
    output scorer is registered for (`scorer_names()`, e.g. BFCL's) go to that scorer with
    `questions` and `answers` (for formats that score against question and answer files),
    `strict_empty_turns` (multi-turn outputs: also fail calls in turns whose gold is empty)
    and `output` (one verdict per line, if given). `label_from` (traces, chat logs, ATIF,
    inspect logs) names where each session's own outcome label is.

    `suite` (a project directory, a suite file, a built-in name or a `Suite`; resolved as
    `run` resolves it) makes the project's domains known (`python:` toolkits imported from
    the project folder, MCP, OpenAPI, fixtures) and judges each session whose scenario id is
    one of its scenarios against it; `domain` defaults to the project's one domain. `domain`
    `recorded` reads each session against its own recorded results: none is judged. A
    session with no task or scenario is not judged (its reason in `not_judged`), never a
    failure. Raises `ConfigError` for bad options (an unknown domain), `InputFileError` for a
    file or suite that cannot be used.
    """
    known = score_formats()
    if fmt not in known:
        raise ConfigError(f"--format must be one of {', '.join(known)}, not {fmt!r}")
    rule = label_rule(label_from)
    if fmt in scorer_names():
        if suite is not None:
            raise ConfigError(f"--suite names a project for transcripts, not for {fmt} outputs")
        if rule is not None:
            raise ConfigError(
                f"--label-from reads trace, ATIF and inspect files, not {fmt} outputs"
            )
        options = ScoreOptions(
            questions=None if questions is None else Path(questions),
            answers=None if answers is None else Path(answers),
            output=None if output is None else Path(output),
            strict_empty_turns=strict_empty_turns,
        )
        return score_outputs(Path(path), fmt, options)
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
