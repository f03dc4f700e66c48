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


class Outcome(BaseModel):
    """The verdict of one session."""

    model_config = ConfigDict(extra="forbid")

    success: bool
    reward: float
    criteria: list[CriterionResult] = Field(default_factory=list)

    def criterion(self, name: str) -> CriterionResult | None:
        """The result of criterion `name`, if it was judged."""
        return next((c for c in self.criteria if c.name == name), None)
