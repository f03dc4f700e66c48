"""`WildSuite`: the generated wild scenarios, judged task by task."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...domains import Domain
from ...records import Outcome, Scenario, Session
from ...scoring import Breakdowns, evaluate_session
from .._suite import Suite
from ._breakdown import wild_breakdowns
from ._generate import wild_meta, wild_scenarios
from ._judge import judge_tasks

SUITE_NAME = "wild"


class WildSuite(Suite):
    """WildToolBench-style sessions over the demo domain: four tasks per session, each a user
    turn, each judged; the session succeeds when every task and every generic criterion
    passes."""

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """The generic verdict plus one `task:N` criterion per task."""
        spec = self.domain_for(scenario)
        outcome = evaluate_session(scenario, session, final_domain, spec)
        meta = wild_meta(scenario)
        if meta is None:
            return outcome
        writes = frozenset(t.name for t in spec.tools() if t.write)
        tasks = judge_tasks(scenario, meta, session, writes)
        criteria = [*outcome.criteria, *tasks]
        success = all(c.passed is True for c in criteria)
        return Outcome(success=success, reward=1.0 if success else 0.0, criteria=criteria)

    def breakdowns(self, sessions: Sequence[Session]) -> Breakdowns | None:
        """Task accuracy by position, type and intent; session accuracy by transitions; the
        optimal-path rate."""
        return wild_breakdowns(sessions, {s.id: s for s in self.scenarios})


def make_wild_suite(name: str = SUITE_NAME) -> WildSuite:
    """The `wild` suite (the registry's factory)."""
    return WildSuite(SUITE_NAME, wild_scenarios())
