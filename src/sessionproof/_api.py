"""The short Python API: run a suite with an agent, get typed sessions and a summary.

A thin shell over `sessionproof.runs`, the service `sessionproof run` calls too: the same
arguments store the same sessions either way.
"""

from __future__ import annotations

import asyncio
from typing import Unpack

from pydantic import BaseModel, ConfigDict, Field

from .agents import Agent
from .engine import Progress
from .errors import ConfigError
from .records import Session
from .runs import OtlpExport, RunConfig, RunReport, RunSettings, aresume, arun
from .scoring import ArmsReport, RunSummary
from .store import Store
from .suites import Suite

_DEFAULT_AGENT = "oracle"


class RunResult(BaseModel):
    """Sessions of a run (each with its `outcome`) and their summaries, one per arm.

    Arms are never pooled: `summary_by_arm` holds each arm's summary; `summary` is the first
    arm's (the whole run's when it has one arm). Sessions that were not judged (infra
    errors, no outcome, an outcome no criterion could check) are counted apart in each
    summary (`not_judged`, `not_judged_reasons`) and left out of its accuracy and pass^k.
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    sessions: list[Session]
    summary: RunSummary
    """The first arm's summary (with one arm, the run's); see `summary_by_arm`."""
    arms: list[str] = Field(default_factory=list)
    """The run's arms, in order (the first is the reference of `comparison.paired`)."""
    summary_by_arm: dict[str, RunSummary] = Field(default_factory=dict)
    """Arm name → its summary: session accuracy with its 95% CI, pass^k (k up to the
    arm's trials), sessions not judged by reason, accuracy over evaluated criteria."""
    comparison: ArmsReport | None = None
    """With several arms (None with one): `comparison.arms[name]` holds each arm's summary,
    error recovery rate (and by error class), injected failures and drift tolerance;
    `comparison.paired` each later arm against the first on the same scenario × trial
    pairs: the two success rates, their difference with a paired bootstrap 95% CI, the
    exact McNemar p-value, and the pairs needed to detect that difference."""


_RESUME_MAY_CHANGE = frozenset(
    {
        "store",
        "concurrency",
        "max_sessions",
        "executor",
        "rpm",
        "tpm",
        "export",
        "user_model",
        "prices",
    }
)
"""Settings `resume` takes again; every other one the resumed run keeps from its manifest."""


async def _resumed(
    run_id: str,
    suite: str | Suite,
    agent: str | Agent,
    progress: Progress | None,
    options: RunSettings,
) -> RunReport:
    store = options.get("store")
    if store is None:
        raise ConfigError("resume needs the store the run was written to (store=...)")
    # Refused by name, as `sessionproof run --resume` refuses its flags (`arm` for `arms`).
    given = [
        "arm" if name == "arms" else name for name in options if name not in _RESUME_MAY_CHANGE
    ]
    export = options.get("export")
    report = await aresume(
        run_id,
        store=store,
        # What only the caller can give again: objects, or a spec whose credentials the
        # store redacted. The default agent means none was given.
        model=None if agent == _DEFAULT_AGENT else agent,
        user_model=options.get("user_model"),
        suite=suite if isinstance(suite, Suite) else None,
        concurrency=options.get("concurrency"),
        max_sessions=options.get("max_sessions"),
        executor=options.get("executor"),
        rpm=options.get("rpm"),
        tpm=options.get("tpm"),
        prices=options.get("prices"),
        given=given,
        progress=progress,
        export=None if export is None else OtlpExport.model_validate(export),
    )
    with Store.open(store, read_only=True) as db:
        everything = db.load_sessions(report.run_id)
    return report.model_copy(update={"sessions": everything})


async def arun_suite(
    suite: str | Suite = "demo",
    agent: str | Agent = _DEFAULT_AGENT,
    *,
    resume: str | None = None,
    progress: Progress | None = None,
    **options: Unpack[RunSettings],
) -> RunResult:
    """Async form of `run_suite`."""
    if resume is not None:
        report = await _resumed(resume, suite, agent, progress, options)
    else:
        report = await arun(RunConfig(suite=suite, model=agent, **options), progress)
    return RunResult(
        run_id=report.run_id,
        sessions=report.sessions,
        summary=report.summary,
        arms=report.arms,
        summary_by_arm=report.summary_by_arm,
        comparison=report.comparison,
    )


def run_suite(
    suite: str | Suite = "demo",
    agent: str | Agent = _DEFAULT_AGENT,
    *,
    resume: str | None = None,
    progress: Progress | None = None,
    **options: Unpack[RunSettings],
) -> RunResult:
    """Run `suite` (a name, a scenario file, or a `Suite`) with `agent` (a model spec string
    or any `Agent`) and return every session with its verdict, plus a summary per arm
    (`RunResult.summary_by_arm`; `summary` is the first arm's) and, with several arms, their
    comparison (`RunResult.comparison`).

    It runs what `sessionproof run` runs (`sessionproof.runs.run`): `options` are the
    fields of `RunConfig` (`trials`, `limit`, `seed`, `arms` or `faults`, `drift`, `guard`,
    `perturb` for one arm, `store`, `reading`, `executor`, `rpm`, `tpm`, `export` for a live
    OTLP export, ...; see `RunSettings`); `concurrency` None is 1 for a local model, else 4.
    Simulated users are played by `user_model`, by default the agent itself when it is a
    model (reference agents state the scenario's instructions instead). With `store`, every
    session is written to that DuckDB file the moment it ends, so a killed run continues
    with `resume=RUN_ID` (and the same `store`): its manifest's settings are used (giving
    one of them again is a `ConfigError`; `concurrency`, `max_sessions`, `executor`, the rate
    limits and `export` may change), and `sessions` then holds every session of the run.
    Raises `ConfigError` in one line for a bad or unknown option.
    """
    return asyncio.run(arun_suite(suite, agent, resume=resume, progress=progress, **options))
