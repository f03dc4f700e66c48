"""Fault plans: parsing, seeded draws, rates, and the injector at the tool boundary."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from sessionproof.errors import ConfigError
from sessionproof.faults import FaultPlan
from sessionproof.faults._internal import COMMITTED_CLASSES, DEFAULT_MIX, FaultInjector
from sessionproof.records import ErrorClass, EventKind, ToolCall
from sessionproof.taxonomy._internal import classify_payload

from .world import Events, context, make_domain

E = ErrorClass


def test_parse_bare_rate_uses_the_documented_mix() -> None:
    plan = FaultPlan.parse("3%")
    assert plan.tool is None
    assert math.isclose(plan.total_rate, 0.03)
    assert math.isclose(sum(DEFAULT_MIX.values()), 1.0)
    for cls, share in DEFAULT_MIX.items():
        assert math.isclose(plan.rates[cls], 0.03 * share)


def test_parse_per_class_rates_and_tool_filter() -> None:
    plan = FaultPlan.parse(" rate_limited:5%, timeout:2.5%@book_reservation ")
    assert plan.rates == {E.rate_limited: 0.05, E.timeout: 0.025}
    assert plan.tool == "book_reservation"
    assert plan.applies_to("book_reservation") and not plan.applies_to("get_order")
    assert plan.spec == "rate_limited:5%, timeout:2.5%@book_reservation"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "empty"),
        ("3", "percentage"),
        ("abc%", "not a rate"),
        ("150%", "above 100%"),
        ("bogus:3%", "unknown error class"),
        ("timout:3%", "did you mean 'timeout'"),
        ("timeout:2%,timeout:3%", "twice"),
        ("timeout:60%,rate_limited:50%", "more than 100%"),
        ("3%@", "not a tool name"),
        ("3%@a@b", "one @TOOL"),
        ("3%,,1%", "empty entry"),
        ("timeout:x", "not a rate"),
        ("-3%", "not a rate"),
    ],
)
def test_bad_specs_raise_config_error(spec: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        FaultPlan.parse(spec)
    assert words in str(err.value)


def test_draws_are_a_pure_function_of_the_key() -> None:
    plan = FaultPlan.parse("40%")
    first = [plan.draw(11, "s", 0, "get_book", k) for k in range(200)]
    again = [plan.draw(11, "s", 0, "get_book", k) for k in range(200)]
    assert first == again
    other_seed = [plan.draw(12, "s", 0, "get_book", k) for k in range(200)]
    other_trial = [plan.draw(11, "s", 1, "get_book", k) for k in range(200)]
    assert first != other_seed and first != other_trial


def _z(observed: int, n: int, p: float) -> float:
    return abs(observed - n * p) / math.sqrt(n * p * (1 - p))


def test_rates_are_near_the_spec_over_many_draws() -> None:
    plan = FaultPlan.parse("rate_limited:5%,timeout:2%,auth_expired:0.5%")
    n = 40_000
    counts = Counter(plan.draw(3, f"s{k % 50}", k % 7, "t", k) for k in range(n))
    for cls, p in plan.rates.items():
        assert _z(counts[cls], n, p) < 4.5, (cls, counts[cls])
    assert _z(counts[None], n, 1 - plan.total_rate) < 4.5


def test_bare_rate_mix_proportions_over_many_draws() -> None:
    plan = FaultPlan.parse("50%")
    n = 20_000
    counts = Counter(plan.draw(5, "s", 0, "t", k) for k in range(n))
    for cls, share in DEFAULT_MIX.items():
        assert _z(counts[cls], n, 0.5 * share) < 4.5, cls


def test_a_retry_draws_afresh() -> None:
    plan = FaultPlan.parse("rate_limited:30%")
    n = 20_000
    both = sum(
        plan.draw(1, "s", 0, "t", k, 0) is not None and plan.draw(1, "s", 0, "t", k, 1) is not None
        for k in range(n)
    )
    assert _z(both, n, 0.09) < 4.5  # independent attempts: 30% × 30%


def test_tool_filter_spares_other_tools() -> None:
    plan = FaultPlan.parse("100%@lend_book")
    assert all(plan.draw(1, "s", 0, "get_book", k) is None for k in range(100))
    assert all(plan.draw(1, "s", 0, "lend_book", k) is not None for k in range(100))


async def _faults_on(tool: str, sequence: list[str], plan: FaultPlan) -> list[bool]:
    domain, events = make_domain(), Events()
    boundary = FaultInjector(plan, seed=9).wrap(domain).call_tool
    faulted = []
    for i, name in enumerate(sequence):
        args = {"book_id": "B1"} if name == "get_book" else {}
        result = await boundary(ToolCall(id=f"c{i}", name=name, arguments=args), context(events))
        if name == tool:
            faulted.append(result.injected)
    return faulted


async def test_faults_do_not_move_with_the_agents_other_calls() -> None:
    plan = FaultPlan.parse("50%")
    plain = await _faults_on("get_book", ["get_book"] * 30, plan)
    interleaved = ["count_books", "get_book", "count_books", "count_books"] * 30
    busy = await _faults_on("get_book", interleaved, plan)
    assert plain == busy[:30]
    assert any(plain) and not all(plain)


async def test_pre_call_fault_leaves_the_db_untouched() -> None:
    domain, events = make_domain(), Events()
    boundary = FaultInjector(FaultPlan.parse("rate_limited:100%"), seed=1).wrap(domain).call_tool
    call = ToolCall(
        id="c1", name="lend_book", arguments={"book_id": "B1", "member": "m", "kind": "standard"}
    )
    result = await boundary(call, context(events))
    assert result.injected and result.error_class is E.rate_limited
    assert result.output.startswith("Error: 429")
    assert classify_payload(result.output) is E.rate_limited
    assert domain.db.books["B1"].status == "available"
    [payload] = events.of(EventKind.fault_injected)
    assert payload == {
        "call_id": "c1",
        "tool": "lend_book",
        "error_class": "rate_limited",
        "committed": False,
        "retry_after_s": 2.0,
        "occurrence": 0,
        "attempt": 0,
    }


@pytest.mark.parametrize("cls", sorted(COMMITTED_CLASSES))
async def test_post_call_fault_commits_the_write(cls: ErrorClass) -> None:
    domain, events = make_domain(), Events()
    boundary = FaultInjector(FaultPlan.parse(f"{cls}:100%"), seed=1).wrap(domain).call_tool
    call = ToolCall(
        id="c1", name="lend_book", arguments={"book_id": "B1", "member": "m", "kind": "standard"}
    )
    result = await boundary(call, context(events))
    assert result.injected and result.error_class is cls and not result.ok
    assert domain.db.books["B1"].status == "loaned"  # the write happened all the same
    assert events.of(EventKind.fault_injected)[0]["committed"] is True


async def test_post_call_fault_on_a_failed_call_commits_nothing() -> None:
    domain, events = make_domain(), Events()
    boundary = FaultInjector(FaultPlan.parse("timeout:100%"), seed=1).wrap(domain).call_tool
    call = ToolCall(id="c1", name="get_book", arguments={"book_id": "nope"})
    await boundary(call, context(events))
    assert events.of(EventKind.fault_injected)[0]["committed"] is False


async def test_same_call_again_is_the_next_attempt() -> None:
    domain, events = make_domain(), Events()
    boundary = FaultInjector(FaultPlan.parse("unavailable:100%"), seed=1).wrap(domain).call_tool
    call = ToolCall(id="c1", name="get_book", arguments={"book_id": "B1"})
    ctx = context(events)
    for _ in range(3):
        await boundary(call, ctx)
    await boundary(call.model_copy(update={"id": "c2"}), ctx)
    keys = [(p["occurrence"], p["attempt"]) for p in events.of(EventKind.fault_injected)]
    assert keys == [(0, 0), (0, 1), (0, 2), (1, 0)]


async def test_unknown_tools_and_unparsable_arguments_are_not_faulted() -> None:
    domain, events = make_domain(), Events()
    boundary = FaultInjector(FaultPlan.parse("timeout:100%"), seed=1).wrap(domain).call_tool
    made_up = await boundary(ToolCall(id="c1", name="burn_book", arguments={}), context(events))
    broken = await boundary(
        ToolCall(id="c2", name="get_book", arguments=None, raw_arguments="{", parse_error="bad"),
        context(events),
    )
    assert not made_up.injected and made_up.error_class is E.validation_error
    assert not broken.injected and broken.error_class is E.validation_error
    assert events.of(EventKind.fault_injected) == []
