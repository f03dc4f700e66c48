"""The built-in demo domain: generated schemas, the DB model, tool semantics, the suite."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import jsonschema
import orjson
import pytest
from pydantic import ValidationError

from sessionproof.domains import Domain, get_domain
from sessionproof.domains._internal import render_output
from sessionproof.domains.demo._internal import (
    DemoDB,
    DemoTools,
    initial_db,
    load_policy,
    load_scenarios,
    parse_db,
    parse_scenarios,
    spec,
)
from sessionproof.errors import InputFileError, ToolArgumentError, ToolError, UnknownToolError
from sessionproof.records import ErrorClass, Scenario

SCENARIOS = load_scenarios()
WRITE_TOOLS = {t.name for t in DemoTools.specs() if t.write}


def fresh() -> Domain[DemoDB]:
    domain: Domain[DemoDB] = spec().create()
    return domain


def db_json() -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(initial_db().model_dump_json())
    return data


def raises_class(fn: Callable[[], object], error_class: ErrorClass) -> str:
    with pytest.raises(ToolError) as info:
        fn()
    assert info.value.error_class == error_class, str(info.value)
    assert not isinstance(info.value, ToolArgumentError)
    return str(info.value)


NF, PR, VE = ErrorClass.not_found, ErrorClass.policy_refusal, ErrorClass.validation_error


def address(order_id: str, **changes: str) -> dict[str, Any]:
    base = {"line1": "1 A St", "city": "Reno", "state": "NV", "zip_code": "89501"}
    return {"order_id": order_id, **base, **changes}


def ret(order_id: str, *item_ids: str, refund_to: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"order_id": order_id, "item_ids": list(item_ids)}
    return args if refund_to is None else {**args, "refund_to": refund_to}


# -- schemas ---------------------------------------------------------------------------------


def test_every_tool_has_a_generated_schema_matching_its_signature() -> None:
    specs = {t.name: t for t in DemoTools.specs()}
    assert 6 <= len(specs) <= 10
    for name, tool_spec in specs.items():
        method = getattr(DemoTools, name)
        params = {p: v for p, v in inspect.signature(method).parameters.items() if p != "self"}
        required = {p for p, v in params.items() if v.default is inspect.Parameter.empty}
        assert set(tool_spec.parameters["properties"]) == set(params), name
        assert set(tool_spec.parameters.get("required", [])) == required, name
        assert tool_spec.parameters["additionalProperties"] is False
        jsonschema.Draft202012Validator.check_schema(tool_spec.parameters)
        for prop, schema in tool_spec.parameters["properties"].items():
            assert schema.get("description"), f"{name}.{prop} has no description from Args"
        assert tool_spec.description in (inspect.getdoc(method) or "")
        assert tool_spec.description and "Args:" not in tool_spec.description
        assert tool_spec.openai()["function"]["name"] == name


def test_write_flags_mark_exactly_the_tools_that_change_state() -> None:
    assert {"update_order_address", "cancel_order", "return_items", "create_ticket"} == WRITE_TOOLS
    readers = {t.name for t in DemoTools.specs()} - WRITE_TOOLS
    assert {"find_customer_by_email", "get_order", "transfer_to_human_agents"} <= readers


def test_enumerated_parameters_are_enums_in_the_schema() -> None:
    params = DemoTools.spec("cancel_order").parameters["properties"]
    assert set(params["reason"]["enum"]) == {"no_longer_needed", "ordered_by_mistake"}
    category = DemoTools.spec("create_ticket").parameters["properties"]["category"]
    assert "damaged_item" in category["enum"]


def test_registry_resolves_demo_and_transfer_tool_is_declared() -> None:
    resolved = get_domain("demo")
    domain = resolved.create()
    assert resolved.name == domain.name == "demo"
    assert "transfer_to_human_agents" in domain.transfer_tools
    assert [t.name for t in resolved.tools()] == [t.name for t in domain.tools()]


def test_policy_names_every_write_tool() -> None:
    policy = load_policy()
    assert fresh().policy == policy
    for name in [*WRITE_TOOLS, "transfer_to_human_agents", "find_customer_by_email"]:
        assert name in policy


# -- DB model and db.json ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [(), ("customers", "C01"), ("customers", "C01", "address"), ("orders", "1042", "items", 0)],
)
def test_db_model_rejects_extra_fields_at_every_level(path: tuple[Any, ...]) -> None:
    data = db_json()
    node: Any = data
    for key in path:
        node = node[key]
    node["surprise"] = 1
    with pytest.raises(ValidationError, match="surprise"):
        DemoDB.model_validate(data)
    with pytest.raises(InputFileError, match=r"db\.json: not a valid demo DB: .*surprise"):
        parse_db(orjson.dumps(data))


def test_broken_db_json_is_a_clear_input_error() -> None:
    with pytest.raises(InputFileError, match=r"mine.json: not valid JSON at line 2"):
        parse_db('{"today": "2025-03-14",\n  "customers": {', source="mine.json")
    with pytest.raises(InputFileError, match="customers: Field required"):
        parse_db(b'{"today": "2025-03-14", "products": {}, "orders": {}}')


def _broken(edit: Callable[[dict[str, Any]], None]) -> bytes:
    data = db_json()
    edit(data)
    return orjson.dumps(data)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["orders"]["1042"].update(total="1.00"), "order 1042: total"),
        (lambda d: d["orders"]["1042"].update(customer_id="C99"), "unknown customer"),
        (lambda d: d["orders"]["1042"].update(payment_method_id="cc_1881"), "not the customer"),
        (lambda d: d["orders"]["1043"].update(shipment=None), "shipped order needs a shipment"),
        (lambda d: d["orders"]["1042"]["items"][0].update(variant_id="V9999"), "unknown product"),
        (lambda d: d["orders"]["1042"]["items"][0].update(unit_price="59.001"), "two decimals"),
        (lambda d: d["customers"]["C02"].update(email="MAYA.OKAFOR@example.com"), "share an email"),
        (lambda d: d["tickets"]["5001"].update(order_id="1042"), "not the customer's"),
        (lambda d: d["products"]["P01"]["variants"][0].update(stock=-1), "greater than or equal"),
    ],
)
def test_inconsistent_db_is_rejected_with_the_reason(
    edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(InputFileError, match=message):
        parse_db(_broken(edit))


def test_amounts_always_carry_two_decimals() -> None:
    db = parse_db(_broken(lambda d: d["customers"]["C01"]["payment_methods"][1].update(balance=25)))
    out = orjson.loads(db.model_dump_json())
    assert out["customers"]["C01"]["payment_methods"][1]["balance"] == "25.00"


# -- state hash and isolation -----------------------------------------------------------------


def test_fresh_instances_hash_the_same_and_are_independent() -> None:
    first, second = fresh(), fresh()
    assert first.state_hash() == second.state_hash()
    first.call("cancel_order", {"order_id": "1042", "reason": "no_longer_needed"})
    assert first.state_hash() != second.state_hash()
    assert fresh().state_hash() == second.state_hash()
    assert initial_db().orders["1042"].status == "pending"


def test_a_subprocess_computes_the_same_hash() -> None:
    code = (
        "from sessionproof.domains.demo._internal import spec; print(spec().create().state_hash())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == fresh().state_hash()


def test_returned_records_are_copies_not_the_live_db() -> None:
    domain = fresh()
    before = domain.state_hash()
    order = domain.call("get_order", {"order_id": "1042"})
    order.status = "cancelled"
    order.items.clear()
    assert domain.state_hash() == before


# -- tool semantics ---------------------------------------------------------------------------


def test_cancel_restocks_and_refunds_the_total_to_the_original_payment() -> None:
    domain = fresh()
    order = domain.db.orders["1052"]

    def stock() -> dict[str, int]:
        return {
            v.id: v.stock
            for i in order.items
            for v in domain.db.products[i.product_id].variants
            if v.id == i.variant_id
        }

    before = stock()
    result = domain.call("cancel_order", {"order_id": "#1052", "reason": "no_longer_needed"})
    assert result.status == "cancelled" and result.cancel_reason == "no_longer_needed"
    (refund,) = result.refunds
    assert refund.amount == sum(i.unit_price * i.quantity for i in order.items)
    assert refund.payment_method_id == order.payment_method_id
    assert stock() == {i.variant_id: before[i.variant_id] + i.quantity for i in order.items}


def test_return_to_gift_card_credits_it_and_full_return_closes_the_order() -> None:
    domain = fresh()
    gift = domain.db.customers["C04"].payment_method("gift_c04")
    assert gift is not None and gift.balance is not None
    balance = gift.balance
    order = domain.db.orders["1034"]
    ids = [i.item_id for i in order.items]
    first = domain.call(
        "return_items", {"order_id": "1034", "item_ids": ids[:1], "refund_to": "gift_c04"}
    )
    assert gift.balance == balance + first.amount
    assert order.status == "delivered"
    second = domain.call("return_items", {"order_id": "1034", "item_ids": ids[1:]})
    assert second.payment_method_id == order.payment_method_id
    assert second.id != first.id
    assert domain.db.orders["1034"].status == "returned"
    assert first.amount + second.amount == order.total


def test_new_ticket_takes_the_next_number_and_duplicates_are_refused() -> None:
    domain = fresh()
    expected = str(max(int(t) for t in domain.db.tickets) + 1)
    args = {"customer_id": "C08", "category": "missing_package", "order_id": "1041"}
    ticket = domain.call("create_ticket", args)
    assert ticket.id == expected and ticket.opened_on == domain.db.today
    after = domain.state_hash()
    assert expected in raises_class(
        lambda: domain.call("create_ticket", args), ErrorClass.policy_refusal
    )
    assert domain.state_hash() == after


def test_address_update_normalises_spacing_and_state_case() -> None:
    domain = fresh()
    other = fresh()
    args = address("1053", line1="200 Beacon Street")
    domain.call("update_order_address", args)
    messy = {**args, "line1": " 200  Beacon Street ", "state": "nv", "line2": "  "}
    other.call("update_order_address", messy)
    assert domain.state_hash() == other.state_hash()


def test_transfer_does_not_change_state() -> None:
    domain = fresh()
    before = domain.state_hash()
    out = domain.call("transfer_to_human_agents", {"summary": "wants a person"})
    assert "transfer" in render_output(out).lower()
    assert domain.state_hash() == before


@pytest.mark.parametrize(
    ("tool", "args", "error_class"),
    [
        ("get_order", {"order_id": "9999"}, NF),
        ("get_customer", {"customer_id": "C99"}, NF),
        ("get_product", {"product_id": "P99"}, NF),
        ("find_customer_by_email", {"email": "nobody@example.com"}, NF),
        ("list_customer_orders", {"customer_id": "nobody"}, NF),
        ("cancel_order", {"order_id": "1043", "reason": "no_longer_needed"}, PR),
        ("cancel_order", {"order_id": "404", "reason": "no_longer_needed"}, NF),
        ("update_order_address", address("1043"), PR),
        ("update_order_address", address("1053", zip_code="8950"), VE),
        ("update_order_address", address("1053", state="Nev"), VE),
        ("update_order_address", address("1053", city=" "), VE),
        ("return_items", ret("1032", "1032-1"), PR),
        ("return_items", ret("1042", "1042-1"), PR),
        ("return_items", ret("1031", "1031-9"), VE),
        ("return_items", ret("1031"), VE),
        ("return_items", ret("1031", "1031-1", "1031-1"), VE),
        ("return_items", ret("1031", "1031-1", refund_to="cc_1881"), VE),
        ("return_items", ret("1049", "1049-1", refund_to="paypal_c10"), PR),
        ("create_ticket", {"customer_id": "C05", "category": "other", "order_id": "1047"}, PR),
        ("create_ticket", {"customer_id": "C05", "category": "other", "order_id": "404"}, NF),
        ("transfer_to_human_agents", {"summary": "   "}, VE),
    ],
)
def test_business_failures_are_classified_and_leave_state_alone(
    tool: str, args: dict[str, Any], error_class: ErrorClass
) -> None:
    domain = fresh()
    before = domain.state_hash()
    raises_class(lambda: domain.call(tool, args), error_class)
    assert domain.state_hash() == before


def test_second_cancel_and_second_return_are_refused() -> None:
    domain = fresh()
    domain.call("cancel_order", {"order_id": "1055", "reason": "ordered_by_mistake"})
    msg = raises_class(
        lambda: domain.call("cancel_order", {"order_id": "1055", "reason": "ordered_by_mistake"}),
        ErrorClass.policy_refusal,
    )
    assert "cancelled" in msg
    domain.call("return_items", {"order_id": "1031", "item_ids": ["1031-2"]})
    raises_class(
        lambda: domain.call("return_items", {"order_id": "1031", "item_ids": ["1031-2"]}),
        ErrorClass.policy_refusal,
    )


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_order", {}),
        ("get_order", {"order_id": "1042", "verbose": True}),
        ("get_order", {"order_id": ["1042"]}),
        ("cancel_order", {"order_id": "1042", "reason": "changed my mind"}),
        ("return_items", {"order_id": "1031", "item_ids": "1031-1"}),
        ("create_ticket", {"customer_id": "C01", "category": "refund"}),
    ],
)
def test_bad_arguments_raise_tool_argument_error(tool: str, args: dict[str, Any]) -> None:
    domain = fresh()
    before = domain.state_hash()
    with pytest.raises(ToolArgumentError, match=f"invalid arguments for {tool}"):
        domain.call(tool, args)
    assert domain.state_hash() == before


def test_unknown_tool_lists_the_real_ones() -> None:
    with pytest.raises(UnknownToolError, match="cancel_order"):
        fresh().call("delete_everything", {})


# -- the suite --------------------------------------------------------------------------------


def test_suite_size_ids_and_shape() -> None:
    assert 12 <= len(SCENARIOS) <= 16
    ids = [s.id for s in SCENARIOS]
    assert len(set(ids)) == len(ids)
    for s in SCENARIOS:
        assert isinstance(s, Scenario) and s.domain == "demo"
        assert s.description and s.tags
        assert s.user.turns is not None and 2 <= len(s.user.turns) <= 5
    tags = {t for s in SCENARIOS for t in s.tags}
    assert {"parallel", "implicit-intent", "instruction-transition", "policy", "info"} <= tags


def test_load_scenarios_returns_independent_copies() -> None:
    mine = load_scenarios()
    mine[0].criteria.gold_actions.clear()
    assert load_scenarios()[0].criteria.gold_actions


def _replay(scenario: Scenario) -> tuple[Domain[DemoDB], list[str]]:
    domain = fresh()
    outputs = [
        render_output(domain.call(a.tool, dict(a.args))) for a in scenario.criteria.gold_actions
    ]
    return domain, outputs


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_gold_actions_replay_and_back_the_criteria(scenario: Scenario) -> None:
    initial = fresh().state_hash()
    domain, outputs = _replay(scenario)
    writes = any(a.tool in WRITE_TOOLS for a in scenario.criteria.gold_actions)
    assert (domain.state_hash() != initial) == writes
    assert ("write" in scenario.tags) == writes
    said = "\n".join(outputs).lower().replace(",", "")
    for fact in scenario.criteria.communicate:
        assert fact.lower().replace(",", "") in said, f"{fact!r} is in no gold tool output"
    for action in scenario.criteria.gold_actions:
        for bad in scenario.criteria.forbidden:
            hit = action.tool == bad.tool and all(
                action.args.get(k) == v for k, v in (bad.args or {}).items()
            )
            assert not hit, f"gold action {action.tool} is forbidden by the same scenario"
    assert _replay(scenario)[0].state_hash() == domain.state_hash()


def test_parallel_scenarios_have_two_independent_calls_in_one_turn() -> None:
    parallel = [s for s in SCENARIOS if "parallel" in s.tags]
    assert parallel, "no demo scenario is tagged parallel"
    for s in parallel:
        by_turn: dict[int, list[str]] = {}
        for a in s.criteria.gold_actions:
            if a.tool != "find_customer_by_email":
                by_turn.setdefault(a.turn or 0, []).append(a.tool)
        assert any(len(calls) >= 2 for calls in by_turn.values()), s.id


# -- scenario file broken input -----------------------------------------------------------------

GOOD = """
- id: x
  domain: demo
  user: {turns: ["hi", "bye"]}
  criteria:
    gold_actions: [{tool: get_order, args: {order_id: "1042"}, turn: 1}]
