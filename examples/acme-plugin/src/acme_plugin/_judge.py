"""ACME's own verdict: the orders the session left in the shop are exactly the task's."""

from __future__ import annotations

from typing import Any

from sessionproof.domains import Domain, get_domain
from sessionproof.records import CriterionResult, Outcome, Scenario, Session
from sessionproof.suites import Judgement, NLJudge, replay, replayed_calls

CRITERION = "acme_orders"
"""The criterion this judge reports."""


class AcmeJudge:
    """Judges scenarios whose `criteria.evaluator` is `acme` (entry point
    `sessionproof.judges: acme`): a live run, `score` and `rerun` all ask it."""

    def evaluate(
        self,
        scenario: Scenario,
        session: Session,
        final_domain: Domain[Any],
        nl_judge: NLJudge | None = None,
    ) -> Outcome:
        """Pass when the shop's orders equal the scenario's `metadata["orders"]`."""
        wanted = sorted((o["gadget_id"], o["quantity"]) for o in scenario.metadata["orders"])
        placed = sorted((o.gadget_id, o.quantity) for o in final_domain.db.orders)
        passed = placed == wanted
        result = CriterionResult(
            name=CRITERION, passed=passed, evidence=f"orders placed {placed}, wanted {wanted}"
        )
        return Outcome(success=passed, reward=1.0 if passed else 0.0, criteria=[result])

    def judge_recorded(
        self,
        scenario: Scenario,
        session: Session,
        *,
        nl_judge: NLJudge | None = None,
        cache: Any = None,
    ) -> Judgement:
        """Replay the recorded calls into a fresh shop, then judge as a live run."""
        calls = ((c.name, c.arguments or {}) for c in replayed_calls(session))
        final, _ = replay(get_domain(scenario.domain), calls)
        return Judgement(outcome=self.evaluate(scenario, session, final, nl_judge))

    def new_cache(self) -> Any:
        """Nothing to share between sessions."""
        return None

    def domain_name(self, name: str) -> str:
        """ACME's domain is named as the user names it."""
        return name
