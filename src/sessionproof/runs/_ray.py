"""`--executor ray`: a `RunConfig` as the Ray workers get it, and the call into the driver."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..engine import Progress, SessionSink
from ..engine._internal import RunPlan
from ..errors import ConfigError
from ..executors._internal import AgentWrapper, WorkerSpec, import_ray
from ..executors._internal import execute_ray as _drive
from ..records import Session
from ..suites import Suite
from ._config import RunConfig, parse_executor, suite_reference


def _check_pickles(config: RunConfig) -> None:
    """Objects go to the workers by value: one that cannot be pickled is a `ConfigError`
    saying what to give instead."""
    dumps: Callable[[object], bytes] = import_ray().cloudpickle.dumps  # what Ray ships with
    for what, value, instead in (
        ("suite", config.suite, "a suite name or file"),
        ("model", config.model, "a model spec string"),
        ("user_model", config.user_model, "a model spec string"),
    ):
        if value is None or isinstance(value, str):
            continue
        try:
            dumps(value)
        except Exception as exc:
            raise ConfigError(
                f"--executor ray ships the {what} to its workers, but this "
                f"{type(value).__name__} cannot be pickled ({type(exc).__name__}); "
                f"give {instead} instead"
            ) from None


def worker_spec(
    config: RunConfig, plan: RunPlan, loaded: Suite, wrap_agent: AgentWrapper | None = None
) -> WorkerSpec:
    """What every worker of this run is given (a Ray actor by pickle, a forked local
    process by inheritance): the suite by a reference it can load (a file as an absolute
    path) or by value, the models by spec string or by value."""
    suite = config.suite
    return WorkerSpec(
        suite=suite_reference(suite) if isinstance(suite, str) else suite,
        limit=config.limit,
        reading=config.reading,
        suite_hash=loaded.content_hash(),
        model=config.model,
        user_model=config.user_model,
        tool_mode=config.tool_mode,
        plan=replace(plan, skip=set()),  # the driver skips; workers need not know
        cwd=str(Path.cwd()),
        wrap_agent=wrap_agent,
    )


def ray_spec(
    config: RunConfig, plan: RunPlan, loaded: Suite, wrap_agent: AgentWrapper | None = None
) -> WorkerSpec:
    """`worker_spec` for Ray workers, refusing objects that cannot be pickled to them."""
    _check_pickles(config)
    return worker_spec(config, plan, loaded, wrap_agent)


async def execute_ray(
    spec: WorkerSpec,
    loaded: Suite,
    plan: RunPlan,
    sink: SessionSink,
    progress: Progress | None,
    executor: str,
) -> list[Session]:
    """Run `plan` on the Ray cluster `executor` (`ray` or `ray:ADDRESS`) names."""
    _, address = parse_executor(executor)
    return await _drive(spec, loaded, plan, sink, progress, address=address)
