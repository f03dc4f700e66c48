"""`WildSuite`: the generated wild scenarios, judged task by task."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...domains import Domain
from ...records import CriterionResult, Outcome, Scenario, Session
from ...records._internal import TurnResult
from ...scoring import evaluate_session
from ...scoring._internal import Breakdowns
from .._suite import Suite
from ._breakdown import wild_breakdowns
from ._generate import wild_meta, wild_scenarios
from ._judge import TASK_CRITERION, judge_tasks

SUITE_NAME = "wild"


class WildSuite(Suite):
    """WildToolBench-style sessions over the demo domain: four tasks per session, each a user
    turn, each judged; the session succeeds when every task and every generic criterion
    passes. Each task's verdict is also its turn's (`Outcome.turns`), so both readings of a
    multi-turn session apply: from a gold prefix (`start_turn`) only that task is judged."""

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """The generic verdict plus one `task:N` criterion (and turn verdict) per judged
        task."""
        spec = self.domain_for(scenario)
        outcome = evaluate_session(scenario, session, final_domain, spec)
        meta = wild_meta(scenario)
        if meta is None:
            return outcome
        writes = frozenset(t.name for t in spec.tools() if t.write)
        tasks = judge_tasks(scenario, meta, session, writes)
        generic = outcome.criteria
        from_prefix = scenario.start_turn is not None
        if from_prefix:
            # The facts to state and the final statuses are the whole session's; from a gold
            # prefix the agent plays one task, so only the state replay and forbidden calls
            # (both over the prefix plus that task) still apply.
            generic = [c for c in generic if c.name in _PREFIX_CRITERIA]
        criteria = [*generic, *tasks]
        success = all(c.passed is True for c in criteria)
        return Outcome(
            success=success,
            reward=1.0 if success else 0.0,
            criteria=criteria,
            turns=[_turn_result(t, from_prefix) for t in tasks],
        )

    def breakdowns(self, sessions: Sequence[Session]) -> Breakdowns | None:
        """Task accuracy by position, type and intent; session accuracy by transitions; the
        optimal-path rate."""
        return wild_breakdowns(sessions, {s.id: s for s in self.scenarios})


_PREFIX_CRITERIA = frozenset({"db", "forbidden"})
"""The generic criteria that still hold for a session started from the gold prefix."""


def _turn_result(task: CriterionResult, gold_prefix: bool) -> TurnResult:
    # `task:N` is user turn N - 1.
    turn = int(task.name.removeprefix(TASK_CRITERION)) - 1
    return TurnResult(
        turn=turn, passed=task.passed, gold_prefix=gold_prefix, evidence=task.evidence
    )


def make_wild_suite(name: str = SUITE_NAME) -> WildSuite:
    """The `wild` suite (the registry's factory)."""
    return WildSuite(SUITE_NAME, wild_scenarios())