"""


def test_a_minimal_scenario_file_parses() -> None:
    (scenario,) = parse_scenarios(GOOD)
    assert scenario.criteria.gold_actions[0].turn == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- id: x\n  domain: [demo\n", r"mine.yaml: not valid YAML at line \d+"),
        ("id: x\ndomain: demo\n", "expected a non-empty YAML list"),
        ("[]", "expected a non-empty YAML list"),
        (GOOD.replace("get_order", "get_orders"), "unknown tool 'get_orders'"),
        (GOOD.replace('order_id: "1042"', "order_id: 1042"), "arguments for get_order do not fit"),
        (GOOD.replace('order_id: "1042"', 'order: "1042"'), "arguments for get_order do not fit"),
        (GOOD.replace("turn: 1", "turn: 2"), "turn 2 is outside the 2 user turns"),
        (GOOD.replace("domain: demo", "domain: retail"), "domain is 'retail'"),
        (GOOD.replace("domain: demo", "domain: demo\n  colour: red"), r"scenario #0 \(x\): colour"),
        (GOOD + GOOD, "duplicate scenario id 'x'"),
        (
            GOOD + "    forbidden: [{tool: cancel_order, args: {order: '1'}}]\n",
            "no parameter order",
        ),
        (GOOD.replace('user: {turns: ["hi", "bye"]}', "user: {}"), "turns"),
    ],
)
def test_broken_scenario_files_are_clear_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputFileError, match=message):
        parse_scenarios(text, source="mine.yaml")


def test_amount_type_rejects_non_finite_values() -> None:
    bad = _broken(lambda d: d["orders"]["1042"]["items"][0].update(unit_price="NaN"))
    with pytest.raises(InputFileError, match="unit_price"):
        parse_db(bad)
