"""evaluate_tau2 component by component, on real tasks and real trajectories."""

from __future__ import annotations

import copy
from typing import Any

from sessionproof.domains import register_domain
from sessionproof.importers import import_file
from sessionproof.records import Scenario, Session, TerminationReason
from sessionproof.suites.tau2._internal import evaluate_tau2, judge_tau2
from sessionproof.suites.tau2.retail._internal import RetailTools, make_spec

from ._data import RETAIL_GPT


class AssertingRetailTools(RetailTools):
    """Retail tools plus one environment-assertion function (not a tool)."""

    def order_status_is(self, order_id: str, status: str) -> bool:
        return self.db.orders[order_id].status == status


def _task40() -> tuple[Scenario, Session]:
    result = import_file(RETAIL_GPT, "tau2", run_id="r")
    item = next(i for i in result.sessions if i.session.scenario_id == "40")
    assert item.scenario is not None
    return item.scenario, item.session


def _with(scenario: Scenario, **criteria: Any) -> Scenario:
    task = copy.deepcopy(scenario.metadata["tau2_task"])
    task["evaluation_criteria"].update(criteria)
    return scenario.model_copy(update={"metadata": {"tau2_task": task}})


def test_db_and_communicate_as_recorded() -> None:
    scenario, session = _task40()
    outcome = evaluate_tau2(scenario, session)
    assert outcome.success and outcome.reward == 1.0
    assert [c.name for c in outcome.criteria] == ["db", "communicate"]


def test_communicate_needs_every_fact() -> None:
    scenario, session = _task40()
    said = _with(scenario, communicate_info=["60", "mastercard"])
    assert evaluate_tau2(said, session).success
    unsaid = _with(scenario, communicate_info=["60", "amex"])
    outcome = evaluate_tau2(unsaid, session)
    assert outcome.reward == 0.0 and "amex" in outcome.criteria[1].evidence


def test_action_basis_matches_calls_by_tool_and_arguments() -> None:
    scenario, session = _task40()
    assert evaluate_tau2(_with(scenario, reward_basis=["ACTION"]), session).success
    actions = copy.deepcopy(scenario.metadata["tau2_task"]["evaluation_criteria"]["actions"])
    actions[-1]["arguments"]["payment_method_id"] = "credit_card_0000000"
    wrong = evaluate_tau2(_with(scenario, reward_basis=["ACTION"], actions=actions), session)
    assert not wrong.success and "modify_pending_order_payment" in wrong.criteria[0].evidence
    actions[-1]["compare_args"] = ["order_id"]
    assert evaluate_tau2(_with(scenario, reward_basis=["ACTION"], actions=actions), session).success


def test_env_assertions_run_on_the_final_state() -> None:
    register_domain(make_spec("retail-asserts", AssertingRetailTools))
    scenario, session = _task40()
    scenario = scenario.model_copy(update={"domain": "retail-asserts"})
    held = [
        {
            "env_type": "assistant",
            "func_name": "order_status_is",
            "arguments": {"order_id": "#W4923227", "status": "pending"},
        }
    ]
    assert evaluate_tau2(
        _with(scenario, reward_basis=["ENV_ASSERTION"], env_assertions=held), session
    ).success
    broken = [{**held[0], "assert_value": False}]
    outcome = evaluate_tau2(
        _with(scenario, reward_basis=["ENV_ASSERTION"], env_assertions=broken), session
    )
    assert not outcome.success and "order_status_is gave True" in outcome.criteria[0].evidence


def test_premature_termination_scores_zero_and_no_criteria_scores_one() -> None:
    scenario, session = _task40()
    cut = session.model_copy(update={"termination": TerminationReason.max_steps, "metadata": {}})
    judged = judge_tau2(scenario, cut)
    assert judged.outcome.reward == 0.0 and judged.db_match is None
    task = copy.deepcopy(scenario.metadata["tau2_task"])
    task["evaluation_criteria"] = None
    free = scenario.model_copy(update={"metadata": {"tau2_task": task}})
    assert evaluate_tau2(free, session).reward == 1.0


def test_nl_assertion_without_judge_is_not_evaluated_and_not_success() -> None:
    scenario, session = _task40()
    nl = _with(scenario, reward_basis=["DB", "NL_ASSERTION"], nl_assertions=["Agent is polite."])
    outcome = evaluate_tau2(nl, session)
    check = outcome.criterion("nl_assertion")
    assert check is not None and check.passed is None and check.evidence.startswith("not evaluated")
    assert outcome.success is False and outcome.reward == 1.0  # DB passed; NL unknown
