"""What generic scoring needs of a benchmark is typed on the criteria, not read from metadata.

`Action.compare_args`, `Criteria.call_rules` and `Criteria.evaluator` are set by the benchmark
packages when they build scenarios; generic code decides by them alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sessionproof.domains import get_domain
from sessionproof.errors import ConfigError, InputFileError
from sessionproof.importers import import_file
from sessionproof.records import Action, Criteria, Scenario, ToolCall, UserSpec
from sessionproof.rerun._internal import plan_reruns
from sessionproof.scoring import register_call_rules
from sessionproof.scoring._internal import call_rule_names, match_gold
from sessionproof.suites import Suite, load_suite, register_judge
from sessionproof.suites._internal import judge_named
from sessionproof.suites._judges import JUDGES
from sessionproof.suites.tau2._internal import (
    Tau2Task,
    TauBenchTask,
    scenario_from_task,
    scenario_from_taubench,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tau"
RETAIL = get_domain("retail").tools()
CANCEL = {"order_id": "#W1", "reason": "no longer needed"}


def _cancel(compare_args: list[str] | None) -> Scenario:
    action = Action(tool="cancel_pending_order", args=CANCEL, compare_args=compare_args)
    return Scenario(
        id="c",
        domain="retail",
        user=UserSpec(turns=["Cancel #W1."]),
        criteria=Criteria(gold_actions=[action]),
    )


def test_compare_args_is_a_typed_field_of_a_gold_action() -> None:
    call = ToolCall(id="x", name="cancel_pending_order", arguments={**CANCEL, "reason": "mistake"})
    # No tau2 task in the metadata: the gold action alone says what to compare.
    assert match_gold([call], _cancel(["order_id"]), RETAIL) == [0]
    assert match_gold([call], _cancel(None), RETAIL) == [-1]


def test_benchmark_packages_set_the_typed_fields() -> None:
    raw: dict[str, Any] = {
        "id": "t",
        "user_scenario": {"instructions": "Cancel my order #W1."},
        "evaluation_criteria": {
            "actions": [{"name": "cancel_pending_order", "arguments": CANCEL}],
            "reward_basis": ["DB"],
        },
    }
    raw["evaluation_criteria"]["actions"][0]["compare_args"] = ["order_id"]
    tau2 = scenario_from_task(Tau2Task.model_validate(raw), raw, "retail")
    assert tau2.criteria.evaluator == "tau2"
    assert [a.compare_args for a in tau2.criteria.gold_actions] == [["order_id"]]
    bench_raw = {"instruction": "cancel", "actions": [{"name": "x", "kwargs": {}}]}
    bench = scenario_from_taubench(TauBenchTask.model_validate(bench_raw), bench_raw, "b", "r")
    assert bench.criteria.evaluator == "tau-bench" and bench.criteria.call_rules is None
    question = load_suite("bfcl:simple_python").scenarios[0]
    assert (question.criteria.evaluator, question.criteria.call_rules) == ("bfcl", "bfcl")
    assert "bfcl" in call_rule_names()


def test_call_rules_are_named_by_the_criteria_not_by_the_metadata() -> None:
    suite = load_suite("bfcl:simple_python")
    question = next(s for s in suite.scenarios if s.id == "simple_python_7")
    tools = suite.domain_for(question).tools()
    tool = question.criteria.gold_actions[0].tool
    # "in" is one of BFCL's acceptable units; the oracle's gold action says "inches".
    call = ToolCall(id="a", name=tool, arguments={"radius": 4, "unit": "in"})
    assert match_gold([call], question, tools) == [0]
    plain = question.model_copy(
        update={"criteria": question.criteria.model_copy(update={"call_rules": None})}
    )
    assert "bfcl" in plain.metadata  # the BFCL data is still there, and no longer decides
    assert match_gold([call], plain, tools) == [-1]


def accept_any(scenario: Scenario) -> list[tuple[str, Any]]:
    """A rule set for the test below: every call to a gold tool fits."""
    return [(a.tool, lambda args: True) for a in scenario.criteria.gold_actions]


def test_a_registered_rule_set_judges_any_scenario_that_names_it() -> None:
    register_call_rules("test-accept-any", f"{__name__}:accept_any")
    scenario = _cancel(None)
    scenario.criteria.call_rules = "test-accept-any"
    call = ToolCall(id="x", name="cancel_pending_order", arguments={"order_id": "#W9"})
    assert match_gold([call], scenario, RETAIL) == [0]
    scenario.criteria.call_rules = "no-such-rules"
    with pytest.raises(ConfigError, match="no-such-rules"):
        match_gold([call], scenario, RETAIL)


def test_reruns_are_judged_by_the_typed_evaluator() -> None:
    result = import_file(next(FIXTURES.glob("*retail*.json")), "tau2", run_id="r")
    first = result.sessions[0]
    assert first.scenario is not None and first.scenario.criteria.evaluator == "tau2"
    generic = first.scenario.model_copy(
        update={"criteria": first.scenario.criteria.model_copy(update={"evaluator": None})}
    )
    assert "tau2_task" in generic.metadata
    result.sessions = [first, first.model_copy(update={"index": 99, "scenario": generic})]
    items, skipped = plan_reruns(result)
    assert not skipped
    assert [i.judged_by for i in items] == ["tau2", "criteria"]


def _scenario_file(tmp_path: Path, criteria: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(
        "- id: s\n  domain: demo\n  user: {turns: [hi]}\n  criteria:\n" + criteria,
        encoding="utf-8",
    )
    return path


def test_user_files_may_set_the_typed_fields_and_still_validate(tmp_path: Path) -> None:
    path = _scenario_file(
        tmp_path,
        "    evaluator: mine\n    call_rules: bfcl\n    gold_actions:\n"
        "      - {tool: cancel_order, args: {order_id: '1042'}, compare_args: [order_id]}\n",
    )
    # An evaluator must name an installed judge (issue 35: judges are looked up in the
    # registry, an unknown one is refused at load): "mine" is registered for this test.
    register_judge("mine", judge_named("tau2"))
    try:
        (scenario,) = load_suite(str(path)).scenarios
    finally:
        JUDGES.remove("mine")
    assert scenario.criteria.call_rules == "bfcl" and scenario.criteria.evaluator == "mine"
    assert scenario.criteria.gold_actions[0].compare_args == ["order_id"]
    assert Scenario.model_validate_json(scenario.model_dump_json()) == scenario


def test_unknown_call_rules_in_a_file_get_a_one_line_error(tmp_path: Path) -> None:
    path = _scenario_file(tmp_path, "    call_rules: bfc\n")
    with pytest.raises(InputFileError, match=r"criteria\.call_rules: .*'bfc'.*did you mean"):
        load_suite(str(path))
    extra = _scenario_file(tmp_path, "    call_ruls: bfcl\n")
    with pytest.raises(InputFileError, match="call_ruls"):
        load_suite(str(extra))


def test_unset_typed_fields_leave_dumps_and_hashes_as_they_were() -> None:
    scenario = _cancel(None)
    dumped = scenario.model_dump(mode="json")
    assert "compare_args" not in dumped["criteria"]["gold_actions"][0]
    assert not {"evaluator", "call_rules"} & set(dumped["criteria"])
    assert "compare_args" in _cancel(["order_id"]).model_dump()["criteria"]["gold_actions"][0]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tau2-airline", "bfcl:parallel"])
def test_benchmark_suite_hashes_leave_out_what_they_derive(name: str) -> None:
    # Runs of these suites stored before the typed fields existed must still resume: their
    # hash covers the scenarios as they were (the fields derive from the hashed metadata).
    suite = load_suite(name)
    assert any(s.criteria.evaluator for s in suite.scenarios)

    def legacy(s: Scenario) -> Scenario:
        criteria = s.criteria.model_copy(update={"evaluator": None, "call_rules": None})
        criteria.gold_actions = [
            a.model_copy(update={"compare_args": None}) for a in criteria.gold_actions
        ]
        return s.model_copy(update={"criteria": criteria})

    assert suite.content_hash() == Suite(name, [legacy(s) for s in suite.scenarios]).content_hash()
