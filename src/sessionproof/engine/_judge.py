"""What the engine needs from a suite (a small protocol), and the termination rule.

The engine runs scenarios and asks a judge for two things: the domain a scenario runs in, and
the verdict on a finished session. `suites.Suite` provides both structurally; the engine never
imports suites or scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..domains import Domain, DomainSpec
from ..records import CriterionResult, Outcome, Scenario, Session, TerminationReason


class Judge(Protocol):
    """Where a scenario runs, and how its finished session is judged."""

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The domain a scenario runs in."""
        ...

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """Judge one finished session from its trace and the domain's final state."""
        ...


class JudgedSuite(Judge, Protocol):
    """Scenarios to run, and their judge (what `execute_run` consumes)."""

    @property
    def scenarios(self) -> Sequence[Scenario]:
        """The scenarios, in run order."""
        ...


PREMATURE = frozenset({TerminationReason.max_steps, TerminationReason.too_many_errors})
"""Terminations that cut a session off: such a session fails whatever its state."""


def with_termination(outcome: Outcome, termination: TerminationReason) -> Outcome:
    """A session cut off by the step or error limit fails, whatever its state (as in tau2)."""
    premature = termination in PREMATURE
    check = CriterionResult(
        name="termination",
        passed=not premature,
        evidence=f"ended by {termination.value}",
    )
    return Outcome(
        success=outcome.success and not premature,
        reward=0.0 if premature else outcome.reward,
        criteria=[check, *outcome.criteria],
        turns=outcome.turns,
        not_judged=outcome.not_judged,
    )
