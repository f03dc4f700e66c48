"""Recipe: a judge of your own, adding a criterion to the generic verdict.

A `Suite` answers the engine's two questions: where a scenario runs (`domain_for`) and how a
finished session is judged (`evaluate`). A subclass that overrides `evaluate` keeps the
generic criteria (gold state, facts, forbidden calls) and adds its own; `run_suite` takes the
suite object like a suite name.
"""

from __future__ import annotations

from typing import Any

from sessionproof.domains import Domain
from sessionproof.records import CriterionResult, Outcome, Scenario, Session
from sessionproof.suites import Suite

THANKS = ("thank", "glad", "happy to help")


class PoliteSuite(Suite):
    """The generic verdict, and a `polite` criterion: some agent reply thanks the user."""

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """The generic outcome with the `polite` criterion added to it."""
        outcome = super().evaluate(scenario, session, final_domain)
        if not outcome.judged:
            return outcome  # a session nothing could judge stays unjudged, never a failure
        replies = [m.content or "" for m in session.messages() if m.role == "assistant"]
        polite = any(word in reply.lower() for reply in replies for word in THANKS)
        check = CriterionResult(
            name="polite",
            passed=polite,
            evidence="a reply thanks the user" if polite else "no reply thanks the user",
        )
        return outcome.model_copy(
            update={"criteria": [*outcome.criteria, check], "success": outcome.success and polite}
        )
