"""Verdicts: one criterion's result, and a session's outcome."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


def _empty(value: object) -> bool:
    # Left out of dumps while empty, so outcomes stored before the field dump as they did.
    return not value


def _unset(value: object) -> bool:
    return value is None


class Mismatch(BaseModel):
    """One piece of evidence of a failed criterion: where, what was expected, what was found.

    `where` is a dotted path into the final state (`orders.O1.status`), a call and argument
    (`transfer[0].amount`), or a phrase (`phrase`) for a missing fact. `actual` is None and
    `missing` True when nothing was found there at all (no such path, no such call).
    """

    model_config = ConfigDict(extra="forbid")

    where: str
    expected: Any = None
    actual: Any = None
    missing: bool = Field(default=False, exclude_if=_empty)
    """True when `where` does not exist on the actual side (no path, no call, no phrase)."""


class CriterionResult(BaseModel):
    """One criterion's verdict and the evidence for it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """e.g. `db`, `communicate`, `forbidden`, `action`, `nl_assertion`."""
    passed: bool | None
    """None when the criterion could not be evaluated (never silently counted as passed)."""
    evidence: str = ""
    details: list[Mismatch] = Field(default_factory=list, exclude_if=_empty)
    """Structured evidence of a failure: the differing fields, the first mismatching
    argument, the missing phrases (empty when the criterion passed or has none to give)."""


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


class Outcome(BaseModel):
    """The verdict of one session."""

    model_config = ConfigDict(extra="forbid")

    success: bool
    reward: float
    criteria: list[CriterionResult] = Field(default_factory=list)
    turns: list[TurnResult] = Field(default_factory=list, exclude_if=_empty)
    """Per-turn verdicts, when the scenario's criteria are per turn (`Criteria.per_turn`)."""
    not_judged: str | None = Field(default=None, exclude_if=_unset)
    """Why the session could not be judged (no criterion could be evaluated on its domain),
    or None when it was. A session that was not judged is neither a success nor a failure:
    it is excluded from accuracy and pass^k and counted apart, with this reason; `success`
    is then False and means nothing."""

    @property
    def judged(self) -> bool:
        """True when the session has a verdict (see `not_judged`)."""
        return self.not_judged is None

    @property
    def unevaluated(self) -> list[str]:
        """Names of the criteria that could not be evaluated (`passed` None), e.g. a
        natural-language assertion when no judge model was given."""
        return [c.name for c in self.criteria if c.passed is None]

    @property
    def evaluated_success(self) -> bool:
        """True when no evaluated criterion failed: the verdict over the criteria that could
        be checked (what accuracy "over evaluated criteria" counts)."""
        return self.judged and all(c.passed is not False for c in self.criteria)

    def criterion(self, name: str) -> CriterionResult | None:
        """The result of criterion `name`, if it was judged."""
        return next((c for c in self.criteria if c.name == name), None)
