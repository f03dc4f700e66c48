"""`rerun`: replay recorded transcripts against a candidate model, judge each rerun as the
original was judged, and compare. `RerunConfig` holds its options once, for the CLI
(`sessionproof rerun` builds one) and the Python API alike."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, Unpack

from pydantic import Field, field_validator, model_validator

from .._defaults import DEFAULT_MAX_STEPS
from ..agents import Agent
from ..errors import ConfigError
from ..importers import format_names
from ..importers._internal import LabelRule
from ..store._internal import DEFAULT_STORE_PATH
from ..suites import Suite, open_project
from ._label_from import LabelFrom
from ._typed import TypedConfig

if TYPE_CHECKING:
    from ..engine import Progress
    from ..rerun._internal import RerunReport


class RerunConfig(TypedConfig):
    """One rerun: which transcripts, against which candidate, how many times, judged and
    stored how. Built by `sessionproof rerun` from its flags and by `rerun(path, model,
    ...)` from its arguments, so both rerun the same thing."""

    KIND: ClassVar[str] = "rerun"

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises `ConfigError` naming the field."""
        super().__init__(**data)

    path: Path
    """The transcript file (tau2, tau-bench, OpenAI or Anthropic logs, traces, ...)."""
    model: str | Agent
    """The candidate: a model spec (as for `run`) or any `Agent`."""
    fmt: str = "auto"
    """The file's format (`--format`): `auto` or one the importers register."""
    domain: str | None = None
    """Domain to rerun in (overrides the transcript's); `recorded`: answer each call from the
    transcript's own recorded results."""
    suite: str | Suite | None = None
    """The user's project (a directory, a suite file, a built-in name or a `Suite`): its
    domains are known, and a transcript whose scenario id is one of its scenarios reruns that
    scenario and is judged by it."""
    trials: int = Field(default=1, ge=1)
    """Reruns per transcript."""
    user_model: str | Agent | None = None
    """Who plays simulated users (default: the candidate)."""
    limit: int | None = Field(default=None, ge=1)
    """Only the first N transcripts."""
    concurrency: int | None = Field(default=None, ge=1)
    """Sessions at once; None: `default_concurrency(model)` (1 for a local model, else 4)."""
    seed: int = 0
    """Seed for sampling and the bootstrap."""
    store: Path | None = DEFAULT_STORE_PATH
    """DuckDB store the reruns are written to as a `rerun` run; None: not stored."""
    judge: Any = None
    """Judge of natural-language assertions: a model spec or a judge object (`NLJudge`)."""
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, ge=1)
    """Agent decisions per session."""
    label_from: LabelFrom = None
    """Traces, ATIF and inspect logs: where each original's outcome label is (`NAME` or
    `NAME>=N`)."""
    fork_at: int | str | None = None
    """Fork each transcript instead of rerunning it whole (`--fork-at`): a turn number
    (0-based; the turns before it are replayed exactly into the domain, the candidate
    answers from it on) or `divergence` (the turn of the first divergence scoring finds;
    a passed transcript has none and is not forked). None: rerun from the first turn."""
    baseline_lane: str | Agent | None = None
    """With `fork_at`: a second agent run from the same forks (`--baseline-lane`), or
    `recorded`: the recorded agent's own later messages replayed after the fork."""

    @field_validator("fork_at", mode="before")
    @classmethod
    def _fork_turn(cls, value: Any) -> int | str | None:
        from ..rerun._internal import parse_fork_at

        return None if value is None else parse_fork_at(value)

    @model_validator(mode="after")
    def _lane_needs_fork(self) -> RerunConfig:
        if self.baseline_lane is not None and self.fork_at is None:
            raise ConfigError("--baseline-lane needs --fork-at: a lane runs from a fork")
        return self

    @field_validator("fmt")
    @classmethod
    def _known_format(cls, value: str) -> str:
        # Asked now, not at import: a format registered since is known too.
        if value != "auto" and value not in format_names():
            known = ", ".join(format_names())
            raise ConfigError(f"--format must be auto or one of {known}, not {value!r}")
        return value


class RerunSettings(TypedDict, total=False):
    """Every `RerunConfig` field but the file and the candidate, by keyword (see
    `RerunConfig`): `rerun(path, model, **settings)`."""

    fmt: str
    domain: str | None
    suite: str | Suite | None
    trials: int
    user_model: str | Agent | None
    limit: int | None
    concurrency: int | None
    seed: int
    store: str | Path | None
    judge: Any
    max_steps: int
    label_from: str | LabelRule | None
    fork_at: int | str | None
    baseline_lane: str | Agent | None


def rerun(
    config: RerunConfig | str | Path,
    model: str | Agent | None = None,
    *,
    progress: Progress | None = None,
    argv: list[str] | None = None,
    **settings: Unpack[RerunSettings],
) -> RerunReport:
    """Rerun every transcript of a file against a candidate in its domain, judge each rerun
    as the original was judged, store the reruns as a `rerun` run (unless `store` is None),
    and compare pair by pair (see `sessionproof.rerun.rerun`).

    Give a `RerunConfig`, or the file, the candidate and `settings` (its other fields) to
    build one: `rerun("t.json", "openai:gpt-4o", trials=3)`. `progress` is told of every
    finished rerun; `argv` is recorded in the run's manifest. Raises `ConfigError` in one
    line for a bad or unknown option, `InputFileError` for a file that cannot be read.
    """
    if isinstance(config, RerunConfig):
        if model is not None or settings:
            raise ConfigError("rerun takes a RerunConfig or its fields, not both")
    else:
        if model is None:
            raise ConfigError("rerun needs the candidate model")
        config = RerunConfig(path=config, model=model, **settings)
    from ..rerun._internal import fork, parse_fork_at
    from ..rerun._internal import rerun as rerun_transcripts
    from ._config import default_concurrency

    project = open_project(config.suite, config.domain)
    if config.fork_at is not None:
        return fork(
            config.path,
            config.model,
            fork_at=parse_fork_at(config.fork_at),
            baseline_lane=config.baseline_lane,
            fmt=config.fmt,
            domain=project.domain,
            trials=config.trials,
            user_model=config.user_model,
            limit=config.limit,
            concurrency=config.concurrency or default_concurrency(config.model),
            seed=config.seed,
            store_path=config.store,
            judge=config.judge,
            max_steps=config.max_steps,
            progress=progress,
            argv=argv,
            label_from=config.label_from,
            project=project,
        )
    return rerun_transcripts(
        config.path,
        config.model,
        fmt=config.fmt,
        domain=project.domain,
        trials=config.trials,
        user_model=config.user_model,
        limit=config.limit,
        concurrency=config.concurrency or default_concurrency(config.model),
        seed=config.seed,
        store_path=config.store,
        judge=config.judge,
        max_steps=config.max_steps,
        progress=progress,
        argv=argv,
        label_from=config.label_from,
        project=project,
    )
