"""The tau domains against tau2-bench's own recorded tool replies, and their state hashing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sessionproof.domains import get_domain
from sessionproof.domains._internal import state_hash
from sessionproof.errors import ToolError
from sessionproof.suites.tau2._tau import TauDomain, calculate

from ._data import TRAJECTORIES, domain_of, load

# Where tau2's airline DB (not published) differs from tau-bench's HEAD JSON, which stands
# in for it: reservation Z7GOZK (round trip EWR-IAH in tau2) and HAT018's status on
# 2024-05-11 (delayed in tau2). Only reads of those two records can differ.
DATA_DELTAS = ({"reservation_id": "Z7GOZK"}, {"flight_number": "HAT018", "date": "2024-05-11"})


def _reply(domain: TauDomain[Any], name: str, args: dict[str, Any]) -> str:
    try:
        return domain.call(name, args)
    except ToolError as exc:
        return f"Error: {exc}"


def _recorded_calls() -> list[tuple[str, str, dict[str, Any], str]]:
    """(domain, tool, arguments, recorded reply) for every call of every fixture, per sim."""
    out = []
    for path in TRAJECTORIES:
        for sim in load(path)["simulations"]:
            calls: dict[str, dict[str, Any]] = {}
            for m in sim["messages"]:
                for c in m.get("tool_calls") or []:
                    calls[c["id"]] = c
                if m["role"] == "tool":
                    c = calls[m["id"]]
                    out.append((domain_of(path), c["name"], c["arguments"], m["content"]))
    return out


def test_replies_match_tau2_recordings_byte_for_byte() -> None:
    # Each simulation replays in its own fresh domain, in order, so writes feed later reads.
    same = differ = 0
    unexplained = []
    for path in TRAJECTORIES:
        spec = get_domain(domain_of(path))
        for sim in load(path)["simulations"]:
            domain = spec.create()
            assert isinstance(domain, TauDomain)
            calls: dict[str, dict[str, Any]] = {}
            for m in sim["messages"]:
                for c in m.get("tool_calls") or []:
                    calls[c["id"]] = c
                if m["role"] != "tool":
                    continue
                c = calls[m["id"]]
                ours = _reply(domain, c["name"], c["arguments"])
                if ours == m["content"]:
                    same += 1
                    continue
                differ += 1
                if not any(
                    all(c["arguments"].get(k) == v for k, v in d.items()) for d in DATA_DELTAS
                ):
                    unexplained.append((sim["task_id"], c["name"], ours[:120], m["content"][:120]))
    assert unexplained == []
    assert same >= 800 and differ <= 6, (same, differ)


def test_recorded_error_texts_are_reproduced() -> None:
    errors = [(d, n, a, r) for d, n, a, r in _recorded_calls() if r.startswith("Error:")]
    assert len(errors) >= 10
    for dom, name, args, recorded in errors:
        domain = get_domain(dom).create()
        assert isinstance(domain, TauDomain)
        if recorded.startswith("Error: Non-delivered") or "exactly one payment" in recorded:
            continue  # these depend on writes earlier in their simulation
        assert _reply(domain, name, args) == recorded


@pytest.mark.parametrize(
    ("dom", "name", "args", "expected"),
    [
        (
            "retail",
            "get_order_details",
            {},
            "RetailTools.get_order_details() missing 1 required positional argument: 'order_id'",
        ),
        (
            "retail",
            "get_order_details",
            {"order_id": "#W1", "x": 1},
            "RetailTools.get_order_details() got an unexpected keyword argument 'x'",
        ),
        ("airline", "get_user_details", {"user_id": "nobody"}, "User nobody not found"),
        ("airline", "fly_me", {}, "Tool 'fly_me' not found."),
        ("retail", "calculate", {"expression": "2 ** x"}, "Invalid characters in expression"),
        (
            "retail",
            "cancel_pending_order",
            {"order_id": "#W2611340", "reason": "meh"},
            "Non-pending order cannot be cancelled",
        ),
    ],
)
def test_argument_and_lookup_errors_read_as_tau2(
    dom: str, name: str, args: dict[str, Any], expected: str
) -> None:
    domain = get_domain(dom).create()
    with pytest.raises(ToolError) as caught:
        domain.call(name, args)
    assert str(caught.value) == expected


def test_calculate_matches_python_arithmetic() -> None:
    for expr in ["1166.98 - 481.5", "(3 + 4) * 2 / 5", "10 // 3", "-5 + 2", "2 ** 10"]:
        assert calculate(expr) == str(round(float(eval(expr, {"__builtins__": {}}, {})), 2))
    with pytest.raises(ZeroDivisionError):
        calculate("1 / 0")
    with pytest.raises(OverflowError):
        calculate("9 ** 9 ** 9")


def _full(domain: TauDomain[Any]) -> str:
    return state_hash(domain.db)


def _sample(sims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Two simulations tau2 judged a DB match and three it judged a mismatch per file: both
    # directions of the equivalence get exercised.
    ok = [s for s in sims if s["reward_info"]["db_check"]["db_match"]][:2]
    bad = [s for s in sims if not s["reward_info"]["db_check"]["db_match"]][:2]
    return ok + bad


@pytest.mark.slow
def test_incremental_hash_agrees_with_full_hash() -> None:
    # Equal states must hash equal and different states differ, exactly as a full
    # sorted-JSON hash of the whole DB says.
    verdicts = []
    for path in TRAJECTORIES:
        spec = get_domain(domain_of(path))
        data = load(path)
        tasks = {t["id"]: t for t in data["tasks"]}
        fresh = spec.create()
        fresh_full = _full(fresh)  # type: ignore[arg-type]
        for sim in _sample(data["simulations"]):
            agent = spec.create()
            for m in sim["messages"]:
                for c in m.get("tool_calls") or []:
                    if c["name"] in agent.write_tools:  # type: ignore[attr-defined]
                        _reply(agent, c["name"], c["arguments"])  # type: ignore[arg-type]
            gold = spec.create()
            for a in tasks[sim["task_id"]]["evaluation_criteria"]["actions"] or []:
                _reply(gold, a["name"], a["arguments"])  # type: ignore[arg-type]
            full = {"agent": _full(agent), "gold": _full(gold), "fresh": fresh_full}  # type: ignore[arg-type]
            inc = {
                "agent": agent.state_hash(),
                "gold": gold.state_hash(),
                "fresh": fresh.state_hash(),
            }
            for x, y in [("agent", "gold"), ("agent", "fresh"), ("gold", "fresh")]:
                assert (inc[x] == inc[y]) == (full[x] == full[y]), (sim["task_id"], x, y)
            verdicts.append(inc["agent"] == inc["gold"])
    assert verdicts.count(True) == 6 and verdicts.count(False) == 6


def test_a_record_restored_to_its_base_content_drops_out_of_the_hash() -> None:
    domain = get_domain("retail").create()
    fresh = domain.state_hash()
    before = json.loads(domain.call("get_user_details", {"user_id": "noah_brown_6181"}))["address"]
    domain.call(
        "modify_user_address", {"user_id": "noah_brown_6181", **{**before, "city": "Boulder"}}
    )
    assert domain.state_hash() != fresh
    domain.call("modify_user_address", {"user_id": "noah_brown_6181", **before})
    assert domain.state_hash() == fresh


def test_sessions_never_write_the_shared_base() -> None:
    for name in ("retail", "airline"):
        spec = get_domain(name)
        base = spec.base  # type: ignore[attr-defined]
        before = state_hash(base.db)
        for path in TRAJECTORIES:
            if domain_of(path) != name:
                continue
            for sim in load(path)["simulations"]:
                domain = spec.create()
                for m in sim["messages"]:
                    for c in m.get("tool_calls") or []:
                        _reply(domain, c["name"], c["arguments"])  # type: ignore[arg-type]
        assert state_hash(base.db) == before


def test_write_flags_and_generated_schemas() -> None:
    retail = {t.name: t for t in get_domain("retail").tools()}
    airline = {t.name: t for t in get_domain("airline").tools()}
    assert {n for n, t in retail.items() if t.write} == {
        "cancel_pending_order",
        "exchange_delivered_order_items",
        "modify_pending_order_address",
        "modify_pending_order_items",
        "modify_pending_order_payment",
        "modify_user_address",
        "return_delivered_order_items",
    }
    assert {n for n, t in airline.items() if t.write} == {
        "book_reservation",
        "cancel_reservation",
        "send_certificate",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
    }
    assert len(retail) == 16 and len(airline) == 14
    book = airline["book_reservation"].parameters
    assert book["properties"]["cabin"].get("enum") == ["business", "economy", "basic_economy"]
    assert set(book["required"]) >= {"user_id", "flights", "passengers", "payment_methods"}
    for spec in [*retail.values(), *airline.values()]:
        assert spec.description and "title" not in json.dumps(spec.parameters)


def test_booking_takes_seats_in_tau2_and_not_in_taubench() -> None:
    args = {
        "user_id": "mia_li_3668",
        "origin": "JFK",
        "destination": "SEA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT083", "date": "2024-05-24"}],
        "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
        "payment_methods": [],
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "no",
    }
    seats = {}
    for name in ("airline", "taubench-airline"):
        domain = get_domain(name).create()
        status = json.loads(
            domain.call(
                "search_direct_flight",
                {"origin": "JFK", "destination": "SEA", "date": "2024-05-24"},
            )
        )
        # The airline data is static: HAT083 flies JFK-SEA on 2024-05-24 in both variants.
        (flight,) = [f for f in status if f["flight_number"] == "HAT083"]
        assert flight["status"] == "available", flight
        price = flight["prices"]["economy"]
        args["payment_methods"] = [{"payment_id": "credit_card_4421486", "amount": price}]
        booked = json.loads(domain.call("book_reservation", args))
        assert booked["reservation_id"] == "HATHAT"
        after = domain.db.flights["HAT083"].dates["2024-05-24"]  # type: ignore[attr-defined]
        seats[name] = flight["available_seats"]["economy"] - after.available_seats["economy"]
    assert seats == {"airline": 1, "taubench-airline": 0}


def test_taubench_variant_texts_and_think_tool() -> None:
    tb = get_domain("taubench-airline").create()
    assert tb.call("think", {"thought": "plan"}) == ""
    with pytest.raises(ToolError, match=r"^user not found$"):
        tb.call("get_reservation_details", {"reservation_id": "NOPE00"})
    tr = get_domain("taubench-retail").create()
    with pytest.raises(ToolError, match=r"^order not found$"):
        tr.call("get_order_details", {"order_id": "#W0"})
    assert "get_item_details" not in {t.name for t in get_domain("taubench-retail").tools()}
    assert "think" not in {t.name for t in get_domain("retail").tools()}
