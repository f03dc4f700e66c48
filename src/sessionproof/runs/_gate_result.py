"""What a gate hands back: the verdict with its paired effect and interval, the design as run,
each scenario's paired outcomes and the cost; its `--json` form and its exit status."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..records import Session
from ..scoring._internal import CostSummary, PriceTable
from ..scoring.stats._internal import (
    Look,
    Spending,
    Verdict,
    decide,
    futile,
    minimum_detectable_effect,
)
from ._gate_cost import gate_cost
from ._gate_pairs import ScenarioPairs

StoppedBecause = Literal["decided", "futility", "max_trials", "budget", "stored_trials"]
"""Why the gate stopped: a verdict was reached; a verdict by the last round had become
unlikely (`--futility`); or no more rounds: `--max-trials`, the sessions budget, or the
trials a stored side holds."""

EXIT_CODES: dict[str, int] = {"better": 0, "not_worse": 0, "worse": 1, "inconclusive": 2}
"""The gate's exit status per verdict (`--fail-inconclusive` makes inconclusive 1)."""


class GateLook(BaseModel):
    """The interval after one round, and the verdict it supported."""

    model_config = ConfigDict(extra="forbid")

    round: int
    pairs: int
    estimate: float
    low: float
    high: float
    critical: float
    verdict: Verdict

    @classmethod
    def after(cls, at: Look, round_: int, margin: float) -> GateLook:
        """The look `at` after round `round_`, with the verdict it supports at `margin`."""
        return cls(
            round=round_,
            pairs=at.pairs,
            estimate=at.estimate,
            low=at.low,
            high=at.high,
            critical=at.critical,
            verdict=decide(at, margin),
        )


def stop_after(
    seen: GateLook,
    at: Look,
    fraction: float,
    last_critical: float,
    margin: float,
    futility: float,
) -> StoppedBecause | None:
    """Why the gate stops after the look `at` (told as `seen`), taken at information
    `fraction` (1 at the design's last look): `decided` at a verdict, `futility` when a
    verdict by the last look has a chance under `futility` (`scoring.stats._futility`, its
    boundary `last_critical`), else None: the next round runs, if any is left."""
    if seen.verdict != "inconclusive":
        return "decided"
    if futile(at, fraction, last_critical, margin, futility):
        return "futility"
    return None


class GateResult(BaseModel):
    """A candidate against a baseline, decided on paired sessions by a group-sequential
    design (see `sessionproof.runs.gate`)."""

    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    estimate: float
    """Mean paired difference, candidate − baseline success rate."""
    low: float
    high: float
    """Its repeated confidence interval at the last look (level 1 − alpha)."""
    margin: float
    alpha: float
    spending: str
    """The alpha-spending function of the design's boundaries."""
    mde: float | None
    """Minimum detectable effect of the design as run (80% power at the last look)."""
    rounds: int
    """Trials per scenario the gate used (one per round)."""
    rounds_planned: int
    """The design's looks (its boundaries were computed for this many)."""
    stopped_because: StoppedBecause
    arm: str
    scenarios: list[ScenarioPairs]
    pairs: int
    """Judged pairs the estimate stands on."""
    unjudged_pairs: int
    """Pairs left out because a session of them was not judged."""
    sessions: dict[str, int]
    """Side → sessions the decision used."""
    runs: dict[str, str]
    """Side → the stored run its sessions are in."""
    stored: dict[str, bool]
    """Side → True when it was a stored run, False when the gate ran it."""
    cost: dict[str, CostSummary]
    """Side → its tokens and USD by role, per session and per successful session."""
    looks: list[GateLook] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    def exit_code(self, fail_inconclusive: bool = False) -> int:
        """0 better or not_worse, 1 worse, 2 inconclusive (1 with `fail_inconclusive`)."""
        if self.verdict == "inconclusive" and fail_inconclusive:
            return 1
        return EXIT_CODES[self.verdict]

    def to_json(self) -> dict[str, Any]:
        """The `sessionproof gate --json` object: `verdict`, `effect` (`estimate`, `ci`,
        `margin`), `mde`, `sessions` (`baseline`, `candidate`), `trials_per_scenario`,
        `stopped_because`, `cost`, and the design, pairs, scenarios and looks beside."""
        return {
            "verdict": self.verdict,
            "effect": {
                "estimate": self.estimate,
                "ci": [self.low, self.high],
                "margin": self.margin,
            },
            "mde": self.mde,
            "sessions": dict(self.sessions),
            "trials_per_scenario": self.rounds,
            "stopped_because": self.stopped_because,
            "cost": {k: v.model_dump(mode="json") for k, v in self.cost.items()},
            "alpha": self.alpha,
            "spending": self.spending,
            "rounds_planned": self.rounds_planned,
            "arm": self.arm,
            "pairs": self.pairs,
            "unjudged_pairs": self.unjudged_pairs,
            "runs": dict(self.runs),
            "stored": dict(self.stored),
            "scenarios": [s.model_dump(mode="json") for s in self.scenarios],
            "looks": [x.model_dump(mode="json") for x in self.looks],
            "notes": list(self.notes),
        }


def gate_result(
    looks: list[GateLook],
    at: Look,
    done: int,
    planned: int,
    stopped: StoppedBecause,
    used: dict[str, list[Session]],
    tally: dict[str, ScenarioPairs],
    runs: dict[str, str],
    stored: dict[str, bool],
    arm: str,
    margin: float,
    alpha: float,
    spending: Spending,
    prices: PriceTable | None,
    notes: list[str],
) -> GateResult:
    """The gate's result from its last look and the sessions it used."""
    unjudged = sum(row.unjudged for row in tally.values())
    if unjudged:
        notes.append(f"{unjudged} pair(s) left out: a session of them was not judged")
    return GateResult(
        verdict=looks[-1].verdict,
        estimate=at.estimate,
        low=at.low,
        high=at.high,
        margin=margin,
        alpha=alpha,
        spending=spending,
        mde=minimum_detectable_effect(at),
        rounds=done,
        rounds_planned=planned,
        stopped_because=stopped,
        arm=arm,
        scenarios=list(tally.values()),
        pairs=at.pairs,
        unjudged_pairs=unjudged,
        sessions={name: len(s) for name, s in used.items()},
        runs=runs,
        stored=stored,
        cost=gate_cost(used, prices),
        looks=looks,
        notes=notes,
    )
