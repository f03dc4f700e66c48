"""Single-call accuracy and call validity inside multi-turn sessions."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from agents_for_metrics import calls, demo, play, say

from sessionproof.agents import OracleAgent, ScriptedAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.domains import get_domain
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.importers import import_file
from sessionproof.records import Message, Scenario, TerminationReason, ToolCall
from sessionproof.scoring._calls import comparable_args, json_normal, same_value
from sessionproof.scoring._internal import call_accuracy, check_calls, match_gold
from sessionproof.suites import load_suite
from sessionproof.suites.tau2._internal import Tau2Task, scenario_from_task

DEMO = get_domain("demo")
TAU = Path(__file__).resolve().parents[1] / "fixtures" / "tau"


def demo_domain(_: Scenario) -> Any:
    return DEMO


async def test_oracle_is_exact_and_valid_on_the_demo_suite() -> None:
    scenarios = load_scenarios()
    sessions = [await play(s, OracleAgent()) for s in scenarios]
    acc = call_accuracy(sessions, {s.id: s for s in scenarios}, demo_domain)
    gold = sum(len(s.criteria.gold_actions) for s in scenarios)
    assert acc.sessions == len(scenarios)
    assert acc.calls == gold == acc.gold_actions == acc.gold_tool_calls
    assert (acc.single_call_accuracy, acc.gold_recall, acc.call_validity_rate) == (1.0, 1.0, 1.0)
    writes = {t.name for t in DEMO.tools() if t.write}
    gold_writes = sum(a.tool in writes for s in scenarios for a in s.criteria.gold_actions)
    assert acc.gold_tool_write_calls == acc.matched_write_calls == gold_writes
    assert acc.invalid_by_reason == {}


def test_json_values_compare_like_bfcl() -> None:
    assert same_value(2, 2.0) and same_value({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not same_value(True, 1) and not same_value(0, False)
    assert not same_value("1", 1) and not same_value([1, 2], [2, 1])
    assert not same_value({"a": 1}, {"a": 1, "b": None})
    assert json_normal({"d": dt.date(2025, 1, 20), "t": (1, 2)}) == {"d": "2025-01-20", "t": [1, 2]}


def test_defaults_may_be_left_out_on_either_side() -> None:
    spec = next(t for t in DEMO.tools() if t.name == "update_order_address")
    base = {"order_id": "1036", "line1": "18 Quarry Road", "city": "B", "state": "VT"}
    with_default = {**base, "zip_code": "05401", "line2": ""}
    assert comparable_args(with_default, spec) == {**base, "zip_code": "05401"}
    assert "line2" in comparable_args({**with_default, "line2": "Apt 1"}, spec)


def test_each_expected_call_is_used_once() -> None:
    scenario = demo("moved-update-pending-orders")
    target = scenario.criteria.gold_actions[2]
    same = ToolCall(id="a", name=target.tool, arguments={**target.args, "line2": ""})
    again = same.model_copy(update={"id": "b"})
    other = ToolCall(id="c", name=target.tool, arguments={**target.args, "order_id": "1037"})
    assert match_gold([same, again, other], scenario, DEMO.tools()) == [2, -1, 3]


async def test_same_effect_other_spelling_is_valid_but_not_matched() -> None:
    scenario = demo("ship-to-office-address")
    gold = dict(scenario.criteria.gold_actions[-1].args)
    spaced = {**gold, "line1": " 1 Civic  Center Plaza"}
    agent = [
        calls(("find_customer_by_email", {"email": "fatima.haddad@example.net"})),
        calls(("update_order_address", spaced), prefix="u"),
        say("1 Civic Center Plaza"),
    ]
    session = await play(scenario, agent)
    checks = check_calls(session, scenario, DEMO)
    assert [c.valid for c in checks] == [True, True]
    assert [c.matched_gold for c in checks] == [0, None]
    assert [c.write for c in checks] == [False, True]


async def test_invalid_calls_are_classified() -> None:
    scenario = demo("cancel-pending-by-mistake")
    broken = ToolCall(id="p", name="cancel_order", raw_arguments="{", parse_error="invalid JSON")
    agent = [
        calls(("cancel_order", {"order_id": "1055", "reason": "because"})),
        calls(("cancel_order", {"reason": "ordered_by_mistake"}), prefix="m"),
        calls(("refund_everything", {}), prefix="u"),
        Message.assistant(None, [broken]),
        calls(("cancel_order", {"order_id": "1055", "reason": "ordered_by_mistake"}), prefix="k"),
        say("Done: 38.40"),
    ]
    session = await play(scenario, agent)
    checks = check_calls(session, scenario, DEMO)
    reasons = [(c.invalid_reason or "").split(":")[0] for c in checks]
    assert reasons == [
        "schema_violation",
        "schema_violation",
        "unknown_tool",
        "unparsed_arguments",
        "",
    ]
    assert "because" in str(checks[0].invalid_reason)
    assert "order_id" in str(checks[1].invalid_reason)
    acc = call_accuracy([session], {scenario.id: scenario}, demo_domain)
    assert acc.invalid_by_reason == {
        "schema_violation": 2,
        "unknown_tool": 1,
        "unparsed_arguments": 1,
    }
    assert (acc.valid, acc.validity_judged) == (1, 5)
    # Four calls target cancel_order, a gold tool; only the last is the gold call.
    assert (acc.matched_calls, acc.gold_tool_calls) == (1, 4)
    assert acc.single_call_accuracy == pytest.approx(0.25)
    assert (acc.gold_actions_matched, acc.gold_actions) == (1, 2)


async def test_bfcl_questions_use_bfcl_rules() -> None:
    suite = load_suite("bfcl:simple_python")
    scenario = next(s for s in suite.scenarios if s.id == "simple_python_7")
    spec = suite.domain_for(scenario)
    tool = scenario.criteria.gold_actions[0].tool
    agent = ScriptedAgent(
        [
            calls((tool, {"radius": 4, "unit": "in"}), prefix="a"),
            calls((tool, {"radius": 4.0, "unit": "Inches"}), prefix="b"),
            calls((tool, {"radius": 5, "unit": "in"}), prefix="c"),
        ]
    )
    session = await play(scenario, agent, suite=suite)
    checks = check_calls(session, scenario, spec)
    # "in" is an acceptable unit, and BFCL normalises case: either call fits the one
    # expected call, which only one of them may use; radius 5 fits nothing.
    assert [c.matched_gold is not None for c in checks] == [True, False, False]
    assert all(c.targets_gold_tool and c.valid for c in checks)
    acc = call_accuracy([session], {scenario.id: scenario}, suite.domain_for)
    assert (acc.matched_calls, acc.gold_tool_calls, acc.gold_actions) == (1, 3, 1)
    assert acc.gold_recall == 1.0


def _tau2_scenario(compare_args: list[str] | None) -> Scenario:
    action: dict[str, Any] = {
        "action_id": "a0",
        "name": "cancel_pending_order",
        "arguments": {"order_id": "#W1", "reason": "no longer needed"},
    }
    if compare_args is not None:
        action["compare_args"] = compare_args
    raw = {
        "id": "t",
        "user_scenario": {"instructions": "Cancel my order #W1."},
        "evaluation_criteria": {"actions": [action], "reward_basis": ["DB"]},
    }
    return scenario_from_task(Tau2Task.model_validate(raw), raw, "retail")


def test_tau2_compare_args_limit_what_is_compared() -> None:
    tools = get_domain("retail").tools()
    call = ToolCall(
        id="x", name="cancel_pending_order", arguments={"order_id": "#W1", "reason": "mistake"}
    )
    assert match_gold([call], _tau2_scenario(["order_id"]), tools) == [0]
    assert match_gold([call], _tau2_scenario(None), tools) == [-1]


async def test_drifted_calls_are_counted_apart() -> None:
    scenario = demo("cancel-pending-by-mistake")
    hooks = hooks_for(parse_arm("drift=rename_param"), 3, prefer_tools=["cancel_order"])
    session = await play(scenario, OracleAgent(), hooks=hooks)
    checks = check_calls(session, scenario, DEMO)
    drifted = [c for c in checks if c.valid is None]
    assert [c.tool for c in drifted] == ["cancel_order"]
    assert not drifted[0].targets_gold_tool
    acc = call_accuracy([session], {scenario.id: scenario}, demo_domain)
    assert (acc.drift_unjudged, acc.validity_judged) == (1, acc.calls - 1)


async def test_infra_and_unknown_scenarios_are_left_out() -> None:
    scenario = demo("cancel-pending-by-mistake")
    good = await play(scenario, OracleAgent())
    infra = good.model_copy(update={"termination": TerminationReason.infra_error})
    stray = good.model_copy(update={"scenario_id": "no-such-scenario"})
    acc = call_accuracy([good, infra, stray], {scenario.id: scenario}, demo_domain)
    assert acc.sessions == 1 and acc.calls == len(good.tool_calls())
    empty = call_accuracy([], {}, demo_domain)
    assert empty.single_call_accuracy is None and empty.call_validity_rate is None


@pytest.mark.slow
def test_tau2_trajectories_agree_with_tau2_action_checks() -> None:
    compared = total = 0
    for path in sorted(TAU.glob("*.json")):
        result = import_file(path, "tau2", run_id="t")
        assert result.domain is not None
        spec = get_domain(result.domain)
        for imported in result.sessions:
            total += 1
            scenario, reported = imported.scenario, imported.reported
            assert scenario is not None and reported is not None and reported.detail is not None
            checks = check_calls(imported.session, scenario, spec)
            assert all(c.valid for c in checks), imported.session.session_id
            if reported.detail.get("action_checks") is None:
                continue  # tau2 checked no actions for this task
            ours = {c.matched_gold for c in checks if c.matched_gold is not None}
            theirs = {
                i for i, a in enumerate(reported.detail["action_checks"]) if a["action_match"]
            }
            gold = scenario.criteria.gold_actions
            assert ours <= theirs
            # tau2 lets one call satisfy several identical expected calls; here each expected
            # call needs its own call. Every difference must be such a repeat.
            for i in theirs - ours:
                assert any(j in ours and gold[j] == gold[i] for j in range(len(gold))), i
            compared += 1
    assert total == 110 and compared > total * 0.9
