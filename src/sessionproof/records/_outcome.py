"""Verdicts: one criterion's result, and a session's outcome."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CriterionResult(BaseModel):
    """One criterion's verdict and the evidence for it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """e.g. `db`, `communicate`, `forbidden`, `action`, `nl_assertion`."""
    passed: bool | None
    """None when the criterion could not be evaluated (never silently counted as passed)."""
    evidence: str = ""


class TurnResult(BaseModel):
    """One scripted user turn's verdict, for a scenario with per-turn criteria."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    """0-based index of the user turn."""
    passed: bool | None
    """None when the turn could not be judged (never counted as passed)."""
    gold_prefix: bool = False
    """True when the session started at this turn from the gold history of the turns before
    it (the gold-prefix reading); False: judged on the agent's own history."""
    evidence: str = ""


def _empty(value: object) -> bool:
    # Left out of dumps while empty, so outcomes stored before the field dump as they did.
    return not value


class Outcome(BaseModel):
    """The verdict of one session."""

    model_config = ConfigDict(extra="forbid")

    success: bool
    reward: float
    criteria: list[CriterionResult] = Field(default_factory=list)
    turns: list[TurnResult] = Field(default_factory=list, exclude_if=_empty)
    """Per-turn verdicts, when the scenario's criteria are per turn (`Criteria.per_turn`)."""

    def criterion(self, name: str) -> CriterionResult | None:
        """The result of criterion `name`, if it was judged."""
        return next((c for c in self.criteria if c.name == name), None)
