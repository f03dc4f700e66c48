"""BFCL single-call suites: scenarios, no-op domains with JSON-Schema tools, session verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import sessionproof.suites.bfcl as bfcl
from sessionproof.errors import ConfigError, UnknownSuiteError, UnknownToolError
from sessionproof.records import Scenario, ToolCall, UserSpec
from sessionproof.suites.bfcl._internal import (
    SUITE_CATEGORIES,
    bfcl_domain,
    evaluate_bfcl,
    load_bfcl_suite,
    oracle_arguments,
    safe_tool_names,
    to_json_schema,
)
from sessionproof.suites.bfcl._internal import make_bfcl_suite as bfcl_suite

DATA = Path(bfcl.__file__).parent / "data"
VERDICTS = Path(__file__).parents[1] / "fixtures" / "bfcl" / "bfcl_ast_checker_verdicts.jsonl"
SUITES = {cat: load_bfcl_suite(cat) for cat in SUITE_CATEGORIES}
BFCL_ONLY_TYPES = {"dict", "float", "tuple", "any"}


def _gold_calls(scenario: Scenario) -> list[ToolCall]:
    return [
        ToolCall(id=f"c{i}", name=a.tool, arguments=dict(a.args))
        for i, a in enumerate(scenario.criteria.gold_actions)
    ]


def _types(schema: object) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        if isinstance(schema.get("type"), str):
            found.add(schema["type"])
        for value in schema.values():
            found |= _types(value)
    return found


@pytest.mark.parametrize("category", SUITE_CATEGORIES)
def test_suite_has_one_scenario_per_question_with_its_tools(category: str) -> None:
    lines = [json.loads(x) for x in (DATA / f"BFCL_v4_{category}.json").read_text().splitlines()]
    scenarios = SUITES[category]
    assert [s.id for s in scenarios] == [q["id"] for q in lines]
    for scenario, question in zip(scenarios, lines, strict=True):
        assert scenario.user.turns == [question["question"][0][-1]["content"]]
        tools = bfcl_domain(scenario).tools()
        names = scenario.metadata["bfcl"]["tool_names"]
        assert [names[t.name] for t in tools] == [f["name"] for f in question["function"]]
        for tool in tools:
            assert "." not in tool.name and len(tool.name) <= 64
            jsonschema.Draft202012Validator.check_schema(tool.parameters)
            assert tool.parameters["type"] == "object"
            assert not _types(tool.parameters["properties"]) & BFCL_ONLY_TYPES


def test_schema_conversion_maps_bfcl_types() -> None:
    converted = to_json_schema(
        {
            "type": "dict",
            "properties": {
                "x": {"type": "float", "description": "d", "optional": True},
                "t": {"type": "tuple", "items": {"type": "integer"}},
                "a": {"type": "any"},
                "m": {"type": "dict", "properties": {"k": {"type": "string"}}, "required": ["k"]},
            },
            "required": ["x"],
        }
    )
    props = converted["properties"]
    assert converted["type"] == "object" and converted["required"] == ["x"]
    assert props["x"] == {"type": "number", "description": "d"}
    assert props["t"] == {"type": "array", "items": {"type": "integer"}}
    assert props["a"] == {}
    assert props["m"]["type"] == "object" and props["m"]["required"] == ["k"]


def test_safe_names_are_unique_and_reversible() -> None:
    mapping = safe_tool_names(["math.factorial", "math_factorial", "a" * 70, "x y"])
    assert list(mapping.values()) == ["math.factorial", "math_factorial", "a" * 70, "x y"]
    assert len(set(mapping)) == 4
    assert all(len(n) <= 64 and "." not in n and " " not in n for n in mapping)


def _oracle_full_failures() -> set[str]:
    failed = set()
    with VERDICTS.open() as handle:
        for line in handle:
            row = json.loads(line)
            if row["variant"] == "oracle_full" and not row["bfcl_valid"]:
                failed.add(row["id"])
    return failed


def test_gold_calls_pass_and_leave_out_arguments_the_function_does_not_take() -> None:
    failed = {
        s.id
        for cat in SUITE_CATEGORIES
        for s in SUITES[cat]
        if not evaluate_bfcl(s, _gold_calls(s)).success
    }
    assert failed == set()
    # Where BFCL's checker refuses its own full oracle (every first value passed), the
    # possible answer names an argument the function does not take, with "" (may be
    # omitted) among its values: the reference call leaves it out, as BFCL accepts.
    assert _oracle_full_failures() == {"parallel_multiple_12", "parallel_multiple_26"}
    by_id = {s.id: s for s in SUITES["parallel_multiple"]}
    gold = {
        sid: {a.tool: a.args for a in by_id[sid].criteria.gold_actions}
        for sid in ("parallel_multiple_12", "parallel_multiple_26")
    }
    assert gold["parallel_multiple_12"]["calculate_voltage_difference"] == {
        "electric_field": 5.0,
        "distance": 3.0,
        "charge": 0.0,  # declared: kept, with its first acceptable value
    }
    assert "type" not in gold["parallel_multiple_26"]["bank_calculate_balance"]


def test_an_undeclared_argument_is_kept_when_it_may_not_be_omitted() -> None:
    answer = {"a": [1], "ghost": [2], "maybe": ["", 3]}
    # Leaving `ghost` out would fail as surely as passing it: the reference keeps BFCL's
    # answer as it is, and the audit's oracle check says the question cannot be passed.
    assert oracle_arguments(answer, {"a"}) == {"a": 1, "ghost": 2}
    assert oracle_arguments(answer) == {"a": 1, "ghost": 2, "maybe": 3}


def test_gold_calls_fit_the_converted_json_schemas() -> None:
    checked = violations = 0
    for cat in SUITE_CATEGORIES:
        for scenario in SUITES[cat]:
            tools = {t.name: t for t in bfcl_domain(scenario).tools()}
            for action in scenario.criteria.gold_actions:
                checked += 1
                validator = jsonschema.Draft202012Validator(tools[action.tool].parameters)
                violations += not validator.is_valid(action.args)
    # A handful of upstream labels break their own schema (a bool for a string...).
    assert checked > 1500 and violations / checked < 0.01


def test_session_verdicts_for_wrong_extra_and_no_calls() -> None:
    scenario = SUITES["parallel"][0]
    gold = _gold_calls(scenario)
    assert evaluate_bfcl(scenario, list(reversed(gold))).success
    dropped = evaluate_bfcl(scenario, gold[:-1])
    assert not dropped.success and dropped.reward == 0.0
    criterion = dropped.criterion("bfcl_ast")
    assert criterion is not None and "wrong_count" in criterion.evidence
    assert not evaluate_bfcl(scenario, []).success


def test_calls_under_the_original_dotted_name_are_also_understood() -> None:
    scenario = next(
        s for s in SUITES["simple_python"] if "." in s.metadata["bfcl"]["functions"][0]["name"]
    )
    names = scenario.metadata["bfcl"]["tool_names"]
    calls = [c.model_copy(update={"name": names[c.name]}) for c in _gold_calls(scenario)]
    assert evaluate_bfcl(scenario, calls).success


def test_irrelevance_succeeds_only_without_calls() -> None:
    scenario = SUITES["irrelevance"][0]
    assert evaluate_bfcl(scenario, []).success
    tool = bfcl_domain(scenario).tools()[0].name
    called = evaluate_bfcl(scenario, [ToolCall(id="c", name=tool, arguments={})])
    assert not called.success
    criterion = called.criterion("bfcl_ast")
    assert criterion is not None and "irrelevance_error:decoder_success" in criterion.evidence


def test_unparsable_arguments_are_a_decoding_failure() -> None:
    broken = ToolCall(id="c", name="x", arguments=None, raw_arguments="{", parse_error="bad")
    outcome = evaluate_bfcl(SUITES["simple_python"][0], [broken])
    criterion = outcome.criterion("bfcl_ast")
    assert not outcome.success and criterion is not None
    assert "ast_decoder:decoder_failed" in criterion.evidence
    # BFCL counts an undecodable reply as "no call", which is right for irrelevance.
    assert evaluate_bfcl(SUITES["irrelevance"][0], [broken]).success


def test_domain_acknowledges_known_tools_and_rejects_unknown() -> None:
    scenario = SUITES["multiple"][0]
    domain = bfcl_domain(scenario).create()
    tool = domain.tools()[0].name
    reply = domain.call(tool, {"anything": 1})
    assert reply["status"] == "ok"
    assert reply["function"] == scenario.metadata["bfcl"]["tool_names"][tool]
    with pytest.raises(UnknownToolError):
        domain.call("no_such_tool", {})
    assert domain.transfer_tools == frozenset()


def test_bad_names_and_foreign_scenarios_raise_named_errors() -> None:
    with pytest.raises(UnknownSuiteError):
        load_bfcl_suite("live_multiple")
    with pytest.raises(UnknownSuiteError):
        bfcl_suite("bfcl:nope")
    plain = Scenario(id="x", domain="demo", user=UserSpec(turns=["hi"]))
    with pytest.raises(ConfigError):
        bfcl_domain(plain)
    with pytest.raises(ConfigError):
        evaluate_bfcl(plain, [])


def test_suite_object_wires_domains_and_verdicts() -> None:
    suite = bfcl_suite("bfcl:parallel_multiple")
    scenario = suite.scenarios[5]
    spec = suite.domain_for(scenario)
    assert spec is suite.domain_for(scenario)
    assert {t.name for t in spec.tools()} == set(scenario.metadata["bfcl"]["tool_names"])


def test_engine_runs_a_bfcl_suite_end_to_end_with_the_oracle() -> None:
    import sessionproof

    result = sessionproof.run_suite("bfcl:parallel", "oracle", limit=4, concurrency=1)
    assert [s.scenario_id for s in result.sessions] == [f"parallel_{i}" for i in range(4)]
    assert all(s.success for s in result.sessions)
    for session in result.sessions:
        scenario = next(x for x in SUITES["parallel"] if x.id == session.scenario_id)
        assert len(session.tool_calls()) == len(scenario.criteria.gold_actions)
