"""Arms: parsing spec strings, and composing drift, faults and the guard into hooks."""

from __future__ import annotations

import pytest

from sessionproof.conditions import Condition, parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.errors import ConfigError
from sessionproof.records import ErrorClass, EventKind, ToolCall

from .world import Events, context, make_domain


@pytest.mark.parametrize(
    ("spec", "faults", "drift", "guard"),
    [
        ("baseline", None, None, False),
        ("guard", None, None, True),
        ("faults=3%", "3%", None, False),
        ("faults=3% guard", "3%", None, True),
        ("drift=rename_param@2", None, "rename_param@2", False),
        (
            "faults=rate_limited:5%,unavailable:5% guard",
            "rate_limited:5%,unavailable:5%",
            None,
            True,
        ),
        ("guard  drift=enum_change faults=1%@lend_book", "1%@lend_book", "enum_change", True),
    ],
)
def test_parse_arm(spec: str, faults: str | None, drift: str | None, guard: bool) -> None:
    condition = parse_arm(spec)
    assert condition.name == " ".join(spec.split())
    assert (condition.faults.spec if condition.faults else None) == faults
    assert (condition.drift.spec if condition.drift else None) == drift
    assert condition.guard is guard
    assert condition.baseline is (spec == "baseline")


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "empty arm"),
        ("   ", "empty arm"),
        ("baseline guard", "stands alone"),
        ("guard guard", "twice"),
        ("faults=3% faults=2%", "twice"),
        ("drift=rename_param drift=rename_tool", "twice"),
        ("faults=", "empty fault spec"),
        ("faults=3%guard", "not a rate"),
        ("turbo", "cannot read 'turbo'"),
        ("drift=nope", "unknown drift kind"),
        ("guard=yes", "cannot read"),
    ],
)
def test_bad_arms(spec: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_arm(spec)
    assert words in str(err.value)


def test_condition_forbids_unknown_fields() -> None:
    with pytest.raises(ValueError):
        Condition.model_validate({"name": "x", "turbo": True})


async def test_baseline_hooks_change_nothing() -> None:
    hooks = hooks_for(parse_arm("baseline"), seed=1)
    domain = make_domain()
    tools = domain.tools()
    assert hooks.wrap(domain) is domain
    assert await hooks.wrap(domain).list_tools(context(Events())) == tools


async def test_guard_retries_injected_faults_until_it_gives_up() -> None:
    domain, events = make_domain(), Events()
    hooks = hooks_for(parse_arm("faults=rate_limited:100% guard"), seed=1)
    source = hooks.wrap(domain)
    await source.list_tools(context(events))
    boundary = source.call_tool
    result = await boundary(
        ToolCall(id="c1", name="get_book", arguments={"book_id": "B1"}), context(events)
    )
    assert result.error_class is ErrorClass.rate_limited and result.injected
    assert "failed 4 times" in result.output
    faults = events.of(EventKind.fault_injected)
    assert [f["attempt"] for f in faults] == [0, 1, 2, 3]
    decisions = events.of(EventKind.guard_decision)
    assert [d["decision"] for d in decisions] == ["retry", "retry", "retry", "pass"]
    # Retry-After from the injected message is what the guard waited.
    assert [d["wait_s"] for d in decisions[:3]] == [2.0, 2.0, 2.0]
    assert all(d["call_id"] == "c1" and d["injected"] for d in decisions)


async def test_guard_recovers_safe_faults_on_writes() -> None:
    call = ToolCall(
        id="w", name="lend_book", arguments={"book_id": "B2", "member": "M1", "kind": "standard"}
    )
    results = []
    for seed in range(40):  # many sessions: some first attempts fault, the guard re-sends
        domain, events = make_domain(), Events()
        hooks = hooks_for(parse_arm("faults=unavailable:60% guard"), seed=seed)
        source = hooks.wrap(domain)
        await source.list_tools(context(events, seed=seed))
        result = await source.call_tool(call, context(events, seed=seed))
        results.append((result, events, domain))
    retried = [r for r in results if r[1].of(EventKind.fault_injected)]
    assert retried, "the seeds should meet some faults"
    recovered = [r for r in retried if r[0].ok]
    assert recovered, "503 is refused before running, so the guard may re-send a write"
    for _result, _, world in recovered:
        assert world.db.books["B2"].borrower == "M1"


async def test_guard_does_not_resend_a_write_after_a_timeout() -> None:
    domain, events = make_domain(), Events()
    hooks = hooks_for(parse_arm("faults=timeout:100%@lend_book guard"), seed=2)
    source = hooks.wrap(domain)
    await source.list_tools(context(events))
    call = ToolCall(
        id="w", name="lend_book", arguments={"book_id": "B1", "member": "M1", "kind": "standard"}
    )
    result = await source.call_tool(call, context(events))
    assert len(events.of(EventKind.fault_injected)) == 1  # sent once, never again
    assert events.of(EventKind.guard_decision)[-1]["decision"] == "no_retry_write"
    assert "may or may not have happened" in result.output
    assert domain.db.books["B1"].status == "loaned"  # the timeout came after the commit


async def test_guard_sees_the_drifted_schema_and_hints_the_new_name() -> None:
    domain, events = make_domain(), Events()
    hooks = hooks_for(parse_arm("drift=rename_param guard"), seed=3, prefer_tools=["get_book"])
    source = hooks.wrap(domain)
    visible = await source.list_tools(context(events))
    assert "book_ref" in next(t for t in visible if t.name == "get_book").parameters["properties"]
    boundary = source.call_tool
    old = await boundary(
        ToolCall(id="o", name="get_book", arguments={"book_id": "B1"}), context(events)
    )
    assert events.of(EventKind.guard_decision)[-1]["decision"] == "repair"
    assert "book_ref" in old.output and old.error_class is ErrorClass.validation_error
    new = await boundary(
        ToolCall(id="n", name="get_book", arguments={"book_ref": "B1"}), context(events)
    )
    assert new.ok


async def test_breaker_opens_in_the_harness_and_cools_down_on_virtual_time() -> None:
    domain, events = make_domain(), Events()
    hooks = hooks_for(parse_arm("faults=unavailable:100%@get_book guard"), seed=1)
    source = hooks.wrap(domain)
    await source.list_tools(context(events))
    boundary = source.call_tool
    finals = []
    for i in range(6):
        call = ToolCall(id=f"c{i}", name="get_book", arguments={"book_id": "B1"})
        await boundary(call, context(events))
        finals.append(events.of(EventKind.guard_decision)[-1]["decision"])
    # 4 attempts on the first call, a 5th failure on the second opens the breaker; the
    # next calls fail fast until virtual time has passed the cool-down.
    assert finals[0] == "pass" and finals[1] == "breaker_open"
    assert "breaker_open" in finals[2:]
    probes = [f for f in events.of(EventKind.fault_injected) if f["attempt"] == 0]
    assert len(probes) < 6  # not every call reached the tool
