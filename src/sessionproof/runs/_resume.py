"""`resume`: finish a killed run with the settings it was started with."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from pathlib import Path

from .._secrets import register_spec_credentials
from ..agents import Agent
from ..engine import Progress
from ..engine._internal import DEFAULT_AGENT_TIMEOUT_S, DEFAULT_MAX_STEPS
from ..errors import ConfigError
from ..executors._internal import load
from ..scoring._internal import PriceTable
from ..store import RunManifest, Store
from ..store._internal import DEFAULT_STORE_PATH, REDACTED, scrub_text
from ..suites import Suite
from ._config import RunConfig
from ._judged import judging
from ._live import OtlpExport, exporting
from ._results import RunReport
from ._run import StartHook, execute

RESUME_KEEPS = (
    "suite",
    "model",
    "trials",
    "limit",
    "seed",
    "max_steps",
    "user_model",
    "tool_mode",
    "arm",
    "faults",
    "drift",
    "guard",
    "perturb",
    "model_faults",
    "agent_timeout",
    "reading",
    "vary",
    "judge",
)
"""Settings a resumed run takes from its manifest: asking for one on resume is an error."""


def _flag(name: str) -> str:
    return f"--{name.replace('_', '-')}"


def refuse_given(manifest: RunManifest, given: Collection[str]) -> None:
    """Raise `ConfigError` naming every setting in `given` that a resume of `manifest`
    would ignore. A model spec whose credentials were redacted before storing must be given
    again, so it is allowed."""
    respecify = {
        name
        for name, stored in (("model", manifest.model), ("user_model", manifest.user_model))
        if stored is not None and REDACTED in stored
    }
    refused = [_flag(n) for n in RESUME_KEEPS if n in given and n not in respecify]
    if refused:
        raise ConfigError(
            f"--resume cannot be combined with {', '.join(refused)}: "
            "a resumed run keeps the settings it was started with"
        )


def resumed_model(run_id: str, flag: str, stored: str, given: str | Agent | None) -> str | Agent:
    """What a resumed run uses for a stored model spec: the stored spec itself; the same
    spec given again when its credentials were redacted (they are never stored); or an
    `Agent` object of the stored name (an object cannot be stored)."""
    if given is not None and not isinstance(given, str):
        if given.name != stored:
            raise ConfigError(f"run {run_id} used {stored}, not the agent {given.name!r}")
        return given
    if REDACTED not in stored:
        if given is not None and given != stored:
            raise ConfigError(
                f"run {run_id} used {stored}, not {scrub_text(given)}: "
                "a resumed run keeps the settings it was started with"
            )
        return stored
    if given is not None:
        register_spec_credentials(given)
        if scrub_text(given) == stored:
            return given
    raise ConfigError(
        f"run {run_id} used {stored}, whose credentials are not stored; resume it with "
        f"the same {flag} again"
    )


def resumed_config(
    manifest: RunManifest,
    store: Path,
    *,
    model: str | Agent | None = None,
    user_model: str | Agent | None = None,
    suite: Suite | None = None,
    concurrency: int | None = None,
    executor: str | None = None,
    max_sessions: int | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    prices: PriceTable | None = None,
) -> RunConfig:
    """The `RunConfig` a stored run was started with (what `resume` runs); `concurrency`,
    `max_sessions`, `executor` and the rate limits `rpm` / `tpm` may differ from the run's
    (a run started locally resumes on Ray and the other way round)."""
    options = manifest.options
    return RunConfig(
        suite=suite if suite is not None else manifest.suite,
        model=resumed_model(manifest.run_id, "--model", manifest.model, model),
        trials=manifest.trials,
        limit=manifest.limit,
        concurrency=concurrency or manifest.concurrency,
        max_sessions=max_sessions,
        seed=manifest.seed,
        max_steps=manifest.max_steps or DEFAULT_MAX_STEPS,
        user_model=(
            None
            if manifest.user_model is None
            else resumed_model(manifest.run_id, "--user-model", manifest.user_model, user_model)
        ),
        tool_mode=str(options.get("tool_mode", "auto")),
        arms=list(manifest.arms) or ["baseline"],
        agent_timeout=float(options.get("agent_timeout", DEFAULT_AGENT_TIMEOUT_S)),
        store=store,
        reading=str(options.get("reading", "own")),
        executor=executor or str(options.get("executor", "local")),
        rpm=rpm if rpm is not None else _stored_limit(options.get("rpm")),
        tpm=tpm if tpm is not None else _stored_limit(options.get("tpm")),
        vary=_stored_party(options.get("vary")),
        judge=_stored_judge(options.get("judge")),
        prices=prices,
    )


def _stored_party(value: object) -> str | None:
    """The `--vary` party of a manifest's options (absent in runs started without one)."""
    return value if isinstance(value, str) else None


