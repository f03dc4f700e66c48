"""tau2's verdict on a banking session, and the judge `tau2-banking` that scoring finds.

As tau2-bench grades banking_knowledge: a session that did not end with the user or the
agent stopping (or a transfer) gets 0. Otherwise the task's reward basis decides:
- DB: the DB after the session equals the DB after the task's reference actions, both run
  on the task's fresh starting DB (the logged discoverable-tool calls are part of it); the
  customer's actions run on the customer's own tools, which share that DB;
- ACTION: each reference action is matched by a call of the session, the agent's or the
  customer's (same tool; same arguments, or only its `compare_args`).
The DB verdict is computed either way (reported as `db_match`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....domains import Domain, DomainSpec
from ....errors import ToolError
from ....records import CriterionResult, Outcome, Scenario, Session, ToolCall, ToolResult
from ..._judges import Judgement
from ..._replay import replayed_calls
from .._evaluate import STOPPED, _call_matches
from .._tau2task import Tau2Task

if TYPE_CHECKING:
    from ..._nl_judge import NLJudge

EVALUATOR = "tau2-banking"
"""`Criteria.evaluator` of a banking scenario."""


Call = tuple[str, str, dict[str, Any]]
"""(side: "assistant" or "user", tool, arguments) of one call to replay."""


def _run(domain: Domain[Any], calls: list[Call]) -> None:
    user = getattr(domain, "user_tools", None)
    for side, name, args in calls:
        try:
            if side == "user" and user is not None:
                user.invoke(name, args)
            else:
                domain.call(name, args)
        except (ToolError, TypeError, ValueError, KeyError):
            continue  # a failing call leaves the state as the tool left it, as in tau2


def _user_calls(session: Session) -> list[tuple[int, ToolCall]]:
    """(event index, call) of the customer's own calls that got an answer (dual control's
    `user_tool_call` events; a session recorded without them has none)."""
    answered = {
        e.payload.call_id
        for e in session.events
        if str(getattr(e.kind, "value", e.kind)) == "user_tool_result"
        and isinstance(e.payload, ToolResult)
        and not e.payload.injected
    }
    return [
        (i, e.payload)
        for i, e in enumerate(session.events)
        if str(getattr(e.kind, "value", e.kind)) == "user_tool_call"
        and isinstance(e.payload, ToolCall)
        and e.payload.id in answered
        and e.payload.arguments is not None
    ]


def session_calls(session: Session) -> list[Call]:
    """Both sides' calls that reached the tools, in the order they were made."""
    index = {
        e.payload.id: i for i, e in enumerate(session.events) if isinstance(e.payload, ToolCall)
    }
    agent = [(index.get(c.id, 0), "assistant", c) for c in replayed_calls(session)]
    user = [(i, "user", c) for i, c in _user_calls(session)]
    ordered = sorted(agent + user, key=lambda item: item[0])
    return [(side, c.name, dict(c.arguments or {})) for _, side, c in ordered]


def judge_banking(
    scenario: Scenario, session: Session, final_domain: Domain[Any] | None, spec: DomainSpec
) -> Judgement:
    """The verdict on one session (`final_domain` None: replayed from its recorded calls)."""
    task = Tau2Task.model_validate(scenario.metadata["tau2_task"])
    ended = session.metadata.get("tau2_termination") or session.termination.value
    if ended not in STOPPED:
        result = CriterionResult(
            name="termination", passed=False, evidence=f"ended as {ended}: tau2 scores it 0"
        )
        return Judgement(outcome=Outcome(success=False, reward=0.0, criteria=[result]))
    crit = task.evaluation_criteria
    if crit is None or crit.actions is None:
        note = CriterionResult(name="db", passed=True, evidence="no actions to replay")
        return Judgement(outcome=Outcome(success=True, reward=1.0, criteria=[note]), db_match=True)
    gold = spec.create()
    _run(gold, [(a.requestor, a.name, dict(a.arguments)) for a in crit.actions])
    if final_domain is None:
        final_domain = spec.create()
        _run(final_domain, session_calls(session))
    db_match = final_domain.state_hash() == gold.state_hash()
    results: list[CriterionResult] = []
    breakdown: dict[str, float] = {}
    if "DB" in crit.reward_basis:
        results.append(
            CriterionResult(
                name="db",
                passed=db_match,
                evidence="final state equals the gold state"
                if db_match
                else "final state differs from gold",
            )
        )
        breakdown["DB"] = 1.0 if db_match else 0.0
    if "ACTION" in crit.reward_basis:
        # tau2 matches the reference actions against both sides' calls.
        calls = [(c.name, c.arguments or {}) for c in session.tool_calls()]
        calls += [(c.name, c.arguments or {}) for _, c in _user_calls(session)]
        unmatched = [
            a.name
            for a in crit.actions
            if not any(_call_matches(a.name, a.arguments, a.compare_args, n, g) for n, g in calls)
        ]
        results.append(
            CriterionResult(
                name="action",
                passed=not unmatched,
                evidence=("not made: " + ", ".join(unmatched))
                if unmatched
                else "all gold calls made",
            )
        )
        breakdown["ACTION"] = 0.0 if unmatched else 1.0
    reward = 1.0
    for value in breakdown.values():
        reward *= value
    return Judgement(
        outcome=Outcome(success=reward == 1.0, reward=reward, criteria=results),
        db_match=db_match,
        breakdown=breakdown,
    )


def evaluate_banking(
    scenario: Scenario, session: Session, final_domain: Domain[Any], spec: DomainSpec
) -> Outcome:
    """The verdict on a live session, read from the domain it ended in."""
    return judge_banking(scenario, session, final_domain, spec).outcome


class BankingJudge:
    """tau2's reward for banking scenarios (`criteria.evaluator` `tau2-banking`)."""

    def judge_recorded(
        self,
        scenario: Scenario,
        session: Session,
        *,
        nl_judge: NLJudge | None = None,
        cache: Any = None,
    ) -> Judgement:
        """The verdict, the session's DB replayed from its recorded calls."""
        from ._suite import spec_for

        return judge_banking(scenario, session, None, spec_for(scenario))

    def evaluate(
        self,
        scenario: Scenario,
        session: Session,
        final_domain: Domain[Any],
        nl_judge: NLJudge | None = None,
    ) -> Outcome:
        """The verdict on a live session."""
        from ._suite import spec_for

        return evaluate_banking(scenario, session, final_domain, spec_for(scenario))

    def new_cache(self) -> Any:
        """Nothing is shared between sessions."""
        return None

    def domain_name(self, name: str) -> str:
        """The domain as the user names it."""
        return name


JUDGE = BankingJudge()
"""Registered as judge `tau2-banking`."""
