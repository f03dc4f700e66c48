"""What the run use cases hand back: typed results the CLI renders as a table or as JSON."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..agents._internal import ConcurrencyStats
from ..records import Session
from ..scoring import ArmsReport, RunSummary
from ..scoring._internal import (
    TURN_DEFINITIONS,
    Breakdowns,
    CostSummary,
    FaultsReport,
    TurnReport,
    boundaries_json,
)
from ..store._internal import RunStatus


class RunStart(BaseModel):
    """A run about to execute (what `sessionproof run` announces on stderr)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    suite: str
    """The suite as it was named (a name, a path as given, or a `Suite` object's name)."""
    scenarios: int
    trials: int
    arms: list[str]
    model: str
    """The agent's model spec with any credential redacted, or an `Agent` object's name."""
    resumed_sessions: int = 0
    """Sessions a resumed run had already finished (they are not run again)."""


class RunReport(BaseModel):
    """A finished run: its summary over every stored session, the arm comparison when it made
    several arms, and the sessions this call ran."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    status: RunStatus = "finished"
    store: str | None
    """The store file, as given; None when the run was kept in memory only."""
    arms: list[str]
    resumed_sessions: int = 0
    """Sessions a resumed run had already finished before this call."""
    summary: RunSummary
    """Over every session of the run (the resumed ones too) of its FIRST arm: the whole run
    when it has one arm; with several, the first (reference) arm's, never the arms pooled
    (each arm's is in `summary_by_arm`)."""
    summary_by_arm: dict[str, RunSummary] = Field(default_factory=dict)
    """Arm name → its summary, in the run's arm order (one entry for a one-arm run). pass^k
    is per arm: k never exceeds one arm's trials."""
    comparison: ArmsReport | None = None
    """With several arms: each arm's summary with its error recovery (by class), injected
    faults and drift tolerance (`comparison.arms`), and each arm against the first on the
    same scenario × trial pairs (`comparison.paired`: difference, 95% CI, McNemar p)."""
    turns: TurnReport | None = None
    """Per-turn accuracy in both readings, when the suite has per-turn criteria."""
    faults: FaultsReport | None = None
    """A one-arm run under a fault plan: fault detection and recovery (with several arms,
    each arm's is in `comparison.arms`)."""
    concurrency: ConcurrencyStats | None = None
    """How provider requests were admitted (peak and mean in flight, 429s seen); None when
    the run sent none (reference agents)."""
    sessions: list[Session] = Field(default_factory=list, repr=False)
    """The sessions this call ran, in the order they finished (a resume's earlier sessions
    are in the store, not here)."""
    breakdowns: dict[str, Breakdowns] = Field(default_factory=dict)
    """Arm → the suite's own breakdown tables (e.g. the wild suite's task accuracy by
    position); empty for suites that have none."""
    html_report: str | None = None
    """The HTML report written at the end, when the run was asked for one."""
    html_error: str | None = None
    """Why that report could not be written (the run itself is stored)."""
    cost_by_arm: dict[str, CostSummary] = Field(default_factory=dict)
    """Arm → tokens and USD by agent, simulated user and judge, per session and per
    successful session, over every session of the run (a resume's earlier ones too)."""

    def to_json(self) -> dict[str, Any]:
        """The `sessionproof run --json` object: the run id, the store, and `arms` (arm →
        its summary). A one-arm run also has its summary's numbers at the top level; a run
        with several arms has none there (arms are never pooled) but each arm's recovery and
        drift numbers beside its summary, and `paired` (each arm against the first)."""
        turns = (
            {}
            if self.turns is None
            else {
                "turns": {
                    **self.turns.model_dump(mode="json"),
                    "definitions": dict(TURN_DEFINITIONS),
                }
            }
        )
        if self.comparison is not None:
            return {
                "run_id": self.run_id,
                "arms": {
                    name: {
                        **arm.summary.model_dump(mode="json"),
                        **arm.model_dump(exclude={"summary"}),
                        **self._breakdowns_json(name),
                        **self._cost_json(name),
                    }
                    for name, arm in self.comparison.arms.items()
                },
                "paired": [p.model_dump(mode="json") for p in self.comparison.paired],
                "store": self.store,
                **turns,
                **self._concurrency_json(),
                **self._boundaries_json(),
            }
        faults = {} if self.faults is None else {"faults": self.faults.model_dump(mode="json")}
        return {
            "run_id": self.run_id,
            **self.summary.model_dump(mode="json"),
            **faults,
            "arms": {
                name: {**s.model_dump(mode="json"), **faults} | self._cost_json(name)
                for name, s in self.summary_by_arm.items()
            },
            "resumed_sessions": self.resumed_sessions,
            "store": self.store,
            **self._breakdowns_json(self.arms[0] if self.arms else ""),
            **turns,
            **self._concurrency_json(),
            **self._boundaries_json(),
        }

    def _breakdowns_json(self, arm: str) -> dict[str, Any]:
        # Only suites with breakdowns add the key, so every other run's JSON is unchanged.
        found = self.breakdowns.get(arm)
        return {} if found is None else {"breakdowns": found.model_dump(mode="json")}

    def _cost_json(self, arm: str) -> dict[str, Any]:
        found = self.cost_by_arm.get(arm)
        return {} if found is None else {"cost": found.model_dump(mode="json")}

    def _boundaries_json(self) -> dict[str, Any]:
        # Only runs whose arms met a fault add the key (the sessions this call ran).
        by_arm: dict[str, list[Session]] = {arm: [] for arm in self.arms}
        for session in self.sessions:
            by_arm.setdefault(session.arm, []).append(session)
        found = boundaries_json(by_arm)
        return {"fault_boundaries": found} if found else {}

    def _concurrency_json(self) -> dict[str, Any]:
        stats = self.concurrency
        return {} if stats is None else {"concurrency": stats.model_dump(mode="json")}