def _stored_judge(value: object) -> str | None:
    """The NL judge a run was started with (`--judge`), absent in runs without one."""
    return value if isinstance(value, str) and value else None


def _stored_limit(value: object) -> float | None:
    """A rate limit from a manifest's options (absent in runs started without one)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


async def aresume(
    run_id: str,
    *,
    store: str | Path = DEFAULT_STORE_PATH,
    model: str | Agent | None = None,
    user_model: str | Agent | None = None,
    suite: Suite | None = None,
    concurrency: int | None = None,
    executor: str | None = None,
    max_sessions: int | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    given: Collection[str] = (),
    progress: Progress | None = None,
    on_start: StartHook | None = None,
    html: bool = False,
    export: OtlpExport | None = None,
    prices: PriceTable | None = None,
) -> RunReport:
    """Async form of `resume`."""
    path = Path(store)
    with Store.open(path) as db:
        manifest = db.get_run(run_id)
        if manifest.command != "run":
            raise ConfigError(
                f"run {manifest.run_id} is a {manifest.command} run; only runs made by "
                "`sessionproof run` can be resumed"
            )
        refuse_given(manifest, given)
        config = resumed_config(
            manifest,
            path,
            model=model,
            user_model=user_model,
            suite=suite,
            concurrency=concurrency,
            executor=executor,
            max_sessions=max_sessions,
            rpm=rpm,
            tpm=tpm,
            prices=prices,
        )
        loaded = load(config.suite, config.limit, config.reading)
        if loaded.content_hash() != manifest.suite_hash:
            raise ConfigError(
                f"suite {manifest.suite!r} changed since run {manifest.run_id} started; "
                "start a new run instead of resuming"
            )
        skip = db.finished_keys(manifest.run_id)
        with exporting(export, progress, manifest.suite, config.prices) as told:
            async with judging(config, loaded):  # the run's own judge, kept in its manifest
                return await execute(
                    db, config, loaded, manifest, told, on_start, skip=skip, html=html
                )


def resume(
    run_id: str,
    *,
    store: str | Path = DEFAULT_STORE_PATH,
    model: str | Agent | None = None,
    user_model: str | Agent | None = None,
    suite: Suite | None = None,
    concurrency: int | None = None,
    executor: str | None = None,
    max_sessions: int | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    given: Collection[str] = (),
    progress: Progress | None = None,
    on_start: StartHook | None = None,
    html: bool = False,
    export: OtlpExport | None = None,
    prices: PriceTable | None = None,
) -> RunReport:
    """Continue the killed run `run_id` (or a unique prefix) in `store`: run the sessions it
    had not finished, with the settings of its manifest, and report over all of them.

    Give `model` / `user_model` again only when the stored spec had its credentials
    redacted, or as the `Agent` object the run was started with; `suite` when it was a
    `Suite` object (its content must not have changed). `concurrency`, `max_sessions`, `executor`
    (`local`, `ray`, `ray:ADDRESS`; default: the run's) and the rate limits `rpm` / `tpm`
    (default: the run's) may differ. `given` names the settings
    the caller was explicitly asked for (`sessionproof run --resume` passes its command-line
    flags): any that the run keeps from its manifest is refused. `html` as for `run`;
    `export`: the live export of the resumed sessions (as `RunConfig.export`); `prices`:
    what prices the report's cost (as `RunConfig.prices`). A run started with `judge` keeps it.
    Raises `ConfigError` for a run not made by `run`, a changed suite, or a refused setting.
    """
    return asyncio.run(
        aresume(
            run_id,
            store=store,
            model=model,
            user_model=user_model,
            suite=suite,
            concurrency=concurrency,
            executor=executor,
            max_sessions=max_sessions,
            rpm=rpm,
            tpm=tpm,
            prices=prices,
            given=given,
            progress=progress,
            on_start=on_start,
            html=html,
            export=export,
        )
    )
