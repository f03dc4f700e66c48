"""`serve`: one scenario's tools as an MCP server on loopback, judged when the client is done.

The tools are the scenario's domain wrapped by the arm's hooks (faults, drift, the guard)
exactly as in a run; an outside agent connects with any MCP client over streamable HTTP and
calls them. When the client ends its MCP session (or `serve` is interrupted), the final state
is judged and the session stored as a one-session run (`command: serve`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, model_validator

from ..engine import SessionHooks
from ..engine._internal import NoHooks, ServedSession, session_seed, user_for
from ..errors import ConfigError
from ..executors._internal import hooks_factory, load
from ..records import Scenario, Session, TerminationReason
from ..store import RunManifest, Store
from ..store._internal import new_run_id, recorded_run
from ..suites import Suite
from ._config import arm_names, suite_reference
from ._typed import TypedConfig

SERVED_MODEL = "external:mcp"
"""The model name a served session is stored under (the agent is whoever connected)."""


class ServeConfig(TypedConfig):
    """What to serve: one scenario of a suite, under one arm (`faults`, `drift`, `guard`).
    Built by `sessionproof serve` from its flags and by Python callers alike; a bad value
    (a port out of range, a bad fault plan) is one `ConfigError` line."""

    KIND: ClassVar[str] = "serve"

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises `ConfigError` naming the field."""
        super().__init__(**data)

    suite: str | Suite
    """A built-in suite name, a scenario file or a project directory, or a `Suite`."""
    scenario: str
    """The scenario's id."""
    faults: str | None = None
    """Fault plan of the served arm, e.g. `3%` or `timeout:2%`."""
    drift: str | None = None
    """Schema drift `KIND[:P%][@TURN[@TOOL]]` of the served arm."""
    guard: bool = False
    """Wrap the served tools in the guard."""
    port: int = Field(default=0, ge=0, le=65535)
    """0 picks a free port."""
    seed: int = 0
    """Seed for faults and drift."""
    store: Path | None = None
    """Where the judged session is stored (None keeps it in memory)."""

    @model_validator(mode="after")
    def _arm_parses(self) -> ServeConfig:
        arm_names([], self.faults, self.drift, self.guard or None)  # fails fast
        return self


@dataclass
class ServeReport:
    """The served session, judged."""

    url: str
    run_id: str
    arm: str
    session: Session
    store: str | None

    @property
    def success(self) -> bool:
        """True when the verdict is a pass."""
        return self.session.outcome is not None and self.session.outcome.success


def find_scenario(loaded: Suite, scenario_id: str) -> Scenario:
    """The scenario of `loaded` with id `scenario_id`; `ConfigError` naming some ids if none."""
    for scenario in loaded.scenarios:
        if scenario.id == scenario_id:
            return scenario
    ids = [s.id for s in loaded.scenarios]
    shown = ", ".join(ids[:8]) + (f" (and {len(ids) - 8} more)" if len(ids) > 8 else "")
    raise ConfigError(f"suite {loaded.name!r} has no scenario {scenario_id!r}; it has: {shown}")


def _hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    make = hooks_factory([arm])
    return NoHooks() if make is None else make(arm, seed, scenario)


async def aserve(
    config: ServeConfig,
    *,
    on_ready: Callable[[str], None] | None = None,
    on_end: Callable[[ServeReport], None] | None = None,
    done: asyncio.Event | None = None,
) -> ServeReport:
    """Serve until the client ends its MCP session, `done` is set, or this is cancelled
    (Ctrl-C); then judge and store the session. `on_ready` gets the URL; `on_end` the report
    (also when cancelled, before the cancellation goes on)."""
    from ..domains.sources.mcp_host import McpHost

    loaded = load(config.suite, None)
    scenario = find_scenario(loaded, config.scenario)
    (arm,) = arm_names([], config.faults, config.drift, config.guard or None)
    run_id = new_run_id()
    seed = session_seed(config.seed, scenario.id, 0)
    served = ServedSession(
        run_id=run_id,
        session_id=f"{scenario.id}.served",
        scenario=scenario,
        judge=loaded,
        arm=arm,
        seed=seed,
        hooks=_hooks(arm, seed, scenario),
        model=SERVED_MODEL,
        user=user_for(scenario, None),
    )
    await served.open_turn()
    finished = done or asyncio.Event()
    host = McpHost(config.port)
    interrupted = False
    try:
        url = await host.mount(served, on_closed=finished.set)
        if on_ready is not None:
            on_ready(url)
        try:
            await finished.wait()
        except asyncio.CancelledError:
            interrupted = True
    finally:
        await host.aclose()
    detail = "serve was interrupted" if interrupted else "the MCP client ended its session"
    session = await served.finish(TerminationReason.agent_stop, detail)
    report = ServeReport(url, run_id, arm, session, _store(config, loaded, scenario, session))
    if on_end is not None:
        on_end(report)
    if interrupted:
        raise asyncio.CancelledError
    return report


def _store(config: ServeConfig, loaded: Suite, scenario: Scenario, session: Session) -> str | None:
    if config.store is None:
        return None
    manifest = RunManifest(
        run_id=session.run_id,
        command="serve",
        suite=suite_reference(config.suite),
        suite_hash=loaded.content_hash(),
        model=SERVED_MODEL,
        seed=config.seed,
        arms=[session.arm],
        scenario_ids=[scenario.id],
    )
    with Store.open(config.store) as db, recorded_run(db, manifest):
        db.write_session(session)
    return str(config.store)


def serve(
    config: ServeConfig,
    *,
    on_ready: Callable[[str], None] | None = None,
    on_end: Callable[[ServeReport], None] | None = None,
) -> ServeReport:
    """Blocking form of `aserve` (the CLI's): Ctrl-C judges, stores, then raises
    `KeyboardInterrupt` after `on_end` has had the report."""
    return asyncio.run(aserve(config, on_ready=on_ready, on_end=on_end))
