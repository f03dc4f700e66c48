"""Output scorers: `score --format NAME` for files that are not transcripts.

Some benchmarks publish model *outputs* scored against their own question and answer files
rather than sessions (BFCL's decoded calls are one). A package scores such a file with a
`Scorer`, registered under the format name in the `sessionproof.scorers` entry-point group:

    [project.entry-points."sessionproof.scorers"]
    acme-outputs = "acme_plugin:SCORER"

`score FILE --format NAME --questions Q --answers A [-o OUT]` then hands the file and those
options to it. Its report prints itself (`render`) and gives its `--json` object (`summary`)
and the command's exit code; every other format is read as transcripts and judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .._plugins import Registry
from ..errors import ConfigError


@dataclass(frozen=True)
class ScoreOptions:
    """What `score` passes an output scorer (the generic CLI options)."""

    questions: Path | None = None
    """The benchmark's questions file, for formats that score against one."""
    answers: Path | None = None
    """The benchmark's answers file, for formats that score against one."""
    output: Path | None = None
    """Where to write one verdict per line (None: nowhere)."""
    strict_empty_turns: bool = False
    """Multi-turn outputs: also fail a call made in a turn whose gold is empty."""


@runtime_checkable
class OutputReport(Protocol):
    """What an output scorer returns: verdicts that print and serialise themselves."""

    def summary(self) -> dict[str, Any]:
        """The `--json` object."""
        ...

    def render(self, console: Any) -> None:
        """Print the verdicts as tables on a rich `console`."""
        ...

    def exit_code(self) -> int:
        """0 when every line was judged; 1 when some lines were input errors."""
        ...


@runtime_checkable
class Scorer(Protocol):
    """Scores a file of a benchmark's model outputs."""

    def score(self, path: Path, options: ScoreOptions) -> OutputReport:
        """Judge every line of `path`; `InputFileError` / `ConfigError` when it cannot."""
        ...


def _check(name: str, obj: Any) -> Scorer:
    if not isinstance(obj, Scorer):
        raise ConfigError(f"scorer plug-in {name!r} is a {type(obj).__name__}, not a Scorer")
    return obj


SCORERS: Registry[Scorer] = Registry("scorers", check=_check)
"""Every output scorer, by the `--format` name it scores."""


def scorer_names() -> list[str]:
    """The formats an output scorer is registered for (read from metadata: imports none)."""
    return SCORERS.names()


def score_outputs(path: Path, fmt: str, options: ScoreOptions) -> OutputReport:
    """Score `path` with the scorer registered for `fmt` (`ConfigError` when none is)."""
    return SCORERS.require(fmt).score(path, options)
