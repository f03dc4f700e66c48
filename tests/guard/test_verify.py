"""The verification policies around a `Guard` in a team's own service (`VerifiedGuard`), and
their config: expressions compiled and refused at load, files read with one-line errors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import sessionproof
from sessionproof.conditions import parse_arm
from sessionproof.errors import ConfigError
from sessionproof.guard import Guard, VerifiedGuard, VerifyConfig
from sessionproof.guard._internal import Precondition, ReadBack
from sessionproof.guard._verify import read_arguments
from sessionproof.guard._verify_expr import Check
from sessionproof.runs import report


class Shop:
    """Plain Python tools over a dict, counting every call: the service a team guards."""

    def __init__(self, flaky: int = 0) -> None:
        self.orders: dict[str, dict[str, Any]] = {
            "O1": {"order_id": "O1", "status": "pending", "total": 10, "lines": [4, 6]},
        }
        self.flaky = flaky  # cancels that report ok and change nothing, before one works
        self.calls: list[str] = []
        self.garbled: set[int] = set()  # which calls (1-based, all tools) answer garbled

    def get_order(self, order_id: str) -> dict[str, Any]:
        self.calls.append("get_order")
        if len(self.calls) in self.garbled:  # a success-shaped body that is no order
            return {"status": "error", "message": "could not be completed"}
        return dict(self.orders[order_id])

    def cancel_order(self, order_id: str) -> dict[str, str]:
        self.calls.append("cancel_order")
        if self.flaky:
            self.flaky -= 1
        else:
            self.orders[order_id]["status"] = "cancelled"
        return {"result": "ok"}

    def guard(self) -> Guard:
        guard = Guard()
        guard.wrap(self.get_order)
        guard.wrap(self.cancel_order, write=True)
        return guard


def _call(verified: VerifiedGuard, tool: str, **args: Any) -> Any:
    return asyncio.run(verified.call(tool, args))


def test_read_back_without_expectation_compares_before_and_after() -> None:
    shop = Shop(flaky=5)
    config = VerifyConfig(read_back={"cancel_order": ReadBack(read="get_order")})
    seen: list[str] = []
    verified = VerifiedGuard(shop.guard(), config, on_decision=lambda d: seen.append(d.decision))
    result = _call(verified, "cancel_order", order_id="O1")
    assert not result.ok and result.error_class.value == "server_error"
    assert "shows no change" in result.output and "it was not re-sent" in result.output
    assert shop.calls == ["get_order", "cancel_order", "get_order"]  # sent once, not blindly again
    assert [d.decision.value for d in result.decisions] == seen == ["verify_failed"]


def test_a_read_back_that_is_no_read_of_the_entity_is_made_again() -> None:
    shop = Shop(flaky=5)
    shop.garbled = {3}  # the read right after the write answers an error-shaped body
    config = VerifyConfig(read_back={"cancel_order": ReadBack(read="get_order")})
    result = _call(VerifiedGuard(shop.guard(), config), "cancel_order", order_id="O1")
    assert shop.calls == ["get_order", "cancel_order", "get_order", "get_order"]
    assert not result.ok and "shows no change" in result.output  # not taken for a change
    twice = Shop(flaky=5)
    twice.garbled = {3, 4}
    result = _call(VerifiedGuard(twice.guard(), config), "cancel_order", order_id="O1")
    assert result.ok and result.decisions[0].detail.endswith("unverified")


def test_an_idempotent_write_is_re_sent_once_and_confirmed() -> None:
    shop = Shop(flaky=1)
    back = ReadBack(read="get_order", expect="output.status == 'cancelled'", idempotent=True)
    verified = VerifiedGuard(shop.guard(), VerifyConfig(read_back={"cancel_order": back}))
    result = _call(verified, "cancel_order", order_id="O1")
    assert result.ok and shop.orders["O1"]["status"] == "cancelled"
    assert shop.calls == ["cancel_order", "get_order", "cancel_order", "get_order"]
    assert [d.decision.value for d in result.decisions] == ["retry", "pass"]
    stuck = Shop(flaky=9)
    verified = VerifiedGuard(stuck.guard(), VerifyConfig(read_back={"cancel_order": back}))
    result = _call(verified, "cancel_order", order_id="O1")
    assert not result.ok and "re-sent once, it still did not" in result.output
    assert stuck.calls.count("cancel_order") == 2


def test_a_confirmed_write_and_a_passing_precondition_change_nothing() -> None:
    shop = Shop()
    config = VerifyConfig(
        read_back={"cancel_order": ReadBack(read="get_order")},
        preconditions={
            "cancel_order": Precondition(read="get_order", require="output.status == 'pending'")
        },
    )
    verified = VerifiedGuard(shop.guard(), config)
    result = _call(verified, "cancel_order", order_id="O1")
    assert result.ok and result.output == '{"result":"ok"}'
    assert [d.decision.value for d in result.decisions] == ["pass"]
    again = _call(verified, "cancel_order", order_id="O1")  # now cancelled: refused
    assert not again.ok and "was not sent" in again.output
    assert shop.calls.count("cancel_order") == 1


def test_invariants_accept_a_python_callable() -> None:
    shop = Shop()
    shop.orders["O1"]["total"] = 11

    def adds_up(output: Any, args: Any) -> bool:
        return bool(output["total"] == sum(output["lines"]))

    verified = VerifiedGuard(shop.guard(), VerifyConfig(invariants={"get_order": [adds_up]}))
    result = _call(verified, "get_order", order_id="O1")
    assert not result.ok and "adds_up" in result.output
    shop.orders["O1"]["total"] = 10
    assert _call(verified, "get_order", order_id="O1").ok


def test_duplicates_by_whole_arguments_and_per_conversation() -> None:
    shop = Shop()
    config = VerifyConfig(idempotency={"cancel_order": "*"})
    guard = shop.guard()
    verified = VerifiedGuard(guard, config)
    assert _call(verified, "cancel_order", order_id="O1").ok
    second = _call(verified, "cancel_order", order_id="O1")
    assert second.ok and second.output.startswith("Already applied")
    assert second.decision.value == "duplicate_blocked"
    assert shop.calls == ["cancel_order"]
    assert _call(VerifiedGuard(guard, config), "cancel_order", order_id="O1").ok
    assert shop.calls == ["cancel_order", "cancel_order"]  # another conversation


@pytest.mark.parametrize(
    ("text", "output", "holds"),
    [
        ("output.status == 'pending'", {"status": "pending"}, True),
        ("output.missing == 1", {"status": "x"}, False),
        ("all(i.qty > 0 for i in output.items)", {"items": [{"qty": 1}, {"qty": 2}]}, True),
        ("all(i.qty > 0 for i in output.items)", {"items": [{"qty": 1}, {"qty": 0}]}, False),
        ("len(output.items) <= 2 and output.items[0].qty == 1", {"items": [{"qty": 1}]}, True),
        (
            "output.total == sum(i.p for i in output.items if i.p)",
            {"total": 3, "items": [{"p": 1}, {"p": 2}, {"p": None}]},
            True,
        ),
        ("1 / 0 > 1", {}, False),
        ("output.a if output.b else not output.a", {"a": True, "b": False}, False),
    ],
)
def test_expressions(text: str, output: Any, holds: bool) -> None:
    assert Check(text)(output, {}) is holds


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("__import__('os').system('true')", "only"),
        ("open('/etc/passwd')", "only"),
        ("output.__class__", "private attribute"),
        ("(lambda: 1)", "Lambda is not allowed"),
        ("[x for x in output]", "ListComp is not allowed"),
        ("output.a ==", "not an expression"),
    ],
)
def test_expressions_outside_the_subset_are_refused_at_load(text: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        VerifyConfig(invariants={"get_order": [text]})


def test_a_config_file_is_read_or_refused_in_one_line(tmp_path: Path) -> None:
    good = tmp_path / "v.yaml"
    good.write_text("read_back:\n  cancel_order: {read: get_order, idempotent: true}\n")
    config = VerifyConfig.load(good)
    assert config.read_back["cancel_order"].idempotent is True
    assert parse_arm(f"faults=3% verify={good}").verify == config
    bad = tmp_path / "bad.yaml"
    bad.write_text("read_back:\n  cancel_order: {reed: get_order}\n")
    with pytest.raises(ConfigError) as caught:
        VerifyConfig.load(bad)
    assert "read_back.cancel_order" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(ConfigError, match="verify config"):
        parse_arm(f"verify={tmp_path / 'nope.yaml'}")
    with pytest.raises(ConfigError, match="given twice"):
        parse_arm(f"verify={good} verify={good}")


def test_a_stored_run_is_reported_after_its_verify_file_is_gone(tmp_path: Path) -> None:
    policies = tmp_path / "v.yaml"
    policies.write_text("idempotency:\n  cancel_order: '*'\n")
    arm = f"verify={policies}"
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite("demo", "oracle", limit=1, arms=["baseline", arm], store=store)
    policies.unlink()
    page = report([done.run_id], tmp_path / "r.html", store)
    assert arm in page.read_text(encoding="utf-8")
    unread = parse_arm(arm, read_files=False)
    assert unread.verify is None and unread.verify_path == str(policies) and not unread.baseline
    with pytest.raises(ConfigError, match="verify config"):
        parse_arm(arm)  # a run under it would need the file


def test_read_arguments_come_from_the_mapping_the_schema_or_the_id_names() -> None:
    write = {"order_id": "O1", "orderId": "O2", "paid": "x", "reason": "r"}
    assert read_arguments({"id": "order_id"}, write, None) == {"id": "O1"}
    assert read_arguments({}, write, ["order_id", "reason"]) == {"order_id": "O1", "reason": "r"}
    assert read_arguments({}, write, None) == {"order_id": "O1", "orderId": "O2"}
