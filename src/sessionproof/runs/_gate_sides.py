"""The two sides of a gate: a stored run read back, or a model/agent spec the gate runs
itself, one trial of every scenario per round, into one stored run per side."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from ..agents import Agent
from ..engine import Progress
from ..errors import ConfigError, StoreError
from ..records import Session
from ..store import RunManifest, Store
from ..suites import Suite
from ._config import RunConfig
from ._gate_pairs import Keyed, keyed
from ._run import execute, new_manifest, run_agents

RUN_ID = re.compile(r"^r\d{8}(-|$)")
"""What a stored run id (or a prefix of one) looks like: `rYYYYMMDD-HHMMSS-xxxxxx`."""


@dataclass
class Side:
    """One side of the gate: where its sessions come from, and those held so far."""

    name: str
    """`baseline` or `candidate`."""
    run_id: str = ""
    """The stored run read, or the run the gate writes for a spec (once it started)."""
    manifest: RunManifest | None = None
    """A stored run's manifest (None for a spec side)."""
    spec: str | Agent | None = None
    """The model/agent a spec side runs (None for a stored side)."""
    sessions: Keyed = field(default_factory=dict)

    @property
    def stored(self) -> bool:
        """True when the side is a stored run."""
        return self.manifest is not None

    def used(self, rounds: int) -> list[Session]:
        """The side's sessions of the first `rounds` trials."""
        return [s for (_, trial), s in sorted(self.sessions.items()) if trial < rounds]


def stored_run_id(value: str | Agent, db: Store | None) -> str | None:
    """The full id of the stored run `value` names (an id or a unique prefix), or None when
    it is a model/agent spec. Something shaped like a run id that the store lacks is an
    error naming the store, never run as a spec."""
    if not isinstance(value, str):
        return None
    looks_like_run = bool(RUN_ID.match(value.strip()))
    if db is None:
        if looks_like_run:
            raise ConfigError(f"no run {value!r}: the store does not exist")
        return None
    try:
        return db.get_run(value.strip()).run_id
    except StoreError:
        if looks_like_run:
            raise
        return None


def read_side(name: str, run_id: str, db: Store, arm: str) -> Side:
    """A stored side: its manifest and its sessions of `arm`."""
    manifest = db.get_run(run_id)
    sessions = keyed(db.load_sessions(manifest.run_id, arm=arm), arm)
    return Side(name=name, run_id=manifest.run_id, manifest=manifest, sessions=sessions)


class SpecRunner:
    """Runs one spec side round by round into one stored run: the run is planned for the
    gate's rounds (its manifest's `trials`), and each round runs trial r of every scenario
    only (the others are skipped, as a resume skips what it has)."""

    def __init__(
        self,
        side: Side,
        db: Store,
        config: RunConfig,
        loaded: Suite,
        argv: list[str] | None,
    ) -> None:
        """Plan the side's run of `config` over `loaded` (nothing is written yet)."""
        self.side = side
        self._db = db
        self._config = config
        self._loaded = loaded
        manifest = new_manifest(config, loaded, argv)
        options = {**manifest.options, "gate_side": side.name}
        self._manifest = manifest.model_copy(update={"options": options})
        self._created = False
        side.run_id = self._manifest.run_id

    async def check(self) -> None:
        """Make the side's agents once and close them: a spec that cannot be made fails
        here, before either side has run or stored anything."""
        async with run_agents(self._config):
            pass

    async def run_round(
        self, trial: int, progress: Progress | None, only: Collection[str] | None = None
    ) -> list[Session]:
        """Run trial `trial` of every scenario (of those in `only`, when given: a thinned
        round); the sessions are also added to the side."""
        arm = self._config.arm_names[0]
        skip = {
            (s.id, t, arm)
            for s in self._loaded.scenarios
            for t in range(self._config.trials)
            if t != trial or (only is not None and s.id not in only)
        }
        if not self._created:
            self._db.create_run(self._manifest)
            self._created = True
        report = await execute(
            self._db, self._config, self._loaded, self._manifest, progress, None, skip=skip
        )
        self.side.sessions.update(keyed(report.sessions, arm))
        return report.sessions


def spec_config(
    spec: str | Agent,
    *,
    suite: str | Suite,
    rounds: int,
    limit: int | None,
    seed: int,
    arm: str,
    store: Path,
    max_steps: int | None,
    user_model: str | Agent | None,
    concurrency: int | None,
) -> RunConfig:
    """The `RunConfig` a spec side runs under (the same for both sides, but the model)."""
    extra: dict[str, object] = {}
    if max_steps is not None:
        extra["max_steps"] = max_steps
    return RunConfig(
        suite=suite,
        model=spec,
        trials=rounds,
        limit=limit,
        seed=seed,
        arms=[arm],
        store=store,
        user_model=user_model,
        concurrency=concurrency,
        **extra,
    )
